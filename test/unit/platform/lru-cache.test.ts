import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LruCache } from '../../../src/platform/lru-cache.js';

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => { t += ms; } };
}

describe('LruCache', () => {
  it('returns live entries with their remaining time and drops expired ones', () => {
    const c = clock();
    const cache = new LruCache<string, number>({ maxEntries: 10, now: c.now });
    cache.set('a', 1, 1000);
    expect(cache.get('a')).toEqual({ value: 1, expiresAt: 1_001_000, remainingMs: 1000 });
    c.advance(999);
    expect(cache.get('a')?.remainingMs).toBe(1);
    c.advance(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stores nothing for a TTL of zero or less', () => {
    const cache = new LruCache<string, number>({ maxEntries: 2 });
    cache.set('a', 1, 1000);
    cache.set('a', 2, 0);
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', 1, -5);
    cache.set('c', 1, Number.NaN);
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry', () => {
    const cache = new LruCache<string, number>({ maxEntries: 2 });
    cache.set('a', 1, 1000);
    cache.set('b', 2, 1000);
    cache.get('a');
    cache.set('c', 3, 1000);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.value).toBe(1);
    expect(cache.get('c')?.value).toBe(3);
  });

  it('prune removes only expired entries', () => {
    const c = clock();
    const cache = new LruCache<string, number>({ maxEntries: 10, now: c.now });
    cache.set('short', 1, 10);
    cache.set('long', 2, 1000);
    c.advance(10);
    expect(cache.prune()).toBe(1);
    expect(cache.size).toBe(1);
  });

  it('rejects a non-positive size', () => {
    expect(() => new LruCache({ maxEntries: 0 })).toThrow(RangeError);
  });

  it('never holds more than maxEntries, whatever the operations', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.tuple(fc.constantFrom('get', 'set', 'delete'), fc.integer({ min: 0, max: 20 }))), (max, ops) => {
      const cache = new LruCache<number, number>({ maxEntries: max });
      for (const [op, k] of ops) {
        if (op === 'set') cache.set(k, k, 1000);
        else if (op === 'get') { const h = cache.get(k); if (h !== undefined) expect(h.value).toBe(k); }
        else cache.delete(k);
        expect(cache.size).toBeLessThanOrEqual(max);
      }
    }));
  });
});

describe('LruCache eviction order against a reference model', () => {
  // A plain array LRU: the reference the Map-based cache (with its skip of no-op re-inserts) must match.
  it('property: any sequence of sets, gets and deletes evicts exactly what a textbook LRU evicts', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 5 }) }),
    );
    fc.assert(fc.property(fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
      const cache = new LruCache<number, number>({ maxEntries: max, now: () => 0 });
      let model: number[] = []; // least recently used first
      for (const [i, o] of ops.entries()) {
        if (o.kind === 'set') {
          cache.set(o.key, i, 1000);
          model = [...model.filter((k) => k !== o.key), o.key];
          if (model.length > max) model = model.slice(model.length - max);
        } else if (o.kind === 'get') {
          const hit = cache.get(o.key);
          expect(hit !== undefined).toBe(model.includes(o.key));
          if (hit !== undefined) model = [...model.filter((k) => k !== o.key), o.key];
        } else {
          cache.delete(o.key);
          model = model.filter((k) => k !== o.key);
        }
        expect(cache.size).toBe(model.length);
      }
    }), { numRuns: 500 });
  });
});
