// /v1/ping through the real daemon against real loopback HTTP and HTTPS servers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { CLI, getJson, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';
import { refusedPort, startHttpTarget, startSilentTcp, type TargetOptions, type TargetServer } from '../helpers/http-targets.js';

// `open` has a roomy timeout so a loaded machine cannot fail a fast target; `quick` serves the tests
// whose point is a timeout; `strict` keeps the default probe policy.
const ROOMY_MS = 3000;
const TIMEOUT_MS = 500;
const FIELDS = ['host', 'address', 'url', 'method', 'sent', 'received', 'packet_loss', 'reachable', 'min_ms', 'avg_ms', 'max_ms', 'connect_ms', 'timings', 'error', 'source'].sort();

let open: Daemon;
let quick: Daemon;
let strict: Daemon;
const servers: TargetServer[] = [];

const get = getJson;

const ping = (target: string, d: Daemon = open) => get(d, `/v1/ping/${encodeURIComponent(target)}`);

async function target(opts: TargetOptions): Promise<TargetServer> {
  const s = await startHttpTarget(opts);
  servers.push(s);
  return s;
}

beforeAll(async () => {
  const env = { NETINTEL_PING_TIMEOUT_MS: String(ROOMY_MS), NETINTEL_RATE_LIMIT_NETWORK: '0' };
  const allow = { NETINTEL_PROBE_ALLOW: '127.0.0.0/8,::1' };
  [open, quick, strict] = await Promise.all([
    startDaemon({ env: { ...env, ...allow } }),
    startDaemon({ env: { ...env, ...allow, NETINTEL_PING_TIMEOUT_MS: String(TIMEOUT_MS) } }),
    startDaemon({ env }),
  ]);
  // The first probe of a fresh daemon compiles the TLS and HTTP client paths; on a busy machine that alone can
  // approach the short timeout of `quick`, so each daemon probes once before the tests measure anything.
  const warm = await target({ behaviour: 'fast' });
  await Promise.all([ping(`127.0.0.1:${warm.port}`, open), ping(`127.0.0.1:${warm.port}`, quick)]);
});

afterAll(async () => {
  await Promise.all([open?.stop(), quick?.stop(), strict?.stop()]);
  await Promise.all(servers.map((s) => s.close()));
});

describe('GET /v1/ping: reachable targets', () => {
  it('answers the API.md shape for a fast plain-HTTP server on a given port (HTTPS tried first)', async () => {
    const srv = await target({ behaviour: 'fast' });
    const r = await ping(`127.0.0.1:${srv.port}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(r.body).sort()).toEqual(FIELDS);
    expect(r.body).toMatchObject({
      host: '127.0.0.1', address: '127.0.0.1', url: `http://127.0.0.1:${srv.port}/`, method: 'HEAD',
      sent: 4, received: 4, packet_loss: 0, reachable: true, error: null,
    });
    const { min_ms: min, avg_ms: avg, max_ms: max, connect_ms: connect } = r.body;
    expect(min <= avg && avg <= max).toBe(true);
    expect(connect).toBeGreaterThan(0);
    expect(r.body['timings']).toHaveLength(4);
    r.body['timings'].forEach((t: Record<string, unknown>, i: number) => {
      expect(Object.keys(t).sort()).toEqual(['error', 'rtt_ms', 'seq', 'status']);
      expect(t).toMatchObject({ seq: i + 1, status: 200, error: null });
      expect(typeof t['rtt_ms']).toBe('number');
    });
    // The TLS hello that found plain HTTP, then one kept-alive connection for all four round trips.
    expect(srv.connections()).toBe(2);
    expect(srv.requests.map((q) => q.method)).toEqual(['HEAD', 'HEAD', 'HEAD', 'HEAD']);
  });

  it('reaches an HTTPS server with a self-signed certificate (reachability, not trust)', async () => {
    const srv = await target({ behaviour: 'fast', tls: true });
    const r = await ping(`127.0.0.1:${srv.port}`);
    expect(r.body).toMatchObject({ url: `https://127.0.0.1:${srv.port}/`, received: 4, packet_loss: 0, reachable: true });
    expect(srv.connections()).toBe(1);
  });

  it('counts the one round trip that exceeds NETINTEL_PING_TIMEOUT_MS as 25% loss', async () => {
    const srv = await target({ behaviour: 'slow', slowRequests: [2], delayMs: TIMEOUT_MS * 4 });
    const r = await ping(`127.0.0.1:${srv.port}`, quick);
    expect(r.body, JSON.stringify(r.body)).toMatchObject({ sent: 4, received: 3, packet_loss: 25, reachable: true, error: null });
    expect(r.body['timings'][1]).toEqual({ seq: 2, rtt_ms: null, status: null, error: 'timeout' });
  });

  it('falls back to GET when HEAD is answered with 405', async () => {
    const srv = await target({ behaviour: 'head405', tls: true });
    const r = await ping(`127.0.0.1:${srv.port}`);
    expect(r.body).toMatchObject({ method: 'GET', received: 4, reachable: true });
    expect(r.body['timings'].map((t: { status: number }) => t.status)).toEqual([200, 200, 200, 200]);
    expect(srv.requests.map((q) => q.method)).toEqual(['HEAD', 'GET', 'GET', 'GET', 'GET']);
  });

  it('re-establishes the connection when the server closes it after each response', async () => {
    const srv = await target({ behaviour: 'close' });
    const r = await ping(`127.0.0.1:${srv.port}`);
    expect(r.body).toMatchObject({ received: 4, packet_loss: 0 });
    expect(srv.connections()).toBe(5);
  });

  it('pings IPv6 loopback, bracketed with a port', async (ctx) => {
    let srv: TargetServer;
    try {
      srv = await target({ behaviour: 'fast', host: '::1' });
    } catch {
      ctx.skip();
      return;
    }
    const r = await ping(`[::1]:${srv.port}`);
    expect(r.body).toMatchObject({ host: '::1', address: '::1', url: `http://[::1]:${srv.port}/`, received: 4 });
  });
});

