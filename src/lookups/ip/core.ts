// Pure core of /v1/ip: the result shape from a parsed address, its geo record and its covering prefix.
import type { DatasetMeta, GeoRecord, GeoSource, PrefixMatch, PrefixSource } from '../../datasets/types.js';
import { cidrWithin, compareWords, ipv4, parseIp, v4Text, type IpAddress } from '../ip-address.js';
import { jsonOnce, memberBytes, withMemberBytes } from '../json-text.js';
import { IdMemo } from '../../platform/id-memo.js';
import { ByteTable } from '../../platform/byte-table.js';
import { answerBuffer } from '../../platform/answer-buffer.js';
import { V4_BLOCKS_PER_RANGE, v4BlockBase, v4BlockLen } from '../../datasets/ip.js';
import { derivedSlot } from '../../datasets/derived-slot.js';
import { continentCode, continentName, countryName, normaliseCountryCode, roundCoordinate, timezoneAt } from './geo-names.js';

export const IP_ACCEPTED = 'is not an IPv4 or IPv6 address (accepted: 8.8.8.8, 2001:db8::1, ::ffff:8.8.8.8; no hostnames, CIDRs, zone ids, leading zeros or surrounding spaces)';

/**
 * `source`: the datasets the answer came from, by role; a dataset that is not loaded contributed
 * nothing and is absent. A special-purpose answer names the built-in registry table instead.
 */
export interface IpSources {
  readonly geo?: DatasetMeta;
  readonly asn?: DatasetMeta;
  readonly special_purpose?: DatasetMeta;
}

export const SPECIAL_PURPOSE_SOURCE: IpSources = Object.freeze({
  special_purpose: Object.freeze({ dataset: 'iana-special-purpose-registries (built in)', built_at: null }),
});

export interface IpResult {
  ip: string;
  version: 4 | 6;
  city: string | null;
  region: string | null;
  region_code: string | null;
  country: string | null;
  country_code: string | null;
  continent: string | null;
  postal: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracy_radius_km: number | null;
  timezone: string | null;
  asn: number | null;
  as_name: string | null;
  isp: string | null;
  prefix: string | null;
  bogon: boolean;
  bogon_reason: string | null;
  source: IpSources;
}

/** The geo part of an answer, derived once per record (see GeoFieldsCache). */
export interface GeoFields {
  readonly city: string | null;
  readonly region: string | null;
  readonly region_code: string | null;
  readonly country: string | null;
  readonly country_code: string | null;
  readonly continent: string | null;
  readonly postal: string | null;
  readonly latitude: number | null;
  readonly longitude: number | null;
  readonly accuracy_radius_km: number | null;
  readonly timezone: string | null;
}

export const NO_GEO: GeoFields = withMemberBytes({
  city: null, region: null, region_code: null, country: null, country_code: null, continent: null,
  postal: null, latitude: null, longitude: null, accuracy_radius_km: null, timezone: null,
});

function text(s: string | null | undefined): string | null {
  return s === null || s === undefined || s === '' ? null : s;
}

/** Names, rounding and the timezone fallback for one record. */
export function geoFields(rec: GeoRecord): GeoFields {
  const cc = normaliseCountryCode(text(rec.country_code));
  const cont = continentCode(text(rec.continent_code), cc);
  const latitude = roundCoordinate(rec.latitude);
  const longitude = roundCoordinate(rec.longitude);
  // DB-IP lite has no timezone; the zone is then derived from the (unrounded) coordinates.
  let timezone = text(rec.timezone);
  if (timezone === null && latitude !== null && longitude !== null && rec.latitude !== null && rec.longitude !== null) {
    timezone = timezoneAt(rec.latitude, rec.longitude);
  }
  const radius = rec.accuracy_radius_km;
  return withMemberBytes({
    city: text(rec.city),
    region: text(rec.region),
    region_code: text(rec.region_code),
    country: cc === null ? null : countryName(cc),
    country_code: cc,
    continent: cont === null ? null : continentName(cont),
    postal: text(rec.postal),
    latitude,
    longitude,
    accuracy_radius_km: radius === null || !Number.isFinite(radius) ? null : radius,
    timezone,
  });
}

/**
 * Derived geo fields keyed by record identity: readers that cache decoded records (mmdb-lib with
 * a cache, or the datasets layer's own) hand back the same object for every address of a block,
 * so names, rounding and the timezone are computed once per record instead of once per request.
 */
export class GeoFieldsCache {
  private cache = new WeakMap<GeoRecord, GeoFields>();

