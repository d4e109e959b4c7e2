// RDAP first, WHOIS second, the store in front: freshness, single flight and serve-stale-on-error.
import { LookupError, isLookupError, quote } from '../../http/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { Metrics } from '../../platform/metrics.js';
import { ConcurrencyLimiter } from '../../platform/limiter.js';
import { SingleFlight } from '../../platform/single-flight.js';
import { matchRdapBase } from './bootstrap.js';
import type { ActiveBootstrap } from './bootstrap-store.js';
import type { RdapResult } from './rdap-client.js';
import type { WhoisStore } from './store.js';
import type { WhoisTarget } from './target.js';
import type { FetchedRecord } from './types.js';
import type { WhoisChainResult } from './whois-client.js';

export interface WhoisServiceDeps {
  readonly store: Pick<WhoisStore, 'get' | 'put'>;
  readonly bootstrap: { current(): Promise<ActiveBootstrap | null> };
  readonly rdap: { domain(base: string, domain: string): Promise<RdapResult> };
  readonly whois: { lookup(domain: string, tld: string): Promise<WhoisChainResult> };
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Freshness of a stored record, seconds (NETINTEL_WHOIS_TTL). */
  readonly ttlSeconds: number;
  /** Upstream fetches in progress at once (others wait; beyond the queue: 503 overloaded). */
  readonly concurrency: number;
  readonly now?: () => number;
}

export interface WhoisOutcome {
  readonly record: FetchedRecord;
  readonly cached: boolean;
  readonly stale: boolean;
  /** Remaining freshness in seconds: Cache-Control max-age. 0 for a stale record. */
  readonly maxAge: number;
}

// Failures for which an old answer is better than none.
const STALE_OK = new Set(['upstream_error', 'upstream_timeout', 'overloaded']);

export class WhoisService {
  private readonly flight = new SingleFlight<FetchedRecord>();
  private readonly limiter: ConcurrencyLimiter;
  private readonly now: () => number;

  constructor(private readonly deps: WhoisServiceDeps) {
    this.limiter = new ConcurrencyLimiter(deps.concurrency, deps.concurrency * 4);
    this.now = deps.now ?? Date.now;
  }

  async lookup(target: WhoisTarget): Promise<WhoisOutcome> {
    const ttlMs = this.deps.ttlSeconds * 1000;
    const entry = this.deps.store.get(target.ascii);
    if (entry !== null) {
      const age = this.now() - entry.fetched_at_ms;
      if (age < ttlMs) {
        this.count('hit');
        return { record: entry, cached: true, stale: false, maxAge: Math.max(0, Math.floor((ttlMs - age) / 1000)) };
      }
    }
    try {
      // Concurrent requests for one domain share one upstream exchange; the exchange is not tied
      // to any one request's deadline, so a client going away does not fail the others.
      const record = await this.flight.run(target.ascii, () => this.limiter.run(() => this.fetchAndStore(target)));
      this.count('miss');
      return { record, cached: false, stale: false, maxAge: this.deps.ttlSeconds };
    } catch (e) {
      if (entry !== null && isLookupError(e) && STALE_OK.has(e.code)) {
        this.deps.log.info({ domain: target.ascii, code: e.code, err: e.message }, 'upstream failed; serving the stored record');
        this.count('stale');
        return { record: entry, cached: true, stale: true, maxAge: 0 };
      }
      this.count('miss');
      throw e;
    }
  }

  private async fetchAndStore(target: WhoisTarget): Promise<FetchedRecord> {
    const record = await this.fetch(target);
    this.deps.store.put(record);
    return record;
  }

  /** RDAP when the bootstrap names a server; WHOIS when it names none or RDAP fails. */
  async fetch(target: WhoisTarget): Promise<FetchedRecord> {
    const active = await this.deps.bootstrap.current();
    const base = active === null ? null : matchRdapBase(active.bootstrap, target.ascii);
    let rdapError: LookupError | null = null;
    if (base !== null) {
      try {
        const r = await this.deps.rdap.domain(base, target.ascii);
        return {
          domain: target.ascii,
          unicode_domain: target.unicode,
          source_type: 'rdap',
          registration: r.kind === 'found' ? r.registration : null,
          servers: { rdap: base, whois: null, related: r.kind === 'found' ? (r.related?.url ?? null) : null },
          raw: r.raw,
          raw_related: r.kind === 'found' ? (r.related?.raw ?? null) : null,
          fetched_at_ms: this.now(),
          bootstrap: active === null ? null : { dataset: active.dataset, built_at: active.built_at },
        };
      } catch (e) {
        if (!isLookupError(e)) throw e;
        rdapError = e;
        this.deps.log.info({ domain: target.ascii, rdap: base, code: e.code, err: e.message }, 'RDAP failed; trying WHOIS');
      }
    }

    let w: WhoisChainResult;
    try {
      w = await this.deps.whois.lookup(target.ascii, target.tld);
    } catch (e) {
      if (rdapError !== null && isLookupError(e)) throw combine(rdapError, e);
      throw e;
    }
    if (w.kind === 'unsupported') {
      if (rdapError !== null) throw rdapError;
      throw new LookupError(
        'unsupported_tld',
        `Unsupported TLD: no RDAP or WHOIS server is known for ".${target.tld}" (domain ${quote(target.ascii)}); supported are TLDs listed in the RDAP bootstrap or known to the WHOIS root ${w.root}`,
      );
    }
    return {
      domain: target.ascii,
      unicode_domain: target.unicode,
      source_type: 'whois',
      registration: w.notFound ? null : w.registration,
      servers: { rdap: null, whois: w.registry.server, related: w.registrar?.server ?? null },
      raw: w.registry.answer.text,
      raw_related: w.registrar === null ? null : w.registrar.answer.text,
      fetched_at_ms: this.now(),
      bootstrap: null,
    };
  }

  private count(result: 'hit' | 'miss' | 'stale'): void {
    this.deps.metrics.cacheRequests.inc({ cache: 'whois', result });
  }
}

// Both protocols failed: a timeout only when both timed out, so that 504 means "nobody answered".
function combine(rdap: LookupError, whois: LookupError): LookupError {
  const code = rdap.code === 'upstream_timeout' && whois.code === 'upstream_timeout' ? 'upstream_timeout' : 'upstream_error';
  return new LookupError(code, `RDAP and WHOIS both failed: ${rdap.message}; ${whois.message}`);
}
