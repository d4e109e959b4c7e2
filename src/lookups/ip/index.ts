// GET /v1/ip/{ip}: glue between the parser, the special-purpose table, the dataset interfaces and the result shape.
import type { AppContext } from '../../context.js';
import type { AsnSource, DatasetMeta, GeoSource, PrefixSource } from '../../datasets/types.js';
import { LookupError, quote } from '../../http/errors.js';
import { bogonReason, bogonReasonV4 } from '../bogons.js';
import { ipv4, parseIp, parseIpv4, type IpAddress } from '../ip-address.js';
import { EncodedResponse, type Lookup, type LookupResponse } from '../types.js';
import { memberBytes } from '../json-text.js';
import {
  AsBytesCache, GeoBytesCache, GeoFieldsCache, IP_ACCEPTED, NO_AS, NO_GEO, RangeInfoCache, asPart, bogonResult, ipResult,
  ipResultBytes, ipResultTail, type AsPart, type GeoFields, type IpResult, type IpSources,
} from './core.js';

/** The part of the dataset registry this lookup reads; re-read on every request so a refresh takes effect at once. */
export interface IpDatasets {
  readonly geo: GeoSource | null;
  readonly prefixes: PrefixSource | null;
  readonly asns: AsnSource | null;
}

/** API.md: local-data lookups are `Cache-Control: public, max-age=3600`. */
export const LOCAL_MAX_AGE = 3600;
const RETRY_AFTER = { 'retry-after': '60' };

export function invalidIp(param: string): LookupError {
  return new LookupError('invalid_ip', `Invalid IP address format: ${quote(param)} ${IP_ACCEPTED}`);
}

/**
 * The answer for one parameter. Special-purpose addresses need no data. For a public address the
 * geo and prefix datasets are each optional (API.md prefers an answer with null fields); only
 * when neither is loaded is there nothing to answer with: 503 `dataset_unavailable`.
 */
export function createIpAnswerer(datasets: IpDatasets): (param: string) => IpResult {
  const parts = new IpParts(datasets);
  return createAnswerer(datasets, bogonResult, (ip, geo, prefixes, source) =>
    ipResult(ip, parts.geo(ip, geo), parts.as(ip, prefixes), source));
}

/** The same answers as JSON in UTF-8, copied together from per-record fragments (what the HTTP route sends). */
export function createIpBytesAnswerer(datasets: IpDatasets): (param: string) => Buffer {
  const parts = new IpParts(datasets);
  // IPv4, nearly all traffic, reads the parts' bytes by record key and range id (GeoBytesCache, AsBytesCache).
  const geoBytes = new GeoBytesCache(parts.geoFields);
  const asBytes = new AsBytesCache(parts.ranges);
  const noGeo = memberBytes(NO_GEO);
  const noAs = memberBytes(NO_AS);
  let lastSource: IpSources | null = null;
  let tail: Buffer = Buffer.alloc(0);
  const tailFor = (source: IpSources): Buffer => {
    if (source !== lastSource) {
      lastSource = source;
      tail = ipResultTail(source);
    }
    return tail;
  };
  const answerV4 = (text: string, v4: number, geo: GeoSource | null, prefixes: PrefixSource | null, source: IpSources): Buffer => {
    const g = geo === null ? noGeo : geoBytes.get(geo, v4);
    const a = prefixes === null ? noAs : asBytes.get(v4, prefixes, datasets.asns);
    return ipResultBytes(text, 4, g, a, tailFor(source));
  };
  return createAnswerer(
    datasets,
    (ip, reason) => Buffer.from(JSON.stringify(bogonResult(ip, reason))),
    (ip, geo, prefixes, source) => {
      if (ip.version === 4) return answerV4(ip.text, ip.words[0], geo, prefixes, source);
      return ipResultBytes(ip.text, 6, memberBytes(parts.geo(ip, geo)), memberBytes(parts.as(ip, prefixes)), tailFor(source));
    },
    answerV4,
  );
}

/** The geo and AS parts of an answer as objects, through the per-record and per-range caches. */
class IpParts {
  readonly geoFields = new GeoFieldsCache();
  // Ranges without an organisation are named from the AS-names data (description, else handle).
  readonly ranges = new RangeInfoCache((asn) => {
    const r = this.datasets.asns?.get(asn) ?? null;
    return r === null ? null : (r.description ?? r.name);
  });

  constructor(private readonly datasets: IpDatasets) {}

  geo(ip: IpAddress, source: GeoSource | null): GeoFields {
    const rec = source === null ? null : ip.version === 4 ? source.lookupV4(ip.words[0]) : source.lookup(ip.text);
    return rec === null ? NO_GEO : this.geoFields.get(rec);
  }

  as(ip: IpAddress, source: PrefixSource | null): AsPart {
    if (source === null) return NO_AS;
    const match = ip.version === 4 ? source.lookupV4(ip.words[0]) : source.lookup(ip.text);
    return match === null ? NO_AS : asPart(ip, this.ranges.get(match, source, this.datasets.asns));
  }
}

type Answer<T> = (ip: IpAddress, geo: GeoSource | null, prefixes: PrefixSource | null, source: IpSources) => T;
type AnswerV4<T> = (text: string, v4: number, geo: GeoSource | null, prefixes: PrefixSource | null, source: IpSources) => T;

function createAnswerer<T>(
  datasets: IpDatasets,
  bogon: (ip: IpAddress, reason: string) => T,
  result: Answer<T>,
  resultV4: AnswerV4<T> = (text, v4, geo, prefixes, source) => result({ version: 4, text, words: [v4, 0, 0, 0] }, geo, prefixes, source),
): (param: string) => T {
  let lastGeo: DatasetMeta | null = null;
  let lastAsn: DatasetMeta | null = null;
  let sources: IpSources = {};
  const sourcesFor = (geo: DatasetMeta | null, asn: DatasetMeta | null): IpSources => {
    if (geo !== lastGeo || asn !== lastAsn) {
      lastGeo = geo;
      lastAsn = asn;
      sources = Object.freeze({ ...(geo === null ? {} : { geo }), ...(asn === null ? {} : { asn }) });
    }
    return sources;
  };

  return (param) => {
    // A dotted quad (nearly all traffic) is answered by its value: no parsed address object per request.
    const v4 = parseIpv4(param);
    const ip = v4 < 0 ? parseIp(param) : null;
    if (v4 < 0 && ip === null) throw invalidIp(param);
    const geoSource = datasets.geo;
    const prefixSource = datasets.prefixes;
    const reason = ip === null ? bogonReasonV4(v4) : bogonReason(ip);
    if (reason !== null) return bogon(ip ?? ipv4(v4), reason);
    if (geoSource === null && prefixSource === null) {
      throw new LookupError('dataset_unavailable', 'The geolocation and prefix datasets are not loaded yet; retry later', RETRY_AFTER);
    }
    const source = sourcesFor(geoSource?.meta ?? null, prefixSource?.meta ?? null);
    return ip === null ? resultV4(param, v4, geoSource, prefixSource, source) : result(ip, geoSource, prefixSource, source);
  };
}

export function createIpLookup(ctx: AppContext): Lookup {
  const answer = createIpBytesAnswerer(ctx.datasets);
  const respond = ({ param }: { param: string }): LookupResponse => new EncodedResponse(answer(param), LOCAL_MAX_AGE);
  return {
    name: 'ip',
    klass: 'local',
    runSync: respond,
    run: async (req): Promise<LookupResponse> => respond(req),
  };
}
