// Pure core of /v1/asn: AS number notations, the reserved ranges, and the result shape.
import type { AsnRecord, DatasetMeta } from '../../datasets/types.js';
import { parseIp, type IpAddress } from '../ip-address.js';
import { asPart, type RangeInfo } from '../ip/core.js';
import { jsonDatasetString, jsonOnce, jsonString } from '../json-text.js';

export type AsnQuery = { readonly kind: 'asn'; readonly asn: number } | { readonly kind: 'ip'; readonly ip: IpAddress };

export const ASN_MAX = 4294967295;

export const ASN_ACCEPTED =
  'an AS number (AS13335, as13335, 13335, asdot AS1.10; 0 to 4294967295) or an IPv4/IPv6 address';

/** Decimal digits in s[from, to) without a leading zero (except "0" itself); -1 otherwise. */
function decimal(s: string, from: number, to: number, max: number): number {
  const len = to - from;
  if (len <= 0 || len > 10) return -1;
  if (len > 1 && s.charCodeAt(from) === 48) return -1;
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    v = v * 10 + (c - 48);
  }
  return v <= max ? v : -1;
}

/**
 * "AS13335", "as13335", "13335" (asplain), "AS1.10" or "1.10" (asdot: high × 65536 + low, each
 * 0–65535), else an IP address as /v1/ip accepts it. Null when it is neither. Leading zeros are
 * rejected, as in IPv4 octets, so every AS number has one spelling per notation.
 */
export function parseAsnQuery(input: string): AsnQuery | null {
  const n = input.length;
  if (n === 0 || n > 64) return null;
  const prefixed = n > 2 && (input.charCodeAt(0) | 0x20) === 0x61 && (input.charCodeAt(1) | 0x20) === 0x73; // "as", any case
  const from = prefixed ? 2 : 0;
  const dot = input.indexOf('.', from);
  const secondDot = dot < 0 ? -1 : input.indexOf('.', dot + 1);
  // Digits with at most one dot are an AS number ("1.10" is asdot, never a short IPv4 form).
  if (prefixed || (secondDot < 0 && input.indexOf(':') < 0)) {
    let asn = -1;
    if (dot < 0) {
      asn = decimal(input, from, n, ASN_MAX);
    } else if (secondDot < 0) {
      const high = decimal(input, from, dot, 65535);
      const low = decimal(input, dot + 1, n, 65535);
      if (high >= 0 && low >= 0) asn = high * 65536 + low;
    }
    return asn < 0 ? null : { kind: 'asn', asn };
  }
  const ip = parseIp(input);
  return ip === null ? null : { kind: 'ip', ip };
}

/**
 * Reserved, private-use and documentation AS numbers (IANA "Special-Purpose AS Numbers" registry,
 * RFC 7607, 6793, 5398, 6996, 7300), as API.md lists them.
 */
export function isReservedAsn(asn: number): boolean {
  return (
    asn === 0 ||
    asn === 23456 ||
    (asn >= 64496 && asn <= 65551) || // documentation 64496–64511, private 64512–65534, 65535, documentation 65536–65551
    asn >= 4200000000 // private 4200000000–4294967294, and 4294967295
  );
}

/** The datasets the answer came from; one that is not loaded is absent. */
export interface AsnSources {
  readonly prefixes?: DatasetMeta;
  readonly as_names?: DatasetMeta;
  readonly rir?: DatasetMeta;
}

export interface AsnResult {
  query: string;
  asn: number | null;
  name: string | null;
  description: string | null;
  country: string | null;
  rir: string | null;
  allocated: string | null;
  status: string | null;
  reserved: boolean;
  ip: string | null;
  prefix: string | null;
  announced: boolean | null;
  prefixes: { ipv4: number; ipv6: number } | null;
  source: AsnSources;
}

/** The answer for an AS number. `counts` is null when no prefix data is loaded. */
export function asnResult(
  query: string,
  asn: number,
  record: AsnRecord | null,
  counts: { ipv4: number; ipv6: number } | null,
  source: AsnSources,
): AsnResult {
  return {
    query,
    asn,
    name: record?.name ?? null,
    description: record?.description ?? null,
    country: record?.country ?? null,
    rir: record?.rir ?? null,
    allocated: record?.allocated ?? null,
    status: record?.status ?? null,
    reserved: isReservedAsn(asn),
    ip: null,
    prefix: null,
    announced: counts === null ? null : counts.ipv4 + counts.ipv6 > 0,
    prefixes: counts,
    source,
  };
}

/**
 * The answer for an IP address. `info` describes the most specific covering range (null when none).
 * AS0 ("not routed", RFC 7607) in range data counts as not announced.
 */
export function asnResultForIp(
  query: string,
  ip: IpAddress,
  info: RangeInfo | null,
  record: AsnRecord | null,
  counts: { ipv4: number; ipv6: number } | null,
  source: AsnSources,
): AsnResult {
  const as = asPart(ip, info);
  if (as.asn === null) {
    return {
      query, asn: null, name: null, description: null, country: null, rir: null, allocated: null, status: null,
      reserved: false, ip: ip.text, prefix: null, announced: false, prefixes: null, source,
    };
  }
  return {
    query,
    asn: as.asn,
    name: record?.name ?? null,
    // Range data such as ip-location-db carries only an organisation: the best description there is.
    description: record?.description ?? as.as_name,
    country: record?.country ?? null,
    rir: record?.rir ?? null,
    allocated: record?.allocated ?? null,
    status: record?.status ?? null,
    reserved: isReservedAsn(as.asn),
    ip: ip.text,
    prefix: as.prefix,
    announced: true,
    prefixes: counts,
    source,
  };
}

/**
 * JSON.stringify(result), member for member: the scalars written directly, `prefixes` (one object per
 * AS in the prefix index) and `source` (one per dataset version) serialised once per object.
 */
export function asnResultText(r: AsnResult): string {
  return `{"query":${JSON.stringify(r.query)},${asnMiddleText(r)}"ip":${jsonString(r.ip)},${asnEndText(r)}`;
}

/** The members between `query` and `ip`, with the comma after them: the same for every answer about one AS. */
export function asnMiddleText(r: AsnResult): string {
  const d = jsonDatasetString;
  return `"asn":${r.asn === null ? 'null' : r.asn},"name":${d(r.name)},` +
    `"description":${d(r.description)},"country":${d(r.country)},"rir":${d(r.rir)},` +
    `"allocated":${d(r.allocated)},"status":${d(r.status)},"reserved":${r.reserved},`;
}

/** The members after `ip` and the closing brace: the same for every address of one range. */
export function asnEndText(r: AsnResult): string {
  return `"prefix":${jsonString(r.prefix)},"announced":${r.announced === null ? 'null' : r.announced},` +
    `"prefixes":${r.prefixes === null ? 'null' : jsonOnce(r.prefixes)},"source":${jsonOnce(r.source)}}`;
}
