// Placeholder until the ping lookup lands: answers 501 with the JSON error body, never fake data.
import type { AppContext } from '../../context.js';
import { LookupError } from '../../http/errors.js';
import type { Lookup } from '../types.js';

export function createPingLookup(_ctx: AppContext): Lookup {
  return {
    name: 'ping',
    klass: 'network',
    run: async () => {
      throw new LookupError('not_implemented', 'The ping lookup is not available in this build yet');
    },
  };
}
