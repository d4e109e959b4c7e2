// The ping Lookup as the HTTP layer and the CLI call it: parsing, probe policy, resolution, result body.
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config.js';
import type { AppContext } from '../../../../src/context.js';
import { LookupError } from '../../../../src/http/errors.js';
import { createPingLookup, type PingDeps } from '../../../../src/lookups/ping/index.js';
import { Metrics } from '../../../../src/platform/metrics.js';
import type { Resolve } from '../../../../src/platform/probe-policy.js';
import { refusedPort, startHttpTarget, type TargetServer } from '../../../helpers/http-targets.js';

const servers: TargetServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function target(opts: Parameters<typeof startHttpTarget>[0]): Promise<TargetServer> {
  const s = await startHttpTarget(opts);
  servers.push(s);
  return s;
}

function lookup(env: Record<string, string> = {}, deps: PingDeps = {}): { run: (param: string) => Promise<Record<string, unknown>>; metrics: Metrics } {
  const metrics = new Metrics({ defaultMetrics: false });
  // Roomy by default so a loaded machine cannot fail a fast target; tests about timeouts set a short one.
  const config = loadConfig({ NETINTEL_PING_TIMEOUT_MS: '3000', ...env });
  const ctx = { config, metrics } as unknown as AppContext;
  const l = createPingLookup(ctx, deps);
  return {
    metrics,
    run: async (param) => {
      const r = await l.run({ param, query: {}, signal: new AbortController().signal });
      expect(r.maxAge).toBeNull();
      return r.body;
    },
  };
}

const ALLOW_LOOPBACK = { NETINTEL_PROBE_ALLOW: '127.0.0.0/8,::1' };

async function rejection(p: Promise<unknown>): Promise<LookupError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof LookupError) return e;
    throw e;
  }
  throw new Error('expected a LookupError');
}

describe('ping lookup: probe policy', () => {
  it('denies loopback by default: 403 and the target sees no connection', async () => {
    const srv = await target({ behaviour: 'fast' });
    const e = await rejection(lookup().run(`127.0.0.1:${srv.port}`));
    expect([e.status, e.code]).toEqual([403, 'target_forbidden']);
    expect(e.message).toContain('127.0.0.1');
    expect(srv.connections()).toBe(0);
  });

  it('denies every spelling of a loopback address', async () => {
    for (const host of ['[::1]:1', '::1', '[::ffff:127.0.0.1]:1', '127.255.0.9:1']) {
      expect((await rejection(lookup().run(host))).code).toBe('target_forbidden');
    }
  });

  it('allows loopback through NETINTEL_PROBE_ALLOW (ALLOW wins over DENY)', async () => {
    const srv = await target({ behaviour: 'fast' });
    const body = await lookup(ALLOW_LOOPBACK).run(`127.0.0.1:${srv.port}`);
    expect(body).toMatchObject({ host: '127.0.0.1', address: '127.0.0.1', url: `http://127.0.0.1:${srv.port}/`, reachable: true, received: 4 });
  });

  it('refuses a name that resolves to a denied address before any connection', async () => {
    const srv = await target({ behaviour: 'fast' });
    const asked: string[] = [];
    const resolve: Resolve = async (h) => {
      asked.push(h);
      return ['10.1.2.3', '127.0.0.1'];
    };
    const e = await rejection(lookup({}, { resolve }).run(`rebind.example:${srv.port}`));
    expect(e.code).toBe('target_forbidden');
    expect(asked).toEqual(['rebind.example']);
    expect(srv.connections()).toBe(0);
  });

  it('honours NETINTEL_PROBE_DENY for ranges that are otherwise allowed', async () => {
    const e = await rejection(lookup({ NETINTEL_PROBE_DENY: '10.0.0.0/8' }).run('10.9.9.9:80'));
    expect(e.code).toBe('target_forbidden');
  });

  it('connects to the checked address with the name in the Host header, resolving once', async () => {
    const srv = await target({ behaviour: 'fast', tls: true });
    let calls = 0;
    const resolve: Resolve = async () => {
      calls++;
      // A second answer would point elsewhere: it must never be asked for.
      return calls === 1 ? ['127.0.0.1'] : ['10.66.66.66'];
    };
    const body = await lookup(ALLOW_LOOPBACK, { resolve }).run(`Ping-Target.example:${srv.port}`);
    expect(calls).toBe(1);
    expect(body).toMatchObject({ host: 'ping-target.example', address: '127.0.0.1', url: `https://ping-target.example:${srv.port}/`, received: 4 });
    expect(srv.requests.every((r) => r.host === `ping-target.example:${srv.port}` && r.servername === 'ping-target.example')).toBe(true);
  });
});