  get(rec: GeoRecord): GeoFields {
    // Records from the mmdb source carry a slot for this (one consumer: these fields are source-independent).
    const slot = derivedSlot<GeoFields>(rec);
    if (slot !== undefined) return (slot.value ??= geoFields(rec));
    let f = this.cache.get(rec);
    if (f === undefined) {
      f = geoFields(rec);
      this.cache.set(rec, f);
    }
    return f;
  }
}

export interface AsPart {
  readonly asn: number | null;
  readonly as_name: string | null;
  readonly isp: string | null;
  readonly prefix: string | null;
}

export const NO_AS: AsPart = withMemberBytes({ asn: null, as_name: null, isp: null, prefix: null });

/** What one announced range contributes to every answer inside it, parsed once. */
export interface RangeInfo {
  readonly start: IpAddress;
  readonly end: IpAddress;
  /** The AS part when the range is exactly one CIDR block (the usual case): the same for every address. */
  readonly whole: AsPart | null;
  readonly asn: number;
  readonly asName: string | null;
  readonly isp: string;
  /** IPv4 ranges that are not one CIDR: AS parts by block base, filled as addresses are asked. */
  readonly blocks: Map<number, AsPart> | null;
}

/**
 * Range bounds parsed, and the AS name resolved, once per range rather than once per request. Keyed
 * by the PrefixMatch object: the prefix index hands out one object per range. `fallbackName` gives
 * the organisation from the AS-names data for ranges that carry none.
 */
export class RangeInfoCache {
  private cache = new IdMemo<RangeInfo | null>(0);
  private source: unknown = undefined;
  private names: unknown = undefined;

  constructor(private readonly fallbackName: (asn: number) => string | null) {}

  /**
   * By the match's id in `source`. `namesVersion` is the AS-names snapshot the fallback reads: a new
   * one, or a new prefix source, empties the cache.
   */
  get(match: PrefixMatch, source: { readonly records: number }, namesVersion: unknown): RangeInfo | null {
    if (source !== this.source || namesVersion !== this.names) {
      this.cache = new IdMemo(source.records);
      this.source = source;
      this.names = namesVersion;
    }
    let info = this.cache.get(match.id);
    if (info === undefined) {
      info = rangeInfo(match, this.fallbackName);
      this.cache.set(match.id, info);
    }
    return info;
  }
}

/** Null for a range whose bounds do not parse or disagree in family (nothing usable to say). */
export function rangeInfo(match: PrefixMatch, fallbackName: (asn: number) => string | null): RangeInfo | null {
  const start = parseIp(match.start);
  const end = parseIp(match.end);
  if (start === null || end === null || start.version !== end.version || compareWords(start.words, end.words) > 0) return null;
  const asName = text(match.org) ?? (match.asn === 0 ? null : text(fallbackName(match.asn)));
  const isp = asName === null ? `AS${match.asn}` : `AS${match.asn} ${asName}`;
  const first = cidrWithin(start, start, end);
  const whole = first !== null && first === cidrWithin(end, start, end)
    ? withMemberBytes({ asn: match.asn, as_name: asName, isp, prefix: first })
    : null;
  return { start, end, whole, asn: match.asn, asName, isp, blocks: whole === null && start.version === 4 ? new Map() : null };
}

/**
 * The AS fields from the most specific covering range. AS0 ("not routed", RFC 7607) is no AS.
 * `prefix` is the largest CIDR block inside the range that holds the address.
 */
export function asPart(ip: IpAddress, info: RangeInfo | null): AsPart {
  if (info === null || info.asn === 0) return NO_AS;
  if (info.whole !== null) return info.whole;
  if (info.blocks !== null && ip.version === 4) {
    // A range splits into at most 62 blocks, so this memo stays small and the steady state allocates nothing.
    const a = ip.words[0];
    if (a < info.start.words[0] || a > info.end.words[0]) return NO_AS;
    const len = v4BlockLen(a, info.start.words[0], info.end.words[0]);
    const base = v4BlockBase(a, len);
    let part = info.blocks.get(base);
    if (part === undefined) {
      part = withMemberBytes({ asn: info.asn, as_name: info.asName, isp: info.isp, prefix: `${v4Text(base)}/${len}` });
      info.blocks.set(base, part);
    }
    return part;
  }
  // An IPv6 range that is not one CIDR: the block is per address (rare; nothing to memoise it by).
  return withMemberBytes({ asn: info.asn, as_name: info.asName, isp: info.isp, prefix: cidrWithin(ip, info.start, info.end) });
}

// Geo parts are ~300 bytes, AS parts ~80: the tables hold about this many before they start over.
const GEO_PARTS = 40_000;
const AS_PARTS = 65_536;

