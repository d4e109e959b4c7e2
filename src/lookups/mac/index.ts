// GET /v1/mac/{mac}: glue between the notation parser, the OUI registry interface and the result shape.
import type { AppContext } from '../../context.js';
import type { DatasetMeta, OuiRecord, OuiSource } from '../../datasets/types.js';
import { LookupError, quote } from '../../http/errors.js';
import { EncodedResponse, type Lookup, type LookupResponse } from '../types.js';
import { LOCAL_MAX_AGE } from '../ip/index.js';
import { ByteTable } from '../../platform/byte-table.js';
import {
  MAC_ACCEPTED, firstOctet, macBytesWith, macResult, macResultBytes, macUnicastPart, parseMac, searchKey, type MacResult, type ParsedMac,
} from './core.js';

export interface MacDatasets {
  readonly oui: OuiSource | null;
}


/**
 * The answer for one parameter. A locally administered unicast address needs no registry unless
 * one is loaded (a CID may cover it); anything else without the registry is 503 `dataset_unavailable`.
 */
export function createMacAnswerer(datasets: MacDatasets): (param: string) => MacResult {
  return createAnswerer(datasets, macResult);
}

/** The same answers as JSON in UTF-8 (what the HTTP route sends). */
export function createMacBytesAnswerer(datasets: MacDatasets): (param: string) => Buffer {
  const parts = new UnicastBytesCache();
  return createAnswerer(datasets, macResultBytes, (mac, oui) => {
    // A full, universally administered unicast address inside an assignment (nearly every query)
    // answers with the record's shared part whatever the record is: it is read by key, not from the record.
    if (mac.bits !== 48 || (firstOctet(mac.hex) & 3) !== 0) return null;
    const key = oui.keyFor(mac.hex);
    return key < 0 ? null : macBytesWith(mac.hex, parts.get(oui, key));
  });
}

// Shared parts are a few hundred bytes: about this many records before the table starts over.
const UNICAST_PARTS = 32_768;

/** The shared part of unicast answers (macUnicastPart) per record key of one OUI source. */
class UnicastBytesCache {
  private readonly table = new ByteTable(UNICAST_PARTS, UNICAST_PARTS * 400);

  get(oui: OuiSource, key: number): Uint8Array {
    this.table.useFor(oui);
    return this.table.get(key) ?? this.table.set(key, macUnicastPart(oui.record(key)!, oui.meta));
  }
}

function createAnswerer<T>(
  datasets: MacDatasets,
  result: (mac: ParsedMac, record: OuiRecord | null, meta: DatasetMeta | null) => T,
  fast: (mac: ParsedMac, oui: OuiSource) => T | null = () => null,
): (param: string) => T {
  return (param) => {
    const mac = parseMac(param);
    if (mac === null) throw new LookupError('invalid_mac', `Invalid MAC address: ${quote(param)} is not ${MAC_ACCEPTED}`);
    const oui = datasets.oui;
    if (oui === null) {
      const first = firstOctet(mac.hex);
      if ((first & 3) === 2) return result(mac, null, null);
      throw new LookupError('dataset_unavailable', 'The MAC vendor (OUI) registry is not loaded yet; retry later', { 'retry-after': '60' });
    }
    return fast(mac, oui) ?? result(mac, oui.lookup(searchKey(mac)), oui.meta);
  };
}

export function createMacLookup(ctx: AppContext): Lookup {
  const answer = createMacBytesAnswerer(ctx.datasets);
  const respond = ({ param }: { param: string }): LookupResponse => new EncodedResponse(answer(param), LOCAL_MAX_AGE);
  return {
    name: 'mac',
    klass: 'local',
    runSync: respond,
    run: async (req): Promise<LookupResponse> => respond(req),
  };
}
