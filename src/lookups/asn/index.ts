// GET /v1/asn/{asn_or_ip}: glue between the query parser, the AS and prefix dataset interfaces and the result shape.
import type { AppContext } from '../../context.js';
import type { AsnSource, DatasetMeta, PrefixSource } from '../../datasets/types.js';
import { LookupError, quote } from '../../http/errors.js';
import { SerializedResponse, type Lookup, type LookupResponse } from '../types.js';
import { LOCAL_MAX_AGE } from '../ip/index.js';
import { RangeInfoCache } from '../ip/core.js';
import { ASN_ACCEPTED, asnResult, asnResultForIp, asnResultText, isReservedAsn, parseAsnQuery, type AsnResult, type AsnSources } from './core.js';

export interface AsnDatasets {
  readonly prefixes: PrefixSource | null;
  readonly asns: AsnSource | null;
}

const RETRY_AFTER = { 'retry-after': '60' };

/**
 * The answer for one parameter. An AS number is answered from whichever of the AS-names/RIR data
 * and the prefix data is loaded (fields of a missing one are null); an IP needs the prefix data.
 * Reserved AS numbers are answered even with no data. Nothing usable loaded: 503 `dataset_unavailable`.
 */
export function createAsnAnswerer(datasets: AsnDatasets): (param: string) => AsnResult {
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
      return asnResult(param, q.asn, asns?.get(q.asn) ?? null, prefixes?.prefixCounts(q.asn) ?? null, source);
    }
    if (prefixes === null) {
      throw new LookupError('dataset_unavailable', 'The prefix dataset is not loaded yet; retry later', RETRY_AFTER);
    }
    const match = prefixes.lookup(q.ip.text);
    const info = match === null ? null : ranges.get(match, null);
    const covered = info !== null && info.asn !== 0;
    return asnResultForIp(
      param, q.ip, info,
      covered ? (asns?.get(info.asn) ?? null) : null,
      covered ? prefixes.prefixCounts(info.asn) : null,
      source,
    );
  };
}

export function createAsnLookup(ctx: AppContext): Lookup {
  const answer = createAsnAnswerer(ctx.datasets);
  const respond = ({ param }: { param: string }): LookupResponse => new SerializedResponse(asnResultText(answer(param)), LOCAL_MAX_AGE);
  return {
    name: 'asn',
    klass: 'local',
    runSync: respond,
    run: async (req): Promise<LookupResponse> => respond(req),
  };
}