/**
 * The geo part of IPv4 answers as JSON members in UTF-8, by the source's record key. A hit reads the
 * table and the bytes, and never the decoded record or what was derived from it: with random clients
 * every object an answer touches is a likely cache miss, and the chain record → slot → fields → bytes
 * was four of them.
 */
export class GeoBytesCache {
  private readonly table = new ByteTable(GEO_PARTS, GEO_PARTS * 320);

  constructor(private readonly fields: GeoFieldsCache) {}

  get(source: GeoSource, v4: number): Uint8Array {
    this.table.useFor(source);
    const key = source.keyV4(v4);
    if (key < 0) return memberBytes(NO_GEO);
    const bytes = this.table.get(key);
    if (bytes !== undefined) return bytes;
    const rec = source.recordV4(key);
    return this.table.set(key, memberBytes(rec === null ? NO_GEO : this.fields.get(rec)));
  }
}

/**
 * The AS part of IPv4 answers as JSON members in UTF-8, by the prefix source's block key: what
 * RangeInfoCache and asPart give, without reading the match, the range info, the block memo and the
 * part object on every answer (the same cache misses as above; nearly half the ranges of the default
 * data are not one CIDR block, so their parts are per block).
 */
export class AsBytesCache {
  private readonly table = new ByteTable(AS_PARTS, AS_PARTS * 96);

  constructor(private readonly ranges: RangeInfoCache) {}

  get(v4: number, source: PrefixSource, namesVersion: unknown): Uint8Array {
    this.table.useFor(source, namesVersion);
    const key = source.blockKeyV4(v4);
    if (key < 0) return memberBytes(NO_AS);
    const bytes = this.table.get(key);
    if (bytes !== undefined) return bytes;
    const match = source.match(Math.floor(key / V4_BLOCKS_PER_RANGE));
    return this.table.set(key, memberBytes(asPart(ipv4(v4), match === null ? null : this.ranges.get(match, source, namesVersion))));
  }
}

/** The full answer for a public address. */
export function ipResult(ip: IpAddress, geo: GeoFields, as: AsPart, source: IpSources): IpResult {
  return {
    ip: ip.text,
    version: ip.version,
    city: geo.city,
    region: geo.region,
    region_code: geo.region_code,
    country: geo.country,
    country_code: geo.country_code,
    continent: geo.continent,
    postal: geo.postal,
    latitude: geo.latitude,
    longitude: geo.longitude,
    accuracy_radius_km: geo.accuracy_radius_km,
    timezone: geo.timezone,
    asn: as.asn,
    as_name: as.as_name,
    isp: as.isp,
    prefix: as.prefix,
    bogon: false,
    bogon_reason: null,
    source,
  };
}

const IP_HEAD = Buffer.from('{"ip":"');
const V4_MID = Buffer.from('","version":4,');
const V6_MID = Buffer.from('","version":6,');
const COMMA = 0x2c;

/** What follows the AS part in every answer from the same datasets. */
export function ipResultTail(source: IpSources): Buffer {
  return Buffer.from(`,"bogon":false,"bogon_reason":null,"source":${jsonOnce(source)}}`);
}

/**
 * JSON.stringify(ipResult(...)) as UTF-8, copied together from fragments encoded once per record
 * (serialising the whole answer was about half the cost of a /v1/ip request): `g` and `a` are the
 * memberBytes() of the geo and AS parts, whose member order is ipResult's. `text` is the canonical
 * address and `tail` ipResultTail() of the answer's sources.
 */
export function ipResultBytes(text: string, version: 4 | 6, g: Uint8Array, a: Uint8Array, tail: Buffer): Buffer {
  const mid = version === 4 ? V4_MID : V6_MID;
  const out = answerBuffer(IP_HEAD.length + text.length + mid.length + g.length + 1 + a.length + tail.length);
  // The short pieces byte by byte: a native write or set call costs more than the few bytes it copies
  // (the parts are longer, and a loop costs about a nanosecond per byte).
  let p = 0;
  for (let i = 0; i < IP_HEAD.length; i++) out[p++] = IP_HEAD[i]!;
  // Canonical address text is ASCII and never needs JSON escaping.
  for (let i = 0; i < text.length; i++) out[p++] = text.charCodeAt(i);
  for (let i = 0; i < mid.length; i++) out[p++] = mid[i]!;
  out.set(g, p);
  p += g.length;
  out[p++] = COMMA;
  out.set(a, p);
  out.set(tail, p + a.length);
  return out;
}

/** The answer for a special-purpose address: geo and AS fields null (API.md). */
export function bogonResult(ip: IpAddress, reason: string): IpResult {
  const r = ipResult(ip, NO_GEO, NO_AS, SPECIAL_PURPOSE_SOURCE);
  r.bogon = true;
  r.bogon_reason = reason;
  return r;
}
