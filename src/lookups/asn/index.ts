// Placeholder until the asn lookup lands: answers 501 with the JSON error body, never fake data.
import type { AppContext } from '../../context.js';
import { LookupError } from '../../http/errors.js';
import type { Lookup } from '../types.js';

export function createAsnLookup(_ctx: AppContext): Lookup {
  return {
    name: 'asn',
    klass: 'local',
    run: async () => {
      throw new LookupError('not_implemented', 'The asn lookup is not available in this build yet');
    },
  };
}
