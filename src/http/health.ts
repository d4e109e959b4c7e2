// GET / (API.md "GET /"): name, version, status, docs, endpoints, datasets, uptime.
import type { AppContext } from '../context.js';
import { ENDPOINTS } from '../lookups/types.js';

export interface HealthState {
  readonly startedAt: number;
  draining: boolean;
  /** Requests being answered now; shutdown waits for it to reach 0. */
  inflight: number;
}

const ENDPOINT_LIST = ENDPOINTS.map((e) => e.health);

let cached: { docs: string; at: number; draining: boolean; bytes: Buffer } | null = null;

/**
 * The health body as UTF-8, rebuilt at most once a second: health is polled hard by load balancers and
 * its dataset summary reads the store. Bytes rather than text, so the ~2 KB answer is not re-encoded on
 * every request.
 */
export function healthBytes(ctx: AppContext, state: HealthState, docs: string, now = Date.now()): Buffer {
  if (cached === null || cached.docs !== docs || cached.draining !== state.draining || now - cached.at >= 1000) {
    cached = { docs, at: now, draining: state.draining, bytes: Buffer.from(JSON.stringify(healthBody(ctx, state, docs))) };
  }
  return cached.bytes;
}

export function healthBody(ctx: AppContext, state: HealthState, docs: string): Record<string, unknown> {
  const datasets = ctx.datasets.status();
  const healthy = Object.values(datasets).every((d) => d.loaded && !d.stale);
  return {
    name: 'netintel',
    version: 'v1',
    status: state.draining ? 'draining' : healthy ? 'operational' : 'degraded',
    docs,
    endpoints: ENDPOINT_LIST,
    datasets,
    uptime_seconds: Math.floor((Date.now() - state.startedAt) / 1000),
  };
}