describe('ping lookup: results', () => {
  it('answers a name that does not resolve with 200-shaped "host not found"', async () => {
    const resolve: Resolve = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const body = await lookup({}, { resolve }).run('nothing-here.example');
    expect(body).toMatchObject({
      host: 'nothing-here.example', address: null, url: null, method: 'HEAD', sent: 4, received: 0, packet_loss: 100,
      reachable: false, min_ms: null, avg_ms: null, max_ms: null, connect_ms: null, error: 'host not found',
    });
    expect(body['timings']).toEqual([1, 2, 3, 4].map((seq) => ({ seq, rtt_ms: null, status: null, error: 'host not found' })));
  });

  it('answers .invalid names negatively without asking any resolver (RFC 6761)', async () => {
    let asked = false;
    const body = await lookup({}, { resolve: async () => ((asked = true), ['192.0.2.1']) }).run('no-such-host.invalid');
    expect(asked).toBe(false);
    expect(body).toMatchObject({ received: 0, packet_loss: 100, reachable: false, error: 'host not found' });
  });

  it('gives up on a resolver that hangs within the set-up budget', async () => {
    const body = await lookup({ NETINTEL_PING_TIMEOUT_MS: '200' }, { resolve: () => new Promise<string[]>(() => undefined) }).run('slow-dns.example');
    expect(body).toMatchObject({ address: null, reachable: false, error: 'timeout' });
  });

  it('reports a refused target as unreachable with 100% loss', async () => {
    const port = await refusedPort();
    const body = await lookup(ALLOW_LOOPBACK).run(`127.0.0.1:${port}`);
    expect(body).toMatchObject({ address: '127.0.0.1', sent: 4, received: 0, packet_loss: 100, reachable: false, connect_ms: null, error: 'connection refused' });
  });

  it('tries HTTPS on the default port first, then plain HTTP on the default port', async () => {
    const srv = await target({ behaviour: 'fast' });
    const body = await lookup(ALLOW_LOOPBACK, { defaultPorts: { https: await refusedPort(), http: srv.port } }).run('127.0.0.1');
    expect(body).toMatchObject({ url: `http://127.0.0.1:${srv.port}/`, received: 4, reachable: true });
  });

  it('counts one lost round trip of four as 25% loss', async () => {
    const srv = await target({ behaviour: 'slow', slowRequests: [3], delayMs: 2000 });
    const body = await lookup({ ...ALLOW_LOOPBACK, NETINTEL_PING_TIMEOUT_MS: '500' }).run(`127.0.0.1:${srv.port}`);
    expect(body).toMatchObject({ sent: 4, received: 3, packet_loss: 25, reachable: true, error: null });
    expect((body['timings'] as { error: unknown }[]).map((t) => t.error)).toEqual([null, null, 'timeout', null]);
  });

  it('records every round trip in the upstream metrics', async () => {
    const srv = await target({ behaviour: 'fast' });
    const l = lookup(ALLOW_LOOPBACK);
    await l.run(`127.0.0.1:${srv.port}`);
    const text = await l.metrics.registry.metrics();
    expect(text).toMatch(/netintel_upstream_requests_total\{upstream="ping",outcome="ok"\} 4/);
  });

  it('rejects malformed hosts with 400 invalid_host before any work', async () => {
    for (const bad of ['', ' 127.0.0.1', 'http://example.com', '1.2.3', '[::1', 'example.com:0']) {
      const e = await rejection(lookup().run(bad));
      expect([e.status, e.code]).toEqual([400, 'invalid_host']);
    }
  });

  it('refuses more probes than NETINTEL_PROBE_CONCURRENCY allows in flight and queued', async () => {
    const srv = await target({ behaviour: 'silent' });
    const l = lookup({ ...ALLOW_LOOPBACK, NETINTEL_PROBE_CONCURRENCY: '1', NETINTEL_PING_TIMEOUT_MS: '100' });
    const first = l.run(`127.0.0.1:${srv.port}`);
    const second = l.run(`127.0.0.1:${srv.port}`);
    const e = await rejection(l.run(`127.0.0.1:${srv.port}`));
    expect([e.status, e.code]).toEqual([503, 'overloaded']);
    await Promise.all([first, second]);
  });
});
