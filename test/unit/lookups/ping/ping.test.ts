import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  PingFailure, classifyError, hostHeader, isBodiless, isPlainHttpReply, keepsAlive, lostAttempts, pingBody, pingUrl, roundMs, summarize,
  type Attempt, type ProbeOutcome,
} from '../../../../src/lookups/ping/ping.js';

const ok = (seq: number, rttMs: number): Attempt => ({ seq, rttMs, status: 200, error: null });
const lost = (seq: number): Attempt => ({ seq, rttMs: null, status: null, error: 'timeout' });

describe('summarize', () => {
  it('computes loss and statistics over the replies only', () => {
    expect(summarize([ok(1, 21.4), ok(2, 19.8), ok(3, 20.0), ok(4, 20.4)])).toEqual({ sent: 4, received: 4, packetLoss: 0, minMs: 19.8, avgMs: 20.4, maxMs: 21.4 });
    expect(summarize([ok(1, 10), lost(2), ok(3, 20), ok(4, 30)])).toEqual({ sent: 4, received: 3, packetLoss: 25, minMs: 10, avgMs: 20, maxMs: 30 });
    expect(summarize(lostAttempts(4, 'timeout'))).toEqual({ sent: 4, received: 0, packetLoss: 100, minMs: null, avgMs: null, maxMs: null });
  });

  it('rounds after computing, to 0.01 ms', () => {
    expect(summarize([ok(1, 0.123), ok(2, 0.124), ok(3, 0.126)])).toMatchObject({ minMs: 0.12, avgMs: 0.12, maxMs: 0.13 });
    expect(roundMs(1.005 + 1e-9)).toBe(1.01);
  });

  it('keeps min ≤ avg ≤ max and loss = lost/sent for any attempts', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.double({ min: 0, max: 60_000, noNaN: true }), { nil: null }), { minLength: 1, maxLength: 8 }), (rtts) => {
        const s = summarize(rtts.map((r, i) => (r === null ? lost(i + 1) : ok(i + 1, r))));
        const received = rtts.filter((r) => r !== null).length;
        expect(s.received).toBe(received);
        expect(s.packetLoss).toBeCloseTo(((rtts.length - received) / rtts.length) * 100, 1);
        if (received === 0) expect([s.minMs, s.avgMs, s.maxMs]).toEqual([null, null, null]);
        else expect(s.minMs! <= s.avgMs! && s.avgMs! <= s.maxMs!).toBe(true);
      }),
    );
  });
});

describe('urls and Host headers', () => {
  it('leaves out the default port of the scheme and brackets IPv6', () => {
    expect(pingUrl('https', { host: 'example.com', kind: 'name' }, 443)).toBe('https://example.com/');
    expect(pingUrl('http', { host: 'example.com', kind: 'name' }, 443)).toBe('http://example.com:443/');
    expect(pingUrl('http', { host: '2001:db8::1', kind: 'ipv6' }, 8080)).toBe('http://[2001:db8::1]:8080/');
    expect(hostHeader('http', { host: 'example.com', kind: 'name' }, 80)).toBe('example.com');
    expect(hostHeader('https', { host: '::1', kind: 'ipv6' }, 8443)).toBe('[::1]:8443');
  });
});

