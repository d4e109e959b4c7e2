// GET /v1/dns/{domain}?type=: validation, the TTL cache with single-flight, and the response shape.
// The network is behind DnsResolver (resolver.ts) and the transports (transports.ts).
//
// The cache lives in memory, per worker thread, keyed by (ASCII name, type). Hits show the records'
// TTLs counted down and `cached: true`; Cache-Control max-age is the entry's remaining lifetime.
import type { Agent } from 'undici';
import type { AppContext } from '../../context.js';
import { LookupError } from '../../http/errors.js';
import { createHttpAgent } from '../../platform/fetch.js';
import { ConcurrencyLimiter } from '../../platform/limiter.js';
import { LruCache } from '../../platform/lru-cache.js';
import type { Metrics } from '../../platform/metrics.js';
import { SingleFlight } from '../../platform/single-flight.js';
import { parseDomainName, type DomainName } from '../domain-name.js';
import { SerializedResponse, type Lookup, type LookupRequest, type LookupResponse } from '../types.js';
import { ageRecords, cacheTtl } from './cache-policy.js';
import { parseQueryType } from './query-type.js';
import { DnsResolver, type Resolution } from './resolver.js';
import { parseResolverUrl } from './resolver-url.js';
import { createTransport } from './transports.js';
import { rcodeName, type DnsRecord, type QueryType } from './types.js';

/** Entries kept in the answer cache (LRU beyond this). */
export const DNS_CACHE_ENTRIES = 10_000;
/** Upstream flights at once; more wait in a queue of 4× this, beyond which 503 `overloaded`. */
export const DNS_MAX_CONCURRENT = 256;

interface Fetched {
  readonly resolution: Resolution;
  /** Clock milliseconds when the answer arrived. */
  readonly fetchedAt: number;
  /** Cacheable lifetime in seconds, or null when the answer must not be cached. */
  readonly ttl: number | null;
  /** The SOA records of the authority section (all the API shows of it). */
  readonly soa: readonly DnsRecord[];
  /** The serialised `source` member. */
  readonly sourceText: string;
  /** The serialised name (the cache key's name: the same for every hit). */
  readonly domainText: string;
  /** The answer aged for the last second a hit was served in: hits within one second share it. */
  aged: Aged | null;
}

interface Aged {
  readonly elapsed: number;
  /** The members from `type` to `resolver`, serialised: the same for every request in that second. */
  readonly middle: string;
}

export interface DnsServiceOptions {
  readonly resolver: DnsResolver;
  readonly metrics: Metrics;
  /** NETINTEL_DNS_MAX_TTL: cap on cache lifetime in seconds (0 disables caching). */
  readonly maxTtl: number;
  /** Bound on one upstream flight (all resolvers together), in milliseconds. */
  readonly flightTimeoutMs: number;
  readonly cacheEntries?: number;
  readonly now?: () => number;
}

export class DnsService {
  private readonly cache: LruCache<string, Fetched>;
  private readonly flights = new SingleFlight<Fetched>();
  private readonly limiter = new ConcurrencyLimiter(DNS_MAX_CONCURRENT, DNS_MAX_CONCURRENT * 4);
  private readonly now: () => number;
  // Deferred counters: prom-client's labelled inc() was a measurable share of a cache hit.
  private readonly hits: { inc(): void };
  private readonly misses: { inc(): void };

  constructor(private readonly opts: DnsServiceOptions) {
    this.now = opts.now ?? Date.now;
    this.hits = opts.metrics.cacheCounter({ cache: 'dns', result: 'hit' });
    this.misses = opts.metrics.cacheCounter({ cache: 'dns', result: 'miss' });
    this.cache = new LruCache({ maxEntries: opts.cacheEntries ?? DNS_CACHE_ENTRIES, now: this.now });
  }

  /** The answer from the cache, synchronously; null on a miss (then `lookup` asks upstream). */
  cached(domain: DomainName, type: QueryType, started = performance.now()): LookupResponse | null {
    const hit = this.cache.get(`${type} ${domain.ascii}`);
    if (hit === undefined) return null;
    this.hits.inc();
    const elapsed = Math.floor((this.now() - hit.value.fetchedAt) / 1000);
    const maxAge = Math.max(0, (hit.value.ttl ?? 0) - elapsed);
    return new SerializedResponse(this.text(domain, type, hit.value, elapsed, true, started), maxAge);
  }

  async lookup(domain: DomainName, type: QueryType, signal: AbortSignal): Promise<LookupResponse> {
    const started = performance.now();
    const hit = this.cached(domain, type, started);
    if (hit !== null) return hit;
    this.misses.inc();
    const key = `${type} ${domain.ascii}`;
    // The flight is shared, so it is bounded by its own deadline, not by the first caller's signal;
    // each caller still stops waiting when its own signal fires.
    const fetched = await raceSignal(this.flights.run(key, () => this.resolveAndStore(key, domain, type)), signal);
    return new SerializedResponse(this.text(domain, type, fetched, 0, false, started), fetched.ttl);
  }

