// GET /v1/asn/{asn_or_ip}: glue between the query parser, the AS and prefix dataset interfaces and the result shape.
import type { AppContext } from '../../context.js';
import type { AsnRecord, AsnSource, DatasetMeta, PrefixSource } from '../../datasets/types.js';
import { LookupError, quote } from '../../http/errors.js';
import { EncodedResponse, type Lookup, type LookupResponse } from '../types.js';
import type { IpAddress } from '../ip-address.js';
import { LOCAL_MAX_AGE } from '../ip/index.js';
import { RangeInfoCache, asPart, type AsPart, type RangeInfo } from '../ip/core.js';
import { ASN_ACCEPTED, asnEndText, asnMiddleText, asnResult, asnResultForIp, isReservedAsn, parseAsnQuery, type AsnResult, type AsnSources } from './core.js';
import { answerBuffer } from '../../platform/answer-buffer.js';

export interface AsnDatasets {
  readonly prefixes: PrefixSource | null;
  readonly asns: AsnSource | null;
}

const RETRY_AFTER = { 'retry-after': '60' };

/** What the datasets say about one AS, read only when an answer needs it (a memoised answer does not). */
interface AsFacts {
  record(asn: number): AsnRecord | null;
  counts(asn: number): { ipv4: number; ipv6: number } | null;
}

/** How one kind of answer is made (the object form, or its bytes). */
interface AnswerForm<T> {
  asn(query: string, asn: number, facts: AsFacts, source: AsnSources): T;
  /** `info` is the most specific covering range, null when none. */
  ip(query: string, ip: IpAddress, info: RangeInfo | null, facts: AsFacts, source: AsnSources): T;
}

/** The object answer for an IP: the AS facts of the covering range's AS, unless none covers it (or AS0). */
function ipAnswer(query: string, ip: IpAddress, info: RangeInfo | null, facts: AsFacts, source: AsnSources): AsnResult {
  const covered = info !== null && info.asn !== 0;
  return asnResultForIp(query, ip, info, covered ? facts.record(info.asn) : null, covered ? facts.counts(info.asn) : null, source);
}

/**
 * The answer for one parameter. An AS number is answered from whichever of the AS-names/RIR data
 * and the prefix data is loaded (fields of a missing one are null); an IP needs the prefix data.
 * Reserved AS numbers are answered even with no data. Nothing usable loaded: 503 `dataset_unavailable`.
 */
export function createAsnAnswerer(datasets: AsnDatasets): (param: string) => AsnResult {
  return createAnswerer(datasets, {
    asn: (query, asn, facts, source) => asnResult(query, asn, facts.record(asn), facts.counts(asn), source),
    ip: ipAnswer,
  });
}

// AS answers kept ready-encoded, at most this many (cleared when full); one per AS in use.
const ASN_MEMO_MAX = 16_384;

/**
 * The same answers as JSON in UTF-8 (what the HTTP route sends). Everything but the query and the address
 * is the same for every answer about one AS, or for every address of one range: those parts are encoded
 * once (per dataset version) and the answer is copied together from them.
 */
export function createAsnBytesAnswerer(datasets: AsnDatasets): (param: string) => Buffer {
  let memoSource: AsnSources | null = null;
  let byAsn = new Map<number, Buffer>();
  let byPart = new WeakMap<AsPart, readonly [Buffer, Buffer]>();
  const sameData = (source: AsnSources): void => {
    if (source === memoSource) return;
    memoSource = source;
    byAsn = new Map();
    byPart = new WeakMap();
  };
  return createAnswerer<Buffer>(datasets, {
    asn(query, asn, facts, source) {
      sameData(source);
      let rest = byAsn.get(asn);
      if (rest === undefined) {
        const r = asnResult(query, asn, facts.record(asn), facts.counts(asn), source);
        rest = Buffer.from(`${asnMiddleText(r)}"ip":null,${asnEndText(r)}`);
        if (byAsn.size >= ASN_MEMO_MAX) byAsn.clear();
        byAsn.set(asn, rest);
      }
      return queryAnswerBytes(query, rest, null, null);
    },
    ip(query, ip, info, facts, source) {
      sameData(source);
      const as = asPart(ip, info);
      let parts = byPart.get(as);
      if (parts === undefined) {
        const r = ipAnswer(query, ip, info, facts, source);
        parts = [Buffer.from(`${asnMiddleText(r)}"ip":"`), Buffer.from(`",${asnEndText(r)}`)];
        byPart.set(as, parts);
      }
      return queryAnswerBytes(query, parts[0], ip.text, parts[1]);
    },
  });
}