describe('classifyError', () => {
  it.each([
    [{ code: 'ECONNREFUSED' }, 'connection refused'],
    [{ code: 'ETIMEDOUT' }, 'timeout'],
    [new PingFailure('timeout'), 'timeout'],
    [{ code: 'EHOSTUNREACH' }, 'host unreachable'],
    [{ code: 'ECONNRESET' }, 'connection reset'],
    [{ code: 'ENOTFOUND' }, 'host not found'],
    [{ code: 'HPE_INVALID_CONSTANT' }, 'protocol error'],
    [{ code: 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE' }, 'tls handshake failed'],
    [new Error('no code'), 'connection failed'],
    [null, 'connection failed'],
  ])('%j → %s', (e, expected) => {
    expect(classifyError(e)).toBe(expected);
  });

  it('gives PingFailure a metrics-safe code', () => {
    expect(new PingFailure('connection refused').code).toBe('connection_refused');
  });
});

describe('isPlainHttpReply', () => {
  it('recognises OpenSSL reading an HTTP answer as a TLS record', () => {
    expect(isPlainHttpReply({ code: 'ERR_SSL_WRONG_VERSION_NUMBER' })).toBe(true);
    expect(isPlainHttpReply({ code: 'ERR_SSL_PACKET_LENGTH_TOO_LONG' })).toBe(true);
    expect(isPlainHttpReply({ code: 'EPROTO', message: 'ssl3_get_record:wrong version number' })).toBe(true);
    expect(isPlainHttpReply({ code: 'ECONNRESET' })).toBe(false);
    expect(isPlainHttpReply({ code: 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE' })).toBe(false);
    expect(isPlainHttpReply(undefined)).toBe(false);
  });
});

describe('keep-alive rules', () => {
  it('knows which responses cannot have a body', () => {
    expect(isBodiless('HEAD', 200)).toBe(true);
    expect(isBodiless('GET', 204)).toBe(true);
    expect(isBodiless('GET', 304)).toBe(true);
    expect(isBodiless('GET', 200)).toBe(false);
  });

  it('follows the Connection header per HTTP version', () => {
    expect(keepsAlive('1.1', undefined)).toBe(true);
    expect(keepsAlive('1.1', 'Keep-Alive')).toBe(true);
    expect(keepsAlive('1.1', 'upgrade, Close')).toBe(false);
    expect(keepsAlive('1.0', undefined)).toBe(false);
    expect(keepsAlive('1.0', 'keep-alive')).toBe(true);
  });
});

describe('pingBody', () => {
  const target = { host: 'example.com', kind: 'name' as const };
  const base: ProbeOutcome = { address: '93.184.215.14', scheme: 'https', port: 443, method: 'HEAD', connectMs: 41.234, attempts: [ok(1, 21.4), ok(2, 19.8), ok(3, 20.0), ok(4, 20.4)], setupError: null };

  it('has exactly the API.md fields, plus source', () => {
    expect(pingBody(target, base, { probe: 'http' })).toEqual({
      host: 'example.com', address: '93.184.215.14', url: 'https://example.com/', method: 'HEAD',
      sent: 4, received: 4, packet_loss: 0, reachable: true,
      min_ms: 19.8, avg_ms: 20.4, max_ms: 21.4, connect_ms: 41.23,
      timings: [
        { seq: 1, rtt_ms: 21.4, status: 200, error: null },
        { seq: 2, rtt_ms: 19.8, status: 200, error: null },
        { seq: 3, rtt_ms: 20, status: 200, error: null },
        { seq: 4, rtt_ms: 20.4, status: 200, error: null },
      ],
      error: null,
      source: { probe: 'http' },
    });
  });

  it('is reachable with a partial loss, and names the error only when nothing came back', () => {
    const partial = pingBody(target, { ...base, attempts: [ok(1, 5), lost(2), ok(3, 5), ok(4, 5)] }, {});
    expect(partial).toMatchObject({ received: 3, packet_loss: 25, reachable: true, error: null });
    const none = pingBody(target, { ...base, attempts: lostAttempts(4, 'timeout') }, {});
    expect(none).toMatchObject({ received: 0, packet_loss: 100, reachable: false, min_ms: null, avg_ms: null, max_ms: null, error: 'timeout' });
  });

  it('shapes a refused target and an unresolved name', () => {
    const refused = pingBody(target, { ...base, scheme: 'http', port: 80, connectMs: null, attempts: lostAttempts(4, 'connection refused'), setupError: 'connection refused' }, {});
    expect(refused).toMatchObject({ url: 'http://example.com/', reachable: false, packet_loss: 100, connect_ms: null, error: 'connection refused' });
    const unknown = pingBody(target, { address: null, scheme: null, port: null, method: 'HEAD', connectMs: null, attempts: lostAttempts(4, 'host not found'), setupError: 'host not found' }, {});
    expect(unknown).toMatchObject({ address: null, url: null, sent: 4, received: 0, packet_loss: 100, reachable: false, error: 'host not found' });
  });
});
