// `netintel lookup <kind> <arg>`: the same lookups as the HTTP routes, printed as the same JSON.
import { createContext } from '../main.js';
import { createLookups } from '../lookups/index.js';
import { ENDPOINTS, type LookupName } from '../lookups/types.js';
import { isLookupError } from '../http/errors.js';
import { createLogger } from '../platform/logger.js';
import { UsageError, parseArgs } from './args.js';
import type { Command } from './commands.js';

export const lookupCommand: Command = async (args, config) => {
  const { positionals, flags } = parseArgs(args, ['type']);
  const [kind, arg] = positionals;
  if (kind === undefined || arg === undefined || !ENDPOINTS.some((e) => e.name === kind)) {
    throw new UsageError('lookup needs a kind (ip, dns, whois, ssl, mac, asn, ping) and an argument');
  }
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const ctx = createContext(config, log);
  try {
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(flags)) if (typeof v === 'string') query[k] = v;
    if (flags['raw'] === true) query['raw'] = 'true';
    const lookup = createLookups(ctx)[kind as LookupName];
    const result = await lookup.run({ param: arg, query, signal: AbortSignal.timeout(config.requestTimeoutMs) });
    process.stdout.write(JSON.stringify(result.body, null, 2) + '\n');
    return 0;
  } catch (e) {
    if (!isLookupError(e)) throw e;
    process.stdout.write(JSON.stringify({ error: e.message, code: e.code }, null, 2) + '\n');
    return 1;
  } finally {
    ctx.db.close();
  }
};
