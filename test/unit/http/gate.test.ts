// The gate on its own: keys, free tier, headers, 401/429/503 and the usage flush, with a fake clock.
import type HyperExpress from 'hyper-express';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import type { AppContext } from '../../../src/context.js';
import { createGate, createGateShare } from '../../../src/http/gate.js';
import { KeyRepo } from '../../../src/auth/key-repo.js';
import { utcDay } from '../../../src/auth/keys.js';
import { Metrics } from '../../../src/platform/metrics.js';
import { openDatabase } from '../../../src/platform/sqlite.js';

function setup(env: Record<string, string> = {}, before: (repo: KeyRepo) => void = () => undefined) {
  const config = loadConfig({ NETINTEL_DATA_DIR: '/tmp/unused', ...env });
  const db = openDatabase(':memory:');
  before(new KeyRepo(db));
  const metrics = new Metrics({ defaultMetrics: false });
  const ctx = { config, db, metrics, log: pino({ level: 'silent' }), datasets: null } as unknown as AppContext;
  let t = Date.parse('2026-11-22T12:00:00Z');
  const clock = { advance: (ms: number) => (t += ms) };
  const gate = createGate(ctx, createGateShare(config), { now: () => t, timers: false });
  const repo = new KeyRepo(db);
  return { config, db, metrics, ctx, gate, repo, clock };
}

const req = (ip: string, headers: Record<string, string> = {}) => ({ ip, headers }) as unknown as HyperExpress.Request;

async function counter(metrics: Metrics, name: string): Promise<Record<string, number>> {
  const m = (await metrics.registry.getSingleMetric(name)!.get()) as { values: { labels: Record<string, string>; value: number }[] };
  return Object.fromEntries(m.values.map((v) => [Object.values(v.labels).join(','), v.value]));
}

