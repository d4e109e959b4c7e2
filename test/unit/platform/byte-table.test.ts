import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ByteTable } from '../../../src/platform/byte-table.js';

const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s));
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString());

describe('ByteTable', () => {
  it('behaves as a Map of byte strings while it has room (model-checked, clustered keys as mmdb offsets are)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: -3, max: 40 }).map((k) => k * 1024), fc.string({ maxLength: 20 }))), (ops) => {
        const table = new ByteTable(1000, 1 << 20);
        const model = new Map<number, string>();
        for (const [write, key, value] of ops) {
          if (write) {
            expect(text(table.set(key, bytes(value)))).toBe(value);
            if (key >= 0) model.set(key, value);
          } else {
            expect(text(table.get(key))).toBe(model.get(key));
          }
        }
        for (const [key, value] of model) expect(text(table.get(key))).toBe(value);
        expect(table.size).toBe(model.size);
      }),
      { numRuns: 300 },
    );
  });

  it('starts over when the entries or the arena are used up; views handed out earlier keep their bytes', () => {
    const byCount = new ByteTable(3, 1024);
    const first = byCount.set(1, bytes('one'));
    byCount.set(2, bytes('two'));
    byCount.set(3, bytes('three'));
    expect(byCount.size).toBe(3);
    byCount.set(4, bytes('four'));
    expect(byCount.size).toBe(1);
    expect(byCount.get(1)).toBeUndefined();
    expect(text(byCount.get(4))).toBe('four');
    expect(text(first)).toBe('one');

    const byBytes = new ByteTable(100, 8);
    byBytes.set(1, bytes('12345'));
    byBytes.set(2, bytes('678'));
    expect(text(byBytes.get(1))).toBe('12345');
    byBytes.set(3, bytes('9'));
    expect(byBytes.get(1)).toBeUndefined();
    expect(text(byBytes.get(3))).toBe('9');
  });

  it('replacing a key does not count twice; keys it cannot hold and oversized values are passed through, not stored', () => {
    const table = new ByteTable(2, 16);
    table.set(7, bytes('a'));
    table.set(7, bytes('b'));
    expect(table.size).toBe(1);
    expect(text(table.get(7))).toBe('b');
    for (const key of [-1, 2 ** 31 - 1, 1.5, Number.NaN]) {
      const value = bytes('x');
      expect(table.set(key, value)).toBe(value);
      expect(table.get(key)).toBeUndefined();
    }
    const big = bytes('x'.repeat(17));
    expect(table.set(8, big)).toBe(big);
    expect(table.get(8)).toBeUndefined();
    expect(table.size).toBe(1);
  });

  it('keeps empty byte strings apart from missing keys', () => {
    const table = new ByteTable(4, 16);
    table.set(5, new Uint8Array(0));
    expect(table.get(5)).toEqual(new Uint8Array(0));
    expect(table.get(6)).toBeUndefined();
  });

  it('useFor empties the table only when what its entries were built from changes (by identity)', () => {
    const table = new ByteTable(8, 64);
    const a = {};
    const names = {};
    table.useFor(a, names);
    table.set(1, bytes('x'));
    table.useFor(a, names);
    expect(text(table.get(1))).toBe('x');
    table.useFor({}, names);
    expect(table.get(1)).toBeUndefined();
    table.set(1, bytes('y'));
    table.useFor(table, names);
    table.set(2, bytes('z'));
    table.useFor(table, {});
    expect(table.get(2)).toBeUndefined();
    expect(table.size).toBe(0);
  });
});
