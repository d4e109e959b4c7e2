// Admission of a lookup request: API keys, free-tier rate limits and the network-lookup concurrency bound.
//
// Free tier: per client address (IPv6 per /64) and class, GCRA in a table shared by all worker threads
// (rate-limit.ts). Keys: the plan's daily allowance, counted exactly across workers (auth/key-usage.ts)
// and written to SQLite every FLUSH_MS and on drain (close()). Key requests are not also charged to the
// free tier of their address. Key hashes are cached per worker and re-read every KEY_REFRESH_MS, so a
// new or revoked key takes effect within that time.
import type { LookupClass } from '../lookups/types.js';
import { LookupError } from './errors.js';
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import { RateTable, createRateTableShare, type RateTableShare } from './rate-limit.js';
import { clientAddress, subjectOf } from './client-ip.js';
import { hashKey, parseAuthorization, secondsUntilNextDay, utcDay, type Plan } from '../auth/keys.js';
import { KeyRepo, type ActiveKey } from '../auth/key-repo.js';
import { KeyUsageTable, createKeyUsageShare, type KeyUsageShare } from '../auth/key-usage.js';

/** The parts of a request admission reads (whichever transport carried it). */
export interface GateRequest {
  /** Socket peer address. */
  readonly ip: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
}

export interface GateResult {
  /** Headers for the response (RateLimit-*), whatever the outcome. */
  readonly headers: Readonly<Record<string, string>>;
  /** Set when the request must be refused (401, 429, 503). */
  readonly error: LookupError | null;
}

export interface Gate {
  admit(klass: LookupClass, req: GateRequest): GateResult;
  /**
   * Runs an admitted lookup. Network lookups hold one of NETINTEL_NETWORK_CONCURRENCY slots of this
   * worker until the lookup itself settles (not merely until its deadline), and are refused with
   * 503 overloaded when none is free: refusing beats an unbounded queue.
   */
  track<T>(klass: LookupClass, run: () => Promise<T>): Promise<T>;
  /** Stops the timers and writes pending key usage: call before the store closes. */
  close(): void;
}

const OPEN: GateResult = Object.freeze({ headers: Object.freeze({}), error: null });

/** Admits everything: for embedding the server without limits (tests, tools). */
export const openGate: Gate = { admit: () => OPEN, track: (_klass, run) => run(), close: () => undefined };

/**
 * State shared by every HTTP worker (created once on the main thread, passed in workerData):
 * counters must be shared so that N workers do not give a client N times its allowance.
 */
export interface GateShare {
  readonly rate: RateTableShare;
  readonly usage: KeyUsageShare;
}

export function createGateShare(config: Config): GateShare {
  return { rate: createRateTableShare(config.rateLimitEntries), usage: createKeyUsageShare() };
}

export const KEY_REFRESH_MS = 2000;
export const FLUSH_MS = 2000;
const WINDOW_MS = 60_000;
const TAG: Readonly<Record<LookupClass, number>> = { local: 1, network: 2 };

export interface GateOptions {
  readonly now?: () => number;
  readonly timers?: boolean;
}

