// GET /v1/ip/{ip}: glue between the parser, the special-purpose table, the dataset interfaces and the result shape.
import type { AppContext } from '../../context.js';
import type { AsnSource, DatasetMeta, GeoSource, PrefixSource } from '../../datasets/types.js';
import { LookupError, quote } from '../../http/errors.js';
import { bogonReason } from '../bogons.js';
import { parseIp, type IpAddress } from '../ip-address.js';
import { EncodedResponse, type Lookup, type LookupResponse } from '../types.js';
import {
  GeoFieldsCache, IP_ACCEPTED, NO_AS, NO_GEO, RangeInfoCache, asPart, bogonResult, ipResult, ipResultBytes, ipResultTail,
  type AsPart, type GeoFields, type IpResult, type IpSources,
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
  return createAnswerer(datasets, bogonResult, ipResult);
}

/** The same answers as JSON in UTF-8, copied together from per-record fragments (what the HTTP route sends). */
export function createIpBytesAnswerer(datasets: IpDatasets): (param: string) => Buffer {
  let lastSource: IpSources | null = null;
  let tail: Buffer = Buffer.alloc(0);
  return createAnswerer(
    datasets,
    (ip, reason) => Buffer.from(JSON.stringify(bogonResult(ip, reason))),
    (ip, geo, as, source) => {
      if (source !== lastSource) {
        lastSource = source;
        tail = ipResultTail(source);
      }
      return ipResultBytes(ip, geo, as, tail);
    },
  );
}

function createAnswerer<T>(
  datasets: IpDatasets,
  bogon: (ip: IpAddress, reason: string) => T,
  result: (ip: IpAddress, geo: GeoFields, as: AsPart, source: IpSources) => T,
): (param: string) => T {
  const geoCache = new GeoFieldsCache();
  // Ranges without an organisation are named from the AS-names data (description, else handle).
  const ranges = new RangeInfoCache((asn) => {
    const r = datasets.asns?.get(asn) ?? null;
    return r === null ? null : (r.description ?? r.name);
  });
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
    const ip = parseIp(param);
    if (ip === null) throw invalidIp(param);
    const geoSource = datasets.geo;
    const prefixSource = datasets.prefixes;
    const reason = bogonReason(ip);
    if (reason !== null) return bogon(ip, reason);
    if (geoSource === null && prefixSource === null) {
      throw new LookupError('dataset_unavailable', 'The geolocation and prefix datasets are not loaded yet; retry later', RETRY_AFTER);
    }
    const source = sourcesFor(geoSource?.meta ?? null, prefixSource?.meta ?? null);
    const v4 = ip.version === 4;
    const rec = geoSource === null ? null : v4 ? geoSource.lookupV4(ip.words[0]) : geoSource.lookup(ip.text);
    const geo = rec === null ? NO_GEO : geoCache.get(rec);
    let as = NO_AS;
    if (prefixSource !== null) {
      const match = v4 ? prefixSource.lookupV4(ip.words[0]) : prefixSource.lookup(ip.text);
      if (match !== null) as = asPart(ip, ranges.get(match, prefixSource, datasets.asns));
    }
    return result(ip, geo, as, source);
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
