// HttpProber against real loopback servers: scheme probe, keep-alive, timeouts, 405 fallback, reconnects.
import { afterEach, describe, expect, it } from 'vitest';
import { HttpProber, type ProbeTarget } from '../../../../src/lookups/ping/http-prober.js';
import { PingFailure } from '../../../../src/lookups/ping/ping.js';
import { refusedPort, startHttpTarget, startSilentTcp, type TargetServer } from '../../../helpers/http-targets.js';

// Roomy where nothing should time out (a loaded machine must not fail them), short where a timeout is the point.
const ROOMY = 3000;
const SHORT = 500;
const servers: TargetServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function track(p: Promise<TargetServer>): Promise<TargetServer> {
  const s = await p;
  servers.push(s);
  return s;
}

const ip = (port: number | null, address = '127.0.0.1'): ProbeTarget => ({ host: address, kind: address.includes(':') ? 'ipv6' : 'ipv4', addresses: [address], port });
const never = new AbortController().signal;

describe('HttpProber', () => {
  it('falls back to plain HTTP on a given port that answers a TLS hello with HTTP, and keeps one connection', async () => {
    const srv = await track(startHttpTarget({ behaviour: 'fast' }));
    const prober = new HttpProber({ attemptTimeoutMs: ROOMY });
    const r = await prober.probe(ip(srv.port), ROOMY, never);
    expect(r.scheme).toBe('http');
    expect(r.port).toBe(srv.port);
    expect(r.setupError).toBeNull();
    expect(r.connectMs).toBeGreaterThan(0);
    expect(r.attempts.map((a) => [a.seq, a.status, a.error])).toEqual([[1, 200, null], [2, 200, null], [3, 200, null], [4, 200, null]]);
    for (const a of r.attempts) expect(a.rttMs).toBeGreaterThanOrEqual(0);
    // One connection for the failed TLS hello, one for all four round trips.
    expect(srv.connections()).toBe(2);
    expect(srv.requests.map((q) => q.method)).toEqual(['HEAD', 'HEAD', 'HEAD', 'HEAD']);
    expect(srv.requests[0]!.host).toBe(`127.0.0.1:${srv.port}`);
  });

  it('uses HTTPS with a self-signed certificate: SNI and Host carry the name, the address is the checked one', async () => {
    const srv = await track(startHttpTarget({ behaviour: 'fast', tls: true }));
    const prober = new HttpProber({ attemptTimeoutMs: ROOMY });
    const r = await prober.probe({ host: 'ping-target.example', kind: 'name', addresses: ['127.0.0.1'], port: srv.port }, ROOMY, never);
    expect(r.scheme).toBe('https');
    expect(r.attempts.every((a) => a.status === 200 && a.error === null)).toBe(true);
    expect(srv.connections()).toBe(1);
    expect(srv.requests).toHaveLength(4);
    expect(srv.requests[0]).toEqual({ method: 'HEAD', host: `ping-target.example:${srv.port}`, servername: 'ping-target.example' });
  });

  it('sends no SNI for an IP literal', async () => {
    const srv = await track(startHttpTarget({ behaviour: 'fast', tls: true }));
    const r = await new HttpProber({ attemptTimeoutMs: ROOMY }).probe(ip(srv.port), ROOMY, never);
    expect(r.scheme).toBe('https');
    expect(srv.requests[0]!.servername).toBeNull();
  });

  it('falls back from a refused default HTTPS port to the default HTTP port', async () => {
    const srv = await track(startHttpTarget({ behaviour: 'fast' }));
    const prober = new HttpProber({ attemptTimeoutMs: ROOMY, defaultPorts: { https: await refusedPort(), http: srv.port } });
    const r = await prober.probe(ip(null), ROOMY, never);
    expect(r.scheme).toBe('http');
    expect(r.port).toBe(srv.port);
    expect(r.attempts.filter((a) => a.status === 200)).toHaveLength(4);
    expect(srv.connections()).toBe(1);
  });

  it('reports a refused given port as refused, without a fallback and without round trips', async () => {
    const port = await refusedPort();
    const r = await new HttpProber({ attemptTimeoutMs: ROOMY }).probe(ip(port), ROOMY, never);
    expect(r.setupError).toBe('connection refused');
    expect(r.connectMs).toBeNull();
    expect(r.scheme).toBe('https');
    expect(r.attempts).toEqual([1, 2, 3, 4].map((seq) => ({ seq, rttMs: null, status: null, error: 'connection refused' })));
  });

  it('loses exactly the round trip that exceeds the timeout and reconnects for the next', async () => {
    const srv = await track(startHttpTarget({ behaviour: 'slow', slowRequests: [2], delayMs: SHORT * 4 }));
    const r = await new HttpProber({ attemptTimeoutMs: SHORT }).probe(ip(srv.port), SHORT, never);
    expect(r.attempts.map((a) => a.error)).toEqual([null, 'timeout', null, null]);
    expect(r.attempts[1]!.rttMs).toBeNull();
    // TLS hello, the first connection (broken by the timeout), the re-established one.
    expect(srv.connections()).toBe(3);
  });

  it('switches to GET for good when HEAD gets 405', async () => {
    const srv = await track(startHttpTarget({ behaviour: 'head405' }));
    const r = await new HttpProber({ attemptTimeoutMs: ROOMY }).probe(ip(srv.port), ROOMY, never);
    expect(r.method).toBe('GET');
    expect(r.attempts.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(srv.requests.map((q) => q.method)).toEqual(['HEAD', 'GET', 'GET', 'GET', 'GET']);
    expect(srv.connections()).toBe(2);
  });

  it('re-establishes the connection after each Connection: close', async () => {
    const srv = await track(startHttpTarget({ behaviour: 'close' }));
    const r = await new HttpProber({ attemptTimeoutMs: ROOMY }).probe(ip(srv.port), ROOMY, never);
    expect(r.attempts.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(srv.connections()).toBe(5);
  });

  it('loses every round trip to a server that accepts and never answers, within the bound', async () => {
    const srv = await track(startHttpTarget({ behaviour: 'silent' }));
    const t0 = performance.now();
    const r = await new HttpProber({ attemptTimeoutMs: SHORT }).probe(ip(srv.port), SHORT, never);
    const elapsed = performance.now() - t0;
    expect(r.setupError).toBeNull();
    expect(r.attempts.map((a) => a.error)).toEqual(['timeout', 'timeout', 'timeout', 'timeout']);
    // The contract's bound (4 round trips + set-up), with slack for a loaded machine.
    expect(elapsed).toBeLessThan(5 * SHORT + 1500);
  });

  it('times out the set-up against a port that never completes a TLS handshake', async () => {
    const srv = await track(startSilentTcp());
    const r = await new HttpProber({ attemptTimeoutMs: SHORT }).probe(ip(srv.port), SHORT, never);
    expect(r.setupError).toBe('timeout');
    expect(r.attempts.every((a) => a.error === 'timeout')).toBe(true);
  });

  it('works over IPv6 loopback', async (ctx) => {
    let srv: TargetServer;
    try {
      srv = await track(startHttpTarget({ behaviour: 'fast', host: '::1' }));
    } catch {
      ctx.skip();
      return;
    }
    const r = await new HttpProber({ attemptTimeoutMs: ROOMY }).probe(ip(srv.port, '::1'), ROOMY, never);
    expect(r.attempts.every((a) => a.status === 200)).toBe(true);
    expect(srv.requests[0]!.host).toBe(`[::1]:${srv.port}`);
  });

  it('stops at once when the caller aborts, and closes its sockets', async () => {
    const srv = await track(startHttpTarget({ behaviour: 'silent' }));
    const ac = new AbortController();
    const reason = new Error('deadline');
    setTimeout(() => ac.abort(reason), 50);
    await expect(new HttpProber({ attemptTimeoutMs: 10_000 }).probe(ip(srv.port), 10_000, ac.signal)).rejects.toBe(reason);
  });

  it('refuses to dial anything but IP addresses', async () => {
    const prober = new HttpProber({ attemptTimeoutMs: ROOMY });
    await expect(prober.probe({ host: 'x.example', kind: 'name', addresses: ['x.example'], port: 80 }, ROOMY, never)).rejects.toThrow(/checked IP/);
    await expect(prober.probe({ host: 'x.example', kind: 'name', addresses: [], port: 80 }, ROOMY, never)).rejects.toThrow(/checked IP/);
  });

  it('moves on to the next checked address when one refuses', async () => {
    const srv = await track(startHttpTarget({ behaviour: 'fast', tls: true }));
    const r = await new HttpProber({ attemptTimeoutMs: ROOMY }).probe({ host: 'multi.example', kind: 'name', addresses: ['127.0.0.2', '127.0.0.1'], port: srv.port }, ROOMY, never);
    expect(r.address).toBe('127.0.0.1');
    expect(r.scheme).toBe('https');
    expect(r.attempts.every((a) => a.status === 200)).toBe(true);
  });

  it('reports the last address tried when every one refuses', async () => {
    const port = await refusedPort();
    const r = await new HttpProber({ attemptTimeoutMs: ROOMY }).probe({ host: 'multi.example', kind: 'name', addresses: ['127.0.0.2', '127.0.0.1'], port }, ROOMY, never);
    expect(r).toMatchObject({ address: '127.0.0.1', setupError: 'connection refused', connectMs: null });
  });

  it('reports each round trip to the observer, lost ones as PingFailure', async () => {
    const srv = await track(startHttpTarget({ behaviour: 'slow', slowRequests: [1], delayMs: SHORT * 4 }));
    const seen: string[] = [];
    const prober = new HttpProber({
      attemptTimeoutMs: SHORT,
      observeAttempt: async (fn) => {
        try {
          const v = await fn();
          seen.push('ok');
          return v;
        } catch (e) {
          seen.push(e instanceof PingFailure ? e.code : 'other');
          throw e;
        }
      },
    });
    await prober.probe(ip(srv.port), SHORT, never);
    expect(seen).toEqual(['timeout', 'ok', 'ok', 'ok']);
  });
});
