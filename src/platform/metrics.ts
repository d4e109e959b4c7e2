// One prom-client registry per thread; every metric the daemon exports is declared here, so names stay unique.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { RequestMetrics } from './request-metrics.js';

export class Metrics {
  readonly registry = new Registry();

  /** netintel_http_requests_total and netintel_http_request_duration_seconds (the hot path's own counters). */
  readonly http = new RequestMetrics(this.registry);

  readonly upstreamRequests = new Counter({
    name: 'netintel_upstream_requests_total',
    help: 'Calls to upstreams (resolvers, RDAP, WHOIS, TLS targets, ping targets), by outcome',
    labelNames: ['upstream', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly upstreamDuration = new Histogram({
    name: 'netintel_upstream_duration_seconds',
    help: 'Duration of upstream calls',
    labelNames: ['upstream'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  /** Hot-path handles of cacheRequests (see cacheCounter), handed to the counter when it collects. */
  private readonly cacheHandles: DeferredCount[] = [];

  readonly cacheRequests: Counter<'cache' | 'result'> = new Counter({
    name: 'netintel_cache_requests_total',
    help: 'Cache look-ups, by cache and result (hit, miss, stale)',
    labelNames: ['cache', 'result'] as const,
    registers: [this.registry],
    collect: () => {
      for (const h of this.cacheHandles) h.flushInto(this.cacheRequests);
    },
  });

  /**
   * A cacheRequests handle for one label set, for code that counts on every request: it counts in a
   * plain number, which prom-client gets when it collects (its labelled inc() hashes the labels per call).
   */
  cacheCounter(labels: { cache: string; result: string }): { inc(): void } {
    const h = new DeferredCount(labels);
    this.cacheHandles.push(h);
    return h;
  }

  readonly datasetRefresh = new Counter({
    name: 'netintel_dataset_refresh_total',
    help: 'Dataset refresh attempts, by dataset and result',
    labelNames: ['dataset', 'result'] as const,
    registers: [this.registry],
  });

  readonly datasetRefreshDuration = new Histogram({
    name: 'netintel_dataset_refresh_duration_seconds',
    help: 'Duration of dataset refreshes',
    labelNames: ['dataset'] as const,
    buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });

  readonly datasetRecords = new Gauge({
    name: 'netintel_dataset_records',
    help: 'Records in the active version of each dataset',
    labelNames: ['dataset'] as const,
    registers: [this.registry],
  });

  readonly datasetBuilt = new Gauge({
    name: 'netintel_dataset_built_timestamp_seconds',
    help: 'Build time of the active version of each dataset (Unix seconds)',
    labelNames: ['dataset'] as const,
    registers: [this.registry],
  });

  readonly datasetLastSuccess = new Gauge({
    name: 'netintel_dataset_last_success_timestamp_seconds',
    help: 'Time of the last successful load or refresh of each dataset (Unix seconds)',
    labelNames: ['dataset'] as const,
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'netintel_rate_limited_total',
    help: 'Requests refused with 429, by limit class',
    labelNames: ['class'] as const,
    registers: [this.registry],
  });

  /** Per-plan handles of requestsByPlan (see countPlan): plans are few, one handle each. */
  private readonly planHandles = new Map<string, DeferredCount>();

  readonly requestsByPlan: Counter<'plan'> = new Counter({
    name: 'netintel_requests_by_plan_total',
    help: 'Lookup requests by plan (free or a key plan)',
    labelNames: ['plan'] as const,
    registers: [this.registry],
    collect: () => {
      for (const h of this.planHandles.values()) h.flushInto(this.requestsByPlan);
    },
  });

  /** One lookup request admitted under `plan` (counted on every lookup, so deferred like cacheCounter). */
  countPlan(plan: string): void {
    let h = this.planHandles.get(plan);
    if (h === undefined) {
      h = new DeferredCount({ plan });
      this.planHandles.set(plan, h);
    }
    h.inc();
  }


  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics !== false) {
      collectDefaultMetrics({ register: this.registry, prefix: 'netintel_' });
      // These gauges end in _total, which Prometheus reserves for counters (promtool check metrics fails on them).
      for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
        this.registry.removeSingleMetric(`netintel_${name}`);
      }
    }
  }

  /** Times an upstream call and counts its outcome ("ok" or the error code). */
  async timeUpstream<T>(upstream: string, fn: () => Promise<T>, outcomeOf: (e: unknown) => string = errorOutcome): Promise<T> {
    const end = this.upstreamDuration.startTimer({ upstream });
    try {
      const v = await fn();
      this.upstreamRequests.inc({ upstream, outcome: 'ok' });
      return v;
    } catch (e) {
      this.upstreamRequests.inc({ upstream, outcome: outcomeOf(e) });
      throw e;
    } finally {
      end();
    }
  }
}

class DeferredCount {
  private n = 0;
  constructor(private readonly labels: Record<string, string>) {}
  inc(): void {
    this.n++;
  }
  flushInto(counter: Counter<string>): void {
    if (this.n === 0) return;
    counter.inc(this.labels, this.n);
    this.n = 0;
  }
}

function errorOutcome(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[a-z_]+$/.test(code) ? code : 'error';
}
