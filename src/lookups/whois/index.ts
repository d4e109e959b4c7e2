// GET /v1/whois/{domain}: glue between the route, the store and the RDAP/WHOIS adapters.
import type { AppContext } from '../../context.js';
import { createHttpAgent } from '../../platform/fetch.js';
import type { Lookup } from '../types.js';
import { BootstrapView } from './bootstrap-store.js';
import { RdapClient } from './rdap-client.js';
import { parseRawFlag, whoisBody } from './result.js';
import { WhoisService } from './service.js';
import { WhoisStore } from './store.js';
import { whoisTarget } from './target.js';
import { WhoisClient } from './whois-client.js';

export { importRdapBootstrap, importRdapBootstrapFromConfig, hasRdapBootstrap, RDAP_BOOTSTRAP_DATASET } from './bootstrap-store.js';

/** Per-answer size caps: a registry answer is a few KiB; beyond these it is not registration data. */
export const RDAP_MAX_BYTES = 1024 * 1024;
export const WHOIS_MAX_BYTES = 256 * 1024;

export function createWhoisService(ctx: AppContext): WhoisService {
  const { config } = ctx;
  const log = ctx.log.child({ module: 'whois' });
  // Created on first use: the CLI builds every lookup, and most commands never touch RDAP.
  let rdap: RdapClient | null = null;
  const rdapClient = (): RdapClient =>
    (rdap ??= new RdapClient({
      dispatcher: createHttpAgent({ extraCa: config.extraCa, connectTimeoutMs: config.upstreamTimeoutMs, connections: 16 }),
      timeoutMs: config.upstreamTimeoutMs,
      maxBytes: RDAP_MAX_BYTES,
      metrics: ctx.metrics,
      log,
    }));
  return new WhoisService({
    store: new WhoisStore(ctx.db),
    bootstrap: new BootstrapView({ db: ctx.db, config, log, metrics: ctx.metrics }, config.upstreamTimeoutMs),
    rdap: { domain: (base, domain) => rdapClient().domain(base, domain) },
    whois: new WhoisClient({
      root: config.whoisServer,
      timeoutMs: config.upstreamTimeoutMs,
      maxBytes: WHOIS_MAX_BYTES,
      metrics: ctx.metrics,
      log,
    }),
    metrics: ctx.metrics,
    log,
    ttlSeconds: config.whoisTtl,
    concurrency: Math.max(1, Math.min(config.networkConcurrency, 64)),
  });
}

export function createWhoisLookup(ctx: AppContext): Lookup {
  let service: WhoisService | null = null;
  return {
    name: 'whois',
    klass: 'network',
    run: async ({ param, query }) => {
      const target = whoisTarget(param);
      const raw = parseRawFlag(query['raw']);
      service ??= createWhoisService(ctx);
      const outcome = await service.lookup(target);
      return { body: whoisBody(outcome, raw), maxAge: outcome.maxAge };
    },
  };
}
