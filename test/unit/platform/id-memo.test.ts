import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { IdMemo } from '../../../src/platform/id-memo.js';

describe('IdMemo', () => {
  it('behaves as a Map restricted to ids in [0, size) (model-checked)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50 }), fc.array(fc.tuple(fc.boolean(), fc.integer({ min: -5, max: 60 }), fc.string())), (size, ops) => {
        const memo = new IdMemo<string>(size);
        const model = new Map<number, string>();
        for (const [write, id, value] of ops) {
          if (write) {
            memo.set(id, value);
            if (id >= 0 && id < size) model.set(id, value);
          } else {
            expect(memo.get(id)).toBe(model.get(id));
          }
        }
        for (let id = -5; id <= 60; id++) expect(memo.get(id)).toBe(model.get(id));
      }),
      { numRuns: 300 },
    );
  });
});
