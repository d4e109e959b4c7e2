import { describe, expect, it } from 'vitest';
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS, RequestMetrics } from '../../../src/platform/request-metrics.js';

const SAMPLES: readonly [string, number, number][] = [
  ['/', 200, 0.00005],
  ['/', 200, 0.0001], // exactly on a bound: counted in that bucket (le is inclusive)
  ['/', 503, 0.3],
  ['/v1/ip/{ip}', 200, 0.0007],
  ['/v1/ip/{ip}', 400, 0.002],
  ['/v1/dns/{domain}', 504, 12], // above the last bound: only +Inf
];

/** prom-client's own Counter and Histogram fed the same observations: the reference text. */
function reference(): Registry {
  const registry = new Registry();
  const c = new Counter({ name: 'netintel_http_requests_total', help: 'HTTP requests answered, by route template and status code', labelNames: ['route', 'status'], registers: [registry] });
  const h = new Histogram({ name: 'netintel_http_request_duration_seconds', help: 'Time from request received to response sent, by route template', labelNames: ['route'], buckets: [...DURATION_BUCKETS], registers: [registry] });
  for (const [route, status, s] of SAMPLES) {
    c.inc({ route, status: String(status) });
    h.observe({ route }, s);
  }
  return registry;
}

function ours(): Registry {
  const registry = new Registry();
  const m = new RequestMetrics(registry);
  for (const [route, status, s] of SAMPLES) m.record(route, status, s);
  return registry;
}

/** Series lines in a stable order (prom-client orders series by first use; ours by route). */
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '').sort();

describe('RequestMetrics', () => {
  it('exports exactly what prom-client Counter and Histogram would for the same requests', async () => {
    expect(lines(await ours().metrics())).toEqual(lines(await reference().metrics()));
  });

  it('aggregates across worker registries like prom-client metrics do', async () => {
    const a = await ours().getMetricsAsJSON();
    const b = await ours().getMetricsAsJSON();
    const merged = AggregatorRegistry.aggregate([a, b] as never);
    const text = await merged.metrics();
    expect(text).toContain('netintel_http_requests_total{route="/",status="200"} 4');
    expect(text).toContain('netintel_http_request_duration_seconds_bucket{le="+Inf",route="/v1/dns/{domain}"} 2');
    expect(text).toContain('netintel_http_request_duration_seconds_count{route="/"} 6');
  });

  it('counts a status outside 100–599 (a bug elsewhere) as 500 rather than losing the request', async () => {
    const registry = new Registry();
    const m = new RequestMetrics(registry);
    m.record('/', 42, 0.001);
    m.record('/', 600, 0.001);
    m.record('/', 599, 0.001);
    const text = await registry.metrics();
    expect(text).toMatch(/netintel_http_requests_total\{route="\/",status="500"\} 2/);
    expect(text).toMatch(/netintel_http_requests_total\{route="\/",status="599"\} 1/);
    expect(text).not.toMatch(/status="(42|600)"/);
  });

  it('starts empty and resets with the registry', async () => {
    const registry = new Registry();
    const m = new RequestMetrics(registry);
    expect(await registry.metrics()).not.toMatch(/route=/);
    m.record('/', 200, 0.001);
    expect(await registry.metrics()).toMatch(/netintel_http_requests_total\{route="\/",status="200"\} 1/);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toMatch(/route=/);
  });
});
