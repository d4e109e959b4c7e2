// API keys: format, Authorization parsing, UTC days, the SQLite repository and the shared usage counters.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayString, displayPrefix, generateKey, hashKey, isWellFormedKey, parseAuthorization, secondsUntilNextDay, utcDay } from '../../../src/auth/keys.js';
import { KeyNameTaken, KeyRepo } from '../../../src/auth/key-repo.js';
import { KeyUsageTable, createKeyUsageShare } from '../../../src/auth/key-usage.js';
import { openDatabase } from '../../../src/platform/sqlite.js';
import { ROOT } from '../../helpers/daemon.js';

describe('key format', () => {
  it('generates distinct, well-formed keys of 192 random bits', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const k = generateKey();
      expect(k).toMatch(/^ni_[A-Za-z0-9_-]{32}$/);
      expect(isWellFormedKey(k)).toBe(true);
      seen.add(k);
    }
    expect(seen.size).toBe(200);
    expect(Buffer.from(generateKey().slice(3), 'base64url')).toHaveLength(24);
  });
  it('hashes to SHA-256 hex and shows only a short prefix', () => {
    const k = generateKey();
    expect(hashKey(k)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(k)).not.toContain(k.slice(3));
    expect(displayPrefix(k)).toBe(k.slice(0, 7));
  });
});

describe('parseAuthorization', () => {
  const key = generateKey();
  it('reads a bearer key, scheme case-insensitive', () => {
    expect(parseAuthorization(`Bearer ${key}`)).toEqual({ kind: 'bearer', key });
    expect(parseAuthorization(`bearer ${key}`)).toEqual({ kind: 'bearer', key });
    expect(parseAuthorization(undefined)).toEqual({ kind: 'none' });
  });
  it('calls everything else malformed, without echoing the credentials', () => {
    for (const h of ['', 'Bearer', `Basic ${key}`, `Bearer ${key} extra`, `Bearer ${key.slice(0, -1)}`, `Bearer  ${key}x`, 'Bearer ni_short', `Token ${key}`]) {
      const a = parseAuthorization(h);
      expect(a.kind, h).toBe('malformed');
      if (a.kind === 'malformed') expect(a.reason).not.toContain(key.slice(3, 12));
    }
  });
  it('never throws and never accepts what is not a key', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (s) => {
      const a = parseAuthorization(s);
      if (a.kind === 'bearer') expect(isWellFormedKey(a.key)).toBe(true);
    }), { numRuns: 500 });
  });
});

describe('UTC days', () => {
  it('reset at 00:00 UTC', () => {
    const t = Date.parse('2026-11-22T23:59:59.500Z');
    expect(dayString(utcDay(t))).toBe('2026-11-22');
    expect(dayString(utcDay(t + 500))).toBe('2026-11-23');
    expect(secondsUntilNextDay(t)).toBe(1);
    expect(secondsUntilNextDay(Date.parse('2026-11-22T00:00:00Z'))).toBe(86400);
  });
});

