// GCRA and the shared rate-limit table: exact allowance, reset, Retry-After, eviction, and sharing across threads.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateTable, createRateTableShare, gcra } from '../../../src/http/rate-limit.js';
import { ROOT } from '../../helpers/daemon.js';

const MINUTE = 60_000;

describe('gcra', () => {
  it('allows exactly `limit` requests at once, then refuses with Retry-After ≥ 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 3e10, noNaN: true }), (limit, now) => {
        let tat = now;
        for (let i = 1; i <= limit; i++) {
          const d = gcra(tat, now, limit, MINUTE);
          expect(d.allowed).toBe(true);
          expect(d.remaining).toBe(limit - i);
          tat = d.tat;
        }
        const refused = gcra(tat, now, limit, MINUTE);
        expect(refused.allowed).toBe(false);
        expect(refused.remaining).toBe(0);
        expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
        expect(refused.resetSeconds).toBeGreaterThanOrEqual(refused.retryAfterSeconds);
        expect(refused.resetSeconds).toBeLessThanOrEqual(60);
        // Retry-After is honest: waiting that long is enough for one more request.
        expect(gcra(tat, now + refused.retryAfterSeconds * 1000, limit, MINUTE).allowed).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('refills completely after Reset seconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 2000 }), (limit, used) => {
        const now = 2_000_000_000; // ms since the table's epoch: about 23 days of uptime
        let tat = now;
        let last = gcra(tat, now, limit, MINUTE);
        for (let i = 0; i < Math.min(used, limit); i++) {
          last = gcra(tat, now, limit, MINUTE);
          tat = last.tat;
        }
        const later = now + last.resetSeconds * 1000;
        let n = 0;
        for (let t = tat; gcra(t, later, limit, MINUTE).allowed && n <= limit; n++) t = gcra(t, later, limit, MINUTE).tat;
        expect(n).toBe(limit);
      }),
      { numRuns: 40 },
    );
  });

  it('a fresh client sees limit-1 remaining and a reset within the window', () => {
    const d = gcra(0, 1000, 60, MINUTE);
    expect(d).toMatchObject({ allowed: true, remaining: 59, resetSeconds: 1, retryAfterSeconds: 0 });
  });
});

describe('RateTable', () => {
  const key = (n: number, tag = 1) => ({ k0: n, k1: 0, k2: (4 << 8) | tag });

  it('counts each subject and class separately', () => {
    let t = 1_000_000;
    const table = new RateTable(createRateTableShare(1024), () => t);
    for (let i = 0; i < 3; i++) expect(table.take(key(1), 3, MINUTE).allowed).toBe(true);
    expect(table.take(key(1), 3, MINUTE).allowed).toBe(false);
    expect(table.take(key(2), 3, MINUTE).allowed).toBe(true);
    expect(table.take(key(1, 2), 3, MINUTE).allowed).toBe(true);
    t += MINUTE;
    expect(table.take(key(1), 3, MINUTE)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('keeps a fixed size under a flood of distinct clients and keeps limiting the heavy ones', () => {
    let t = 5_000_000;
    const table = new RateTable(createRateTableShare(64), () => t);
    expect(table.capacity).toBe(64);
    // A heavy client uses its whole allowance.
    for (let i = 0; i < 100; i++) table.take(key(7), 100, MINUTE);
    expect(table.take(key(7), 100, MINUTE).allowed).toBe(false);
    // 50,000 one-off clients, all within the same second.
    for (let i = 0; i < 50_000; i++) {
      t += 0.01;
      expect(table.take(key(1_000_000 + i), 100, MINUTE).allowed).toBe(true);
    }
    expect(table.activeEntries()).toBeLessThanOrEqual(64);
    // The nearly-full one-off buckets were evicted first; the exhausted client is still limited.
    expect(table.take(key(7), 100, MINUTE).allowed).toBe(false);
  });

  it('reuses slots whose bucket has refilled', () => {
    let t = 0;
    const table = new RateTable(createRateTableShare(8), () => t);
    for (let i = 0; i < 1000; i++) {
      t += 1000; // each one-request bucket (interval 600 ms) has refilled before the next client comes
      table.take(key(i), 100, MINUTE);
      expect(table.activeEntries()).toBeLessThanOrEqual(1);
    }
  });

  it('is exact across worker threads sharing the buffers', async () => {
    const share = createRateTableShare(1024);
    const limit = 3000;
    const perThread = 2500;
    const moduleUrl = new URL(`file://${path.join(ROOT, 'dist/http/rate-limit.js')}`).href;
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      import(workerData.moduleUrl).then(({ RateTable }) => {
        const table = new RateTable(workerData.share);
        let allowed = 0;
        for (let i = 0; i < workerData.n; i++) if (table.take({ k0: 42, k1: 0, k2: 1025 }, workerData.limit, 3600000).allowed) allowed++;
        parentPort.postMessage(allowed);
      });`;
    const run = () =>
      new Promise<number>((resolve, reject) => {
        const w = new Worker(code, { eval: true, workerData: { share, n: perThread, limit, moduleUrl } });
        w.once('message', resolve);
        w.once('error', reject);
      });
    const counts = await Promise.all([run(), run()]);
    expect(counts[0]! + counts[1]!).toBe(limit);
  });
});