export function createGate(ctx: AppContext, share: GateShare | null | undefined, opts: GateOptions = {}): Gate {
  const { config, metrics } = ctx;
  const log = ctx.log.child({ module: 'gate' });
  const now = opts.now ?? Date.now;
  const shared = share ?? createGateShare(config);
  const table = new RateTable(shared.rate, opts.now);
  const usage = new KeyUsageTable(shared.usage);
  const repo = new KeyRepo(ctx.db);
  const limits: Readonly<Record<LookupClass, number>> = { local: config.rateLimitLocal, network: config.rateLimitNetwork };
  const limitText: Readonly<Record<LookupClass, string>> = {
    local: `${config.rateLimitLocal} local lookups (ip, mac, asn) per minute`,
    network: `${config.rateLimitNetwork} network lookups (dns, whois, ssl, ping) per minute`,
  };
  const authHeaders = { 'www-authenticate': 'Bearer realm="netintel"' };
  let keys = new Map<string, ActiveKey>();
  let networkInFlight = 0;
  let fullWarned = false;
  let closed = false;

  const refreshKeys = (): void => {
    try {
      keys = new Map(repo.active().map((k) => [k.hash, k]));
    } catch (err) {
      log.error({ err }, 'could not read API keys; keeping the previous set');
    }
  };
  const flush = (): void => {
    const deltas = usage.drain();
    if (deltas.length === 0) return;
    try {
      repo.addUsage(deltas);
    } catch (err) {
      usage.restore(deltas);
      log.error({ err }, 'could not write API key usage; will retry');
    }
  };
  const loadUsage = (keyId: number, day: number): number => {
    try {
      return repo.usage(keyId, day);
    } catch (err) {
      log.error({ err, keyId }, 'could not read API key usage; counting from zero');
      return 0;
    }
  };

  refreshKeys();
  const timers = opts.timers === false ? [] : [setInterval(refreshKeys, KEY_REFRESH_MS), setInterval(flush, FLUSH_MS)];
  for (const t of timers) t.unref();

  const unauthorized = (message: string): GateResult => ({ headers: OPEN.headers, error: new LookupError('invalid_api_key', message, authHeaders) });

  const admitKey = (key: ActiveKey): GateResult => {
    const plan: Plan = key.plan;
    const limit = config.planDaily[plan];
    const t = now();
    const d = usage.take(key.id, utcDay(t), limit, loadUsage);
    if (d === null) {
      if (!fullWarned) log.error({ keyId: key.id }, 'API key usage table is full; restart the daemon to free slots of old keys');
      fullWarned = true;
      return { headers: OPEN.headers, error: new LookupError('overloaded', 'Too many distinct API keys in use; retry later', { 'retry-after': '60' }) };
    }
    if (limit === 0) {
      metrics.countPlan(plan);
      return OPEN;
    }
    const reset = String(secondsUntilNextDay(t));
    const headers = { 'ratelimit-limit': String(limit), 'ratelimit-remaining': String(Math.max(0, limit - d.used)), 'ratelimit-reset': reset };
    if (!d.allowed) {
      metrics.rateLimited.inc({ class: 'daily' });
      return {
        headers,
        error: new LookupError('rate_limited', `Daily allowance used up: the ${plan} plan allows ${limit} requests per day; it resets at 00:00 UTC`, { 'retry-after': reset }),
      };
    }
    metrics.countPlan(plan);
    return { headers, error: null };
  };

  const admitFree = (klass: LookupClass, req: GateRequest): GateResult => {
    const limit = limits[klass];
    if (limit === 0) {
      metrics.countPlan('free');
      return OPEN;
    }
    const address = clientAddress(req.ip, req.headers['x-forwarded-for'], config.trustedProxies);
    const d = table.take(subjectOf(address, TAG[klass]), limit, WINDOW_MS);
    const headers = { 'ratelimit-limit': String(limit), 'ratelimit-remaining': String(d.remaining), 'ratelimit-reset': String(d.resetSeconds) };
    if (!d.allowed) {
      metrics.rateLimited.inc({ class: klass });
      return {
        headers,
        error: new LookupError('rate_limited', `Rate limit exceeded: the free tier allows ${limitText[klass]} per client address; retry in ${d.retryAfterSeconds} s, or use an API key`, {
          'retry-after': String(d.retryAfterSeconds),
        }),
      };
    }
    metrics.countPlan('free');
    return { headers, error: null };
  };

  return {
    admit(klass, req) {
      const auth = parseAuthorization(req.headers['authorization']);
      if (auth.kind === 'malformed') return unauthorized(`Invalid Authorization header: ${auth.reason}`);
      if (auth.kind === 'bearer') {
        const key = keys.get(hashKey(auth.key));
        return key === undefined ? unauthorized('Invalid API key: the key is unknown or has been revoked') : admitKey(key);
      }
      if (config.authRequired) return unauthorized('An API key is required: send "Authorization: Bearer <key>"');
      return admitFree(klass, req);
    },

    async track(klass, run) {
      if (klass !== 'network') return run();
      if (networkInFlight >= config.networkConcurrency) {
        throw new LookupError('overloaded', 'Too many network lookups in progress; retry shortly', { 'retry-after': '1' });
      }
      networkInFlight++;
      try {
        return await run();
      } finally {
        networkInFlight--;
      }
    },

    close() {
      if (closed) return;
      closed = true;
      for (const t of timers) clearInterval(t);
      flush();
    },
  };
}