  private resolveAndStore(key: string, domain: DomainName, type: QueryType): Promise<Fetched> {
    return this.limiter.run(async () => {
      const resolution = await this.opts.resolver.resolve({ name: domain.ascii, type }, AbortSignal.timeout(this.opts.flightTimeoutMs));
      const ttl = cacheTtl(resolution.answer, this.opts.maxTtl);
      const fetchedAt = this.now();
      const source = { dns: { resolver: resolution.resolver, protocol: resolution.protocol, queried_at: new Date(fetchedAt).toISOString().replace(/\.\d{3}Z$/, 'Z') } };
      const fetched: Fetched = {
        resolution,
        fetchedAt,
        ttl,
        soa: resolution.answer.authority.filter((r) => r.type === 'SOA'),
        sourceText: JSON.stringify(source),
        domainText: JSON.stringify(domain.ascii),
        aged: null,
      };
      if (ttl !== null && ttl > 0) this.cache.set(key, fetched, ttl * 1000);
      return fetched;
    });
  }

  /**
   * The response body, serialised: equal to JSON.stringify of the object with the members in this
   * order (domain, unicode_domain, type, status, authenticated, records, authority, resolver,
   * query_time_ms, cached, source). Only the names and the timing differ between hits of one second.
   */
  private text(domain: DomainName, type: QueryType, f: Fetched, elapsed: number, cached: boolean, started: number): string {
    let aged = f.aged;
    if (aged === null || aged.elapsed !== elapsed) {
      const { answer, resolver } = f.resolution;
      const middle = JSON.stringify({
        type,
        status: rcodeName(answer.rcode),
        authenticated: answer.authenticated,
        records: ageRecords(answer.answers, elapsed),
        authority: ageRecords(f.soa, elapsed),
        resolver,
      }).slice(1, -1);
      aged = { elapsed, middle };
      f.aged = aged;
    }
    const queryTimeMs = Math.round((performance.now() - started) * 100) / 100;
    const unicode = domain.unicode === domain.ascii ? f.domainText : JSON.stringify(domain.unicode);
    return `{"domain":${f.domainText},"unicode_domain":${unicode},${aged.middle},"query_time_ms":${queryTimeMs},"cached":${cached},"source":${f.sourceText}}`;
  }
}

function raceSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
      (e: unknown) => { signal.removeEventListener('abort', onAbort); reject(e); },
    );
  });
}

// The HTTP layer aborts with a LookupError of its own; a bare timeout (e.g. the CLI's) becomes a 504.
function abortReason(signal: AbortSignal): unknown {
  return signal.reason instanceof LookupError ? signal.reason : new LookupError('upstream_timeout', 'The DNS lookup did not finish in time');
}

export function createDnsService(ctx: AppContext): DnsService {
  const { config } = ctx;
  let agent: Agent | null = null;
  // Created on first DoH use: the CLI builds every lookup, and most runs never need this one.
  const dispatcher = (): Agent => (agent ??= createHttpAgent({ extraCa: config.extraCa, connectTimeoutMs: config.dnsTimeoutMs }));
  const transports = config.dohUrls.map((u) => createTransport(parseResolverUrl(u), dispatcher, config.dnsTimeoutMs));
  const resolver = new DnsResolver(transports, { timeoutMs: config.dnsTimeoutMs, metrics: ctx.metrics });
  return new DnsService({
    resolver,
    metrics: ctx.metrics,
    maxTtl: config.dnsMaxTtl,
    // Every resolver gets its full budget once; the request deadline still applies on top.
    flightTimeoutMs: Math.min(config.dnsTimeoutMs * transports.length + 250, config.requestTimeoutMs),
  });
}

/** Parsed names kept for repeat queries (validation and IDN mapping are most of a cache hit's work). */
const PARSED_NAMES = 10_000;

export function createDnsLookup(ctx: AppContext): Lookup {
  let service: DnsService | null = null;
  const parsed = new Map<string, DomainName>();
  // Only valid names are kept (invalid ones throw); the memo is emptied when full.
  const parse = (param: string): DomainName => {
    let d = parsed.get(param);
    if (d === undefined) {
      d = parseDomainName(param);
      if (parsed.size >= PARSED_NAMES) parsed.clear();
      parsed.set(param, d);
    }
    return d;
  };
  // Shared by both paths: the dispatcher tries runCached first, and calls run on a miss.
  const prepare = (req: LookupRequest): { domain: DomainName; type: QueryType; svc: DnsService } => {
    const domain = parse(req.param);
    const type = parseQueryType(req.query['type']);
    service ??= createDnsService(ctx);
    return { domain, type, svc: service };
  };
  return {
    name: 'dns',
    klass: 'network',
    run: async (req: LookupRequest) => {
      const { domain, type, svc } = prepare(req);
      return svc.lookup(domain, type, req.signal);
    },
    runCached: (req: LookupRequest) => {
      const { domain, type, svc } = prepare(req);
      return svc.cached(domain, type);
    },
  };
}
