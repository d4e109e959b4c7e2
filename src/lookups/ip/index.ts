// Placeholder until the ip lookup lands: answers 501 with the JSON error body, never fake data.
import type { AppContext } from '../../context.js';
import { LookupError } from '../../http/errors.js';
import type { Lookup } from '../types.js';

export function createIpLookup(_ctx: AppContext): Lookup {
  return {
    name: 'ip',
    klass: 'local',
    run: async () => {
      throw new LookupError('not_implemented', 'The ip lookup is not available in this build yet');
    },
  };
}