const QUERY_HEAD = Buffer.from('{"query":"');
const QUERY_END = Buffer.from('",');
// What the query parser accepts never needs JSON escaping; anything else is escaped the usual way.
const PLAIN_QUERY = /^[0-9A-Za-z.:]*$/;

/** `{"query":…,` + middle [+ address + end]: the address is canonical text, ASCII with nothing to escape. */
function queryAnswerBytes(query: string, middle: Buffer, ip: string | null, end: Buffer | null): Buffer {
  const q = PLAIN_QUERY.test(query) ? query : JSON.stringify(query).slice(1, -1);
  const qBytes = q.length === query.length ? q.length : Buffer.byteLength(q);
  const out = answerBuffer(QUERY_HEAD.length + qBytes + QUERY_END.length + middle.length + (ip?.length ?? 0) + (end?.length ?? 0));
  out.set(QUERY_HEAD, 0);
  let p = QUERY_HEAD.length;
  p += out.write(q, p, 'utf8');
  out.set(QUERY_END, p);
  p += QUERY_END.length;
  out.set(middle, p);
  p += middle.length;
  if (ip !== null && end !== null) {
    p += out.write(ip, p, 'latin1');
    out.set(end, p);
  }
  return out;
}

function createAnswerer<T>(datasets: AsnDatasets, form: AnswerForm<T>): (param: string) => T {
  let last: [DatasetMeta | null, DatasetMeta | null, DatasetMeta | null] = [null, null, null];
  let sources: AsnSources = {};
  const sourcesFor = (prefixes: DatasetMeta | null, names: DatasetMeta | null, rir: DatasetMeta | null): AsnSources => {
    if (prefixes !== last[0] || names !== last[1] || rir !== last[2]) {
      last = [prefixes, names, rir];
      sources = Object.freeze({
        ...(prefixes === null ? {} : { prefixes }),
        ...(names === null ? {} : { as_names: names }),
        ...(rir === null ? {} : { rir }),
      });
    }
    return sources;
  };

  // Range bounds parsed once per range; the name comes from the range's organisation only, since
  // the AS-names record is reported in its own fields.
  const ranges = new RangeInfoCache(() => null);
  const facts: AsFacts = {
    record: (asn) => datasets.asns?.get(asn) ?? null,
    counts: (asn) => datasets.prefixes?.prefixCounts(asn) ?? null,
  };

  return (param) => {
    const q = parseAsnQuery(param);
    if (q === null) throw new LookupError('invalid_asn', `Invalid ASN query: ${quote(param)} is not ${ASN_ACCEPTED}`);
    const prefixes = datasets.prefixes;
    const asns = datasets.asns;
    const source = sourcesFor(prefixes?.meta ?? null, asns?.names ?? null, asns?.registry ?? null);
    if (q.kind === 'asn') {
      if (prefixes === null && asns === null && !isReservedAsn(q.asn)) {
        throw new LookupError('dataset_unavailable', 'The AS-names, registry and prefix datasets are not loaded yet; retry later', RETRY_AFTER);
      }
      return form.asn(param, q.asn, facts, source);
    }
    if (prefixes === null) {
      throw new LookupError('dataset_unavailable', 'The prefix dataset is not loaded yet; retry later', RETRY_AFTER);
    }
    const match = q.ip.version === 4 ? prefixes.lookupV4(q.ip.words[0]) : prefixes.lookup(q.ip.text);
    return form.ip(param, q.ip, match === null ? null : ranges.get(match, prefixes, null), facts, source);
  };
}

export function createAsnLookup(ctx: AppContext): Lookup {
  const answer = createAsnBytesAnswerer(ctx.datasets);
  const respond = ({ param }: { param: string }): LookupResponse => new EncodedResponse(answer(param), LOCAL_MAX_AGE);
  return {
    name: 'asn',
    klass: 'local',
    runSync: respond,
    run: async (req): Promise<LookupResponse> => respond(req),
  };
}