describe('free tier', () => {
  it('allows exactly the per-minute allowance per class, with RateLimit headers and Retry-After', async () => {
    const { gate, metrics, clock } = setup({ NETINTEL_RATE_LIMIT_LOCAL: '5', NETINTEL_RATE_LIMIT_NETWORK: '2' });
    for (let i = 1; i <= 5; i++) {
      const r = gate.admit('local', req('192.0.2.1'));
      expect(r.error).toBeNull();
      expect(r.headers).toMatchObject({ 'ratelimit-limit': '5', 'ratelimit-remaining': String(5 - i) });
      expect(Number(r.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    }
    const refused = gate.admit('local', req('192.0.2.1'));
    expect(refused.error?.code).toBe('rate_limited');
    expect(refused.error?.status).toBe(429);
    expect(refused.error?.headers['retry-after']).toBe('12');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    // The other class and another client are unaffected.
    expect(gate.admit('network', req('192.0.2.1')).headers['ratelimit-limit']).toBe('2');
    expect(gate.admit('local', req('192.0.2.2')).error).toBeNull();
    clock.advance(12_000);
    expect(gate.admit('local', req('192.0.2.1')).error).toBeNull();
    expect(gate.admit('local', req('192.0.2.1')).error?.code).toBe('rate_limited');
    clock.advance(60_000);
    expect(gate.admit('local', req('192.0.2.1')).headers['ratelimit-remaining']).toBe('4');
    expect(await counter(metrics, 'netintel_rate_limited_total')).toEqual({ local: 2 });
    expect((await counter(metrics, 'netintel_requests_by_plan_total'))['free']).toBeGreaterThan(0);
  });

  it('limits IPv6 per /64', () => {
    const { gate } = setup({ NETINTEL_RATE_LIMIT_LOCAL: '2' });
    expect(gate.admit('local', req('2001:0db8:0001:0002:0000:0000:0000:0001')).error).toBeNull();
    expect(gate.admit('local', req('2001:0db8:0001:0002:ffff:0000:0000:0009')).error).toBeNull();
    expect(gate.admit('local', req('2001:0db8:0001:0002:abcd:0000:0000:0001')).error?.code).toBe('rate_limited');
    expect(gate.admit('local', req('2001:0db8:0001:0003:0000:0000:0000:0001')).error).toBeNull();
  });

  it('believes X-Forwarded-For only from trusted proxies', () => {
    const { gate } = setup({ NETINTEL_RATE_LIMIT_LOCAL: '1', NETINTEL_TRUSTED_PROXIES: '10.0.0.0/8' });
    expect(gate.admit('local', req('10.0.0.1', { 'x-forwarded-for': '198.51.100.1' })).error).toBeNull();
    expect(gate.admit('local', req('10.0.0.2', { 'x-forwarded-for': '198.51.100.2' })).error).toBeNull();
    expect(gate.admit('local', req('10.0.0.3', { 'x-forwarded-for': '198.51.100.1' })).error?.code).toBe('rate_limited');
    // An untrusted peer cannot escape its own limit by sending the header.
    expect(gate.admit('local', req('203.0.113.1', { 'x-forwarded-for': '198.51.100.50' })).error).toBeNull();
    expect(gate.admit('local', req('203.0.113.1', { 'x-forwarded-for': '198.51.100.51' })).error?.code).toBe('rate_limited');
  });

  it('0 turns a class off: no headers, no refusals', () => {
    const { gate } = setup({ NETINTEL_RATE_LIMIT_LOCAL: '0' });
    for (let i = 0; i < 2000; i++) expect(gate.admit('local', req('192.0.2.1'))).toEqual({ headers: {}, error: null });
  });
});

describe('API keys', () => {
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  it('gives a key its daily allowance, reset at 00:00 UTC, instead of the free tier', async () => {
    let dev = '';
    let biz = '';
    const { gate, metrics, clock } = setup({ NETINTEL_PLAN_DEVELOPER_DAILY: '3', NETINTEL_RATE_LIMIT_LOCAL: '1' }, (repo) => {
      dev = repo.create('dev', 'developer').key;
      biz = repo.create('biz', 'business').key;
    });
    for (let i = 1; i <= 3; i++) {
      const r = gate.admit('local', req('192.0.2.1', bearer(dev)));
      expect(r.error).toBeNull();
      expect(r.headers).toEqual({ 'ratelimit-limit': '3', 'ratelimit-remaining': String(3 - i), 'ratelimit-reset': String(12 * 3600) });
    }
    const refused = gate.admit('local', req('192.0.2.1', bearer(dev)));
    expect(refused.error?.code).toBe('rate_limited');
    expect(refused.error?.headers['retry-after']).toBe(String(12 * 3600));
    expect(refused.error?.message).not.toContain(dev);
    // Unlimited plan: admitted, no allowance to describe.
    for (let i = 0; i < 20; i++) expect(gate.admit('network', req('192.0.2.1', bearer(biz)))).toEqual({ headers: {}, error: null });
    // The free tier of the same address is untouched by key requests.
    expect(gate.admit('local', req('192.0.2.1')).error).toBeNull();
    clock.advance(12 * 3600 * 1000);
    expect(gate.admit('local', req('192.0.2.1', bearer(dev))).headers['ratelimit-remaining']).toBe('2');
    expect(await counter(metrics, 'netintel_requests_by_plan_total')).toEqual({ developer: 4, business: 20, free: 1 });
    expect(await counter(metrics, 'netintel_rate_limited_total')).toEqual({ daily: 1 });
    const text = await metrics.registry.metrics();
    expect(text).not.toContain(dev);
  });

  it('answers 401 invalid_api_key to malformed, unknown and revoked keys, and to no key when keys are required', () => {
    let revokedKey = '';
    const { gate } = setup({ NETINTEL_AUTH_REQUIRED: 'true' }, (repo) => {
      revokedKey = repo.create('old', 'pro').key;
      repo.revoke('old');
    });
    const unknown = 'ni_' + 'A'.repeat(32);
    for (const headers of [{}, { authorization: 'Basic dXNlcjpwYXNz' }, { authorization: 'Bearer' }, { authorization: 'Bearer nope' }, bearer(unknown), bearer(revokedKey)]) {
      const r = gate.admit('network', req('192.0.2.1', headers));
      expect(r.error?.code, JSON.stringify(headers)).toBe('invalid_api_key');
      expect(r.error?.status).toBe(401);
      expect(r.error?.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(r.error?.message).not.toContain(revokedKey.slice(3));
    }
  });

  it('writes usage to SQLite on close, and a new gate continues from it', () => {
    let key = '';
    let id = 0;
    const { gate, repo, ctx, config } = setup({ NETINTEL_PLAN_PRO_DAILY: '10' }, (r) => ({ key, id } = r.create('p', 'pro')));
    for (let i = 0; i < 4; i++) gate.admit('local', req('192.0.2.1', bearer(key)));
    const today = utcDay(Date.parse('2026-11-22T12:00:00Z'));
    expect(repo.usage(id, today)).toBe(0);
    gate.close();
    expect(repo.usage(id, today)).toBe(4);
    const again = createGate(ctx, createGateShare(config), { now: () => Date.parse('2026-11-22T13:00:00Z'), timers: false });
    expect(again.admit('local', req('192.0.2.9', bearer(key))).headers['ratelimit-remaining']).toBe('5');
  });
});

describe('network concurrency', () => {
  it('refuses network lookups beyond the bound with 503 overloaded and frees the slot when the lookup settles', async () => {
    const { gate } = setup({ NETINTEL_NETWORK_CONCURRENCY: '2' });
    const pending: (() => void)[] = [];
    const hold = () => new Promise<string>((resolve) => pending.push(() => resolve('done')));
    const a = gate.track('network', hold);
    const b = gate.track('network', hold);
    await expect(gate.track('network', hold)).rejects.toMatchObject({ code: 'overloaded', status: 503 });
    // Local lookups are not bounded here.
    await expect(gate.track('local', async () => 'ok')).resolves.toBe('ok');
    pending.shift()!();
    await a;
    const c = gate.track('network', async () => 'again');
    await expect(c).resolves.toBe('again');
    pending.shift()!();
    await b;
    await expect(gate.track('network', async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    await expect(gate.track('network', async () => 1)).resolves.toBe(1);
  });
});
