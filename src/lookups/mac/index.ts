// GET /v1/mac/{mac}: glue between the notation parser, the OUI registry interface and the result shape.
import type { AppContext } from '../../context.js';
import type { OuiSource } from '../../datasets/types.js';
import { LookupError, quote } from '../../http/errors.js';
import type { Lookup, LookupResponse } from '../types.js';
import { LOCAL_MAX_AGE } from '../ip/index.js';
import { MAC_ACCEPTED, macResult, parseMac, searchKey, type MacResult } from './core.js';

export interface MacDatasets {
  readonly oui: OuiSource | null;
}


/**
 * The answer for one parameter. A locally administered unicast address needs no registry unless
 * one is loaded (a CID may cover it); anything else without the registry is 503 `dataset_unavailable`.
 */
export function createMacAnswerer(datasets: MacDatasets): (param: string) => MacResult {
  return (param) => {
    const mac = parseMac(param);
    if (mac === null) throw new LookupError('invalid_mac', `Invalid MAC address: ${quote(param)} is not ${MAC_ACCEPTED}`);
    const oui = datasets.oui;
    if (oui === null) {
      const first = parseInt(mac.hex.slice(0, 2), 16);
      if ((first & 3) === 2) return macResult(mac, null, null);
      throw new LookupError('dataset_unavailable', 'The MAC vendor (OUI) registry is not loaded yet; retry later', { 'retry-after': '60' });
    }
    return macResult(mac, oui.lookup(searchKey(mac)), oui.meta);
  };
}

export function createMacLookup(ctx: AppContext): Lookup {
  const answer = createMacAnswerer(ctx.datasets);
  return {
    name: 'mac',
    klass: 'local',
    runSync: ({ param }): LookupResponse => ({ body: answer(param) as unknown as Record<string, unknown>, maxAge: LOCAL_MAX_AGE }),
    run: async ({ param }): Promise<LookupResponse> => ({ body: answer(param) as unknown as Record<string, unknown>, maxAge: LOCAL_MAX_AGE }),
  };
}
