import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PointerCache } from '../../../src/datasets/pointer-cache.js';
import { GenerationalCache } from '../../../src/datasets/geo.js';

describe('PointerCache', () => {
  it('answers exactly as the Map-based GenerationalCache with the same bound (model-checked)', () => {
    // Keys from a narrow range collide in the table and recur across generation swaps.
    const key = fc.oneof({ arbitrary: fc.integer({ min: 0, max: 30 }), weight: 9 }, { arbitrary: fc.integer({ min: 0, max: 0x7ffffffe }), weight: 1 });
    const op = fc.tuple(fc.boolean(), key, fc.integer());
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(op, { minLength: 20, maxLength: 400 }), (max, ops) => {
        const cache = new PointerCache<number>(max);
        const model = new GenerationalCache<number>(max);
        for (const [write, k, v] of ops) {
          if (write) {
            cache.set(k, v);
            model.set(k, v);
          } else {
            expect(cache.get(k)).toBe(model.get(k));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps at most two generations: an entry not read back is gone after 2 × max newer inserts', () => {
    const c = new PointerCache<string>(3);
    c.set(7, 'seven');
    for (let k = 100; k < 103; k++) c.set(k, String(k));
    expect(c.get(7)).toBe('seven'); // old generation: promoted
    for (let k = 200; k < 206; k++) c.set(k, String(k));
    expect(c.get(7)).toBeUndefined();
    expect(c.get(205)).toBe('205');
  });

  it('never caches keys it cannot hold (negative, fractional, 2^31 and up)', () => {
    const c = new PointerCache<string>(4);
    for (const k of [-1, 0.5, 0x7fffffff, 2 ** 32, Number.NaN]) {
      c.set(k, 'x');
      expect(c.get(k)).toBeUndefined();
    }
    c.set(0, 'zero');
    c.set(0x7ffffffe, 'max');
    expect(c.get(0)).toBe('zero');
    expect(c.get(0x7ffffffe)).toBe('max');
  });
});
