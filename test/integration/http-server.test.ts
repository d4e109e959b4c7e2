// The HTTP layer in-process, with fake lookups: error mapping, deadlines, decoding and cache headers.
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type HyperExpress from 'hyper-express';
import { loadConfig } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { Datasets } from '../../src/datasets/registry.js';
import { LookupError } from '../../src/http/errors.js';
import { openGate } from '../../src/http/gate.js';
import { createHttpServer } from '../../src/http/server.js';
import { ENDPOINTS, type Lookup, type LookupName, type LookupRequest } from '../../src/lookups/types.js';
import { createLogger } from '../../src/platform/logger.js';
import { Metrics } from '../../src/platform/metrics.js';
import { openDatabase } from '../../src/platform/sqlite.js';
import { tempDir } from '../helpers/daemon.js';

const logLines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    for (const line of chunk.toString().split('\n')) if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
    cb();
  },
});

const seen: LookupRequest[] = [];
const behaviours: Record<LookupName, (req: LookupRequest) => Promise<{ body: Record<string, unknown>; maxAge: number | null }>> = {
  ip: async (req) => {
    seen.push(req);
    return { body: { ip: req.param }, maxAge: 3600 };
  },
  dns: async (req) => ({ body: { query: req.query }, maxAge: 42.7 }),
  whois: async () => {
    throw new Error('secret internal detail at /work/main/src/x.ts');
  },
  ssl: async (req) => new Promise((_resolve, reject) => req.signal.addEventListener('abort', () => reject(req.signal.reason))),
  ping: async () => ({ body: { ok: true }, maxAge: null }),
  mac: async () => {
    throw new LookupError('not_implemented', 'The mac lookup is not available in this build yet');
  },
  asn: async () => {
    throw new LookupError('upstream_timeout', 'timed out', { 'retry-after': '3' });
  },
};

// These fake lookups answer with invented bodies: the contract check does not apply to them.
(globalThis as { skipContractValidation?: boolean }).skipContractValidation = true;

let app: HyperExpress.Server;
let base: string;
let ctx: AppContext;

beforeAll(async () => {
  const dir = tempDir();
  const config = loadConfig({ NETINTEL_DATA_DIR: dir, NETINTEL_REQUEST_TIMEOUT_MS: '300' });
  const db = openDatabase(path.join(dir, 'netintel.db'));
  ctx = { config, log: createLogger('info', sink), metrics: new Metrics({ defaultMetrics: false }), db, datasets: new Datasets(db, config.staleAfter) };
  const lookups = Object.fromEntries(
    ENDPOINTS.map((e) => [e.name, { name: e.name, klass: e.klass, run: behaviours[e.name] } satisfies Lookup]),
  ) as Record<LookupName, Lookup>;
  app = createHttpServer({ ctx, lookups, health: { startedAt: Date.now(), draining: false, inflight: 0 }, gate: openGate, metricsText: null });
  await app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${app.port}`;
});

afterAll(() => {
  app.close();
  ctx.db.close();
});

describe('HTTP layer', () => {
  it('percent-decodes the parameter exactly once and keeps what follows the first slash', async () => {
    seen.length = 0;
    await fetch(`${base}/v1/ip/2001%3Adb8%3A%3A1`);
    await fetch(`${base}/v1/ip/%2525`);
    await fetch(`${base}/v1/ip/10.0.0.0/8`);
    await fetch(`${base}/v1/ip/`);
    expect(seen.map((r) => r.param)).toEqual(['2001:db8::1', '%25', '10.0.0.0/8', '']);
  });

  it('answers a malformed percent-escape with the lookup\'s 400 code', async () => {
    const res = await fetch(`${base}/v1/ip/%E0%A4%A`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('invalid_ip');
  });

  it('sets Cache-Control from the lookup: max-age or no-store', async () => {
    expect((await fetch(`${base}/v1/ip/1.1.1.1`)).headers.get('cache-control')).toBe('public, max-age=3600');
    expect((await fetch(`${base}/v1/dns/x.example`)).headers.get('cache-control')).toBe('public, max-age=42');
    expect((await fetch(`${base}/v1/ping/x.example`)).headers.get('cache-control')).toBe('no-store');
  });

  it('passes query parameters, first value of a repeated key', async () => {
    const body = (await (await fetch(`${base}/v1/dns/x.example?type=MX&type=A&raw=true`)).json()) as { query: Record<string, string> };
    expect(body.query).toEqual({ type: 'MX', raw: 'true' });
  });

  it('turns an unexpected exception into a generic 500 with the request id logged, never the detail', async () => {
    const res = await fetch(`${base}/v1/whois/example.com`, { headers: { 'x-request-id': 'req-500' } });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; code: string };
    expect(body.code).toBe('internal_error');
    expect(body.error).not.toContain('secret');
    expect(body.error).not.toContain('/work/');
    await expect.poll(() => logLines.find((l) => l['requestId'] === 'req-500' && l['msg'] === 'unhandled error')).toBeTruthy();
  });

  it('bounds every request by the deadline: 504 upstream_timeout, and the lookup sees the abort', async () => {
    const t0 = Date.now();
    const res = await fetch(`${base}/v1/ssl/example.com`);
    expect(res.status).toBe(504);
    expect(((await res.json()) as { code: string }).code).toBe('upstream_timeout');
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('passes a LookupError through with its status and headers', async () => {
    const mac = await fetch(`${base}/v1/mac/00:11:22:33:44:55`);
    expect(mac.status).toBe(501);
    expect(((await mac.json()) as { code: string }).code).toBe('not_implemented');
    const asn = await fetch(`${base}/v1/asn/AS1`);
    expect(asn.status).toBe(504);
    expect(asn.headers.get('retry-after')).toBe('3');
    expect(asn.headers.get('access-control-allow-origin')).toBe('*');
  });
});