describe('GET /v1/ping: unreachable targets are 200 with reachable false', () => {
  it('a server that accepts and never answers: every round trip times out, within the bound', async () => {
    const srv = await target({ behaviour: 'silent' });
    const t0 = Date.now();
    const r = await ping(`127.0.0.1:${srv.port}`, quick);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ received: 0, packet_loss: 100, reachable: false, min_ms: null, avg_ms: null, max_ms: null, error: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(5 * TIMEOUT_MS + 2000);
  });

  it('a port that never completes a TLS handshake: set-up timeout', async () => {
    const srv = await startSilentTcp();
    servers.push(srv);
    const r = await ping(`127.0.0.1:${srv.port}`, quick);
    expect(r.body).toMatchObject({ reachable: false, connect_ms: null, packet_loss: 100, error: 'timeout' });
  });

  it('a refused port', async () => {
    const r = await ping(`127.0.0.1:${await refusedPort()}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ address: '127.0.0.1', sent: 4, received: 0, packet_loss: 100, reachable: false, error: 'connection refused' });
  });

  it('a name that does not resolve', async () => {
    const r = await ping('no-such-host.invalid');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toMatchObject({ host: 'no-such-host.invalid', address: null, received: 0, packet_loss: 100, reachable: false, error: 'host not found' });
  });
});

describe('GET /v1/ping: probe policy and input', () => {
  it('denies loopback by default with 403 target_forbidden, and no packet reaches the target', async () => {
    const srv = await target({ behaviour: 'fast' });
    for (const host of [`127.0.0.1:${srv.port}`, `localhost:${srv.port}`, `[::ffff:127.0.0.1]:${srv.port}`]) {
      const r = await ping(host, strict);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'target_forbidden' });
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
    expect(srv.connections()).toBe(0);
  });

  it.each(['1.2.3', ' 127.0.0.1', 'http://example.com/', '[::1', 'example.com:70000', '%E0%A4%A', 'fe80::1%eth0'])('%j → 400 invalid_host', async (bad) => {
    const res = await fetch(`${open.url}/v1/ping/${bad.startsWith('%') ? bad : encodeURIComponent(bad)}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body['code']).toBe('invalid_host');
    expect(typeof body['error']).toBe('string');
  });
});

describe('netintel lookup ping', () => {
  it('prints the same JSON as the HTTP route', async () => {
    const srv = await target({ behaviour: 'fast' });
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'lookup', 'ping', `127.0.0.1:${srv.port}`], {
        env: { PATH: process.env['PATH'] ?? '', NETINTEL_DATA_DIR: tempDir(), NETINTEL_PROBE_ALLOW: '127.0.0.0/8', NETINTEL_PING_TIMEOUT_MS: String(ROOMY_MS), NETINTEL_IMPORT_DEFAULTS: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.on('exit', (code) => resolve({ code, stdout }));
    });
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ host: '127.0.0.1', reachable: true, received: 4, url: `http://127.0.0.1:${srv.port}/` });
  });
});