describe('KeyRepo', () => {
  it('creates, lists, revokes and records usage; stores no key text', () => {
    const db = openDatabase(':memory:');
    const repo = new KeyRepo(db);
    const a = repo.create('alpha', 'developer');
    const b = repo.create('beta', 'pro');
    expect(() => repo.create('alpha', 'business')).toThrow(KeyNameTaken);
    expect(repo.active().map((k) => k.name)).toEqual(['alpha', 'beta']);
    const dump = JSON.stringify(db.prepare('SELECT * FROM api_keys').all());
    expect(dump).not.toContain(a.key);
    expect(dump).not.toContain(a.key.slice(7));
    expect(dump).toContain(hashKey(a.key));

    const today = utcDay(Date.now());
    repo.addUsage([{ keyId: a.id, day: today, requests: 5 }, { keyId: a.id, day: today, requests: 2 }, { keyId: 999, day: today, requests: 1 }]);
    expect(repo.usage(a.id, today)).toBe(7);
    expect(repo.usage(b.id, today)).toBe(0);
    const listed = repo.list();
    expect(listed.find((r) => r.id === a.id)).toMatchObject({ today: 7, plan: 'developer', revokedAt: null });
    expect(listed.find((r) => r.id === a.id)!.lastUsedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    expect(repo.revoke('alpha')).toEqual({ id: a.id, name: 'alpha' });
    expect(repo.revoke('alpha')).toBeNull();
    expect(repo.revoke(String(b.id))).toEqual({ id: b.id, name: 'beta' });
    expect(repo.active()).toEqual([]);
    // A revoked key's name can be reused.
    expect(repo.create('alpha', 'pro').id).toBeGreaterThan(b.id);
    db.close();
  });
});

describe('KeyUsageTable', () => {
  it('counts against the allowance, starting from what was stored', () => {
    const t = new KeyUsageTable(createKeyUsageShare(64));
    const loads: number[] = [];
    const load = (id: number) => (loads.push(id), 8);
    expect(t.take(3, 100, 10, load)).toEqual({ allowed: true, used: 9 });
    expect(t.take(3, 100, 10, load)).toEqual({ allowed: true, used: 10 });
    expect(t.take(3, 100, 10, load)).toEqual({ allowed: false, used: 10 });
    expect(loads).toEqual([3]);
    // Unlimited plan: counts, never refuses.
    for (let i = 0; i < 50; i++) expect(t.take(4, 100, 0, () => 0).allowed).toBe(true);
  });

  it('starts a new UTC day at zero and flushes each day to its own row', () => {
    const t = new KeyUsageTable(createKeyUsageShare(64));
    t.take(1, 100, 3, () => 0);
    t.take(1, 100, 3, () => 0);
    expect(t.drain()).toEqual([{ keyId: 1, day: 100, requests: 2 }]);
    t.take(1, 100, 3, () => 0);
    expect(t.take(1, 101, 3, () => 0)).toEqual({ allowed: true, used: 1 });
    expect(t.drain().sort((x, y) => x.day - y.day)).toEqual([{ keyId: 1, day: 100, requests: 1 }, { keyId: 1, day: 101, requests: 1 }]);
    expect(t.drain()).toEqual([]);
  });

  it('gives back a failed flush so the next one writes it', () => {
    const t = new KeyUsageTable(createKeyUsageShare(64));
    for (let i = 0; i < 5; i++) t.take(9, 7, 0, () => 0);
    const first = t.drain();
    t.restore(first);
    t.take(9, 7, 0, () => 0);
    expect(t.drain()).toEqual([{ keyId: 9, day: 7, requests: 6 }]);
  });

  it('refuses a new key when every slot is taken', () => {
    const t = new KeyUsageTable(createKeyUsageShare(4));
    for (let id = 1; id <= 4; id++) expect(t.take(id, 1, 10, () => 0)).not.toBeNull();
    expect(t.take(5, 1, 10, () => 0)).toBeNull();
    expect(t.take(2, 1, 10, () => 0)).toEqual({ allowed: true, used: 2 });
  });

  it('is exact across worker threads, and every request is flushed exactly once', async () => {
    const share = createKeyUsageShare(256);
    const moduleUrl = new URL(`file://${path.join(ROOT, 'dist/auth/key-usage.js')}`).href;
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      import(workerData.moduleUrl).then(({ KeyUsageTable }) => {
        const t = new KeyUsageTable(workerData.share);
        let allowed = 0, flushed = 0;
        for (let i = 0; i < 4000; i++) {
          if (t.take(1 + (i % 3), 50, 5000, () => 0).allowed) allowed++;
          if (i % 500 === 0) for (const d of t.drain()) flushed += d.requests;
        }
        parentPort.postMessage({ allowed, flushed });
      });`;
    const run = () =>
      new Promise<{ allowed: number; flushed: number }>((resolve, reject) => {
        const w = new Worker(code, { eval: true, workerData: { share, moduleUrl } });
        w.once('message', resolve);
        w.once('error', reject);
      });
    const results = await Promise.all([run(), run()]);
    // 8000 attempts spread over 3 keys of 5000 each: none reaches its limit, so every one counts.
    const allowed = results[0]!.allowed + results[1]!.allowed;
    expect(allowed).toBe(8000);
    const rest = new KeyUsageTable(share).drain().reduce((n, d) => n + d.requests, 0);
    expect(results[0]!.flushed + results[1]!.flushed + rest).toBe(allowed);
  });

  it('is exact across worker threads at the limit', async () => {
    const share = createKeyUsageShare(64);
    const moduleUrl = new URL(`file://${path.join(ROOT, 'dist/auth/key-usage.js')}`).href;
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      import(workerData.moduleUrl).then(({ KeyUsageTable }) => {
        const t = new KeyUsageTable(workerData.share);
        let allowed = 0;
        for (let i = 0; i < 3000; i++) if (t.take(77, 9, 4321, () => 100).allowed) allowed++;
        parentPort.postMessage(allowed);
      });`;
    const run = () =>
      new Promise<number>((resolve, reject) => {
        const w = new Worker(code, { eval: true, workerData: { share, moduleUrl } });
        w.once('message', resolve);
        w.once('error', reject);
      });
    const [x, y] = await Promise.all([run(), run()]);
    expect(x! + y!).toBe(4321 - 100);
  });
});

describe('log redaction', () => {
  it('the daemon logger censors Authorization wherever a request is logged', async () => {
    const { Writable } = await import('node:stream');
    const { createLogger } = await import('../../../src/platform/logger.js');
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    const log = createLogger('info', sink);
    const key = generateKey();
    log.info({ req: { headers: { authorization: `Bearer ${key}` } } }, 'a');
    log.info({ headers: { authorization: `Bearer ${key}` } }, 'b');
    log.info({ authorization: `Bearer ${key}` }, 'c');
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(3);
    for (const l of lines) {
      expect(l).not.toContain(key.slice(3));
      expect(l).toContain('[redacted]');
    }
  });
});
