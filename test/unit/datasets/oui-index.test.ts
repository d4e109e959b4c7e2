import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OuiSnapshot } from '../../../src/datasets/oui-index.js';
import type { OuiRecord } from '../../../src/datasets/types.js';

const HEX = '0123456789ABCDEF'.split('');
const hex = (n: number) => fc.string({ unit: fc.constantFrom(...HEX), minLength: n, maxLength: n });
const BITS = { 6: 24, 7: 28, 9: 36 } as const;

function record(prefix: string, vendor = `Vendor ${prefix}`): OuiRecord {
  const bits = BITS[prefix.length as 6 | 7 | 9];
  return { prefix, bits, registry: bits === 24 ? 'MA-L' : bits === 28 ? 'MA-M' : 'MA-S', vendor, address: null, country: null };
}

/** The textbook answer: the longest record prefix of the address, registration-authority parents excluded. */
function naive(records: readonly OuiRecord[], hex12: string): OuiRecord | null {
  let best: OuiRecord | null = null;
  for (const r of records) {
    if (r.vendor.startsWith('IEEE Registration Authority')) continue;
    if (hex12.startsWith(r.prefix) && (best === null || r.prefix.length > best.prefix.length)) best = r;
  }
  return best;
}

describe('OuiSnapshot', () => {
  it('answers the longest matching assignment, as a naive scan does (property)', () => {
    // Few distinct OUIs, so blocks nest under MA-L entries and addresses hit them often.
    const ouis = ['00000C', 'B827EB', '70B3D5', 'FCFFAA', '0050C2'];
    const prefixFor = fc.tuple(fc.constantFrom(...ouis), hex(3), fc.constantFrom(6, 7, 9)).map(([o, tail, n]) => (o + tail).slice(0, n));
    fc.assert(
      fc.property(
        fc.uniqueArray(prefixFor, { maxLength: 12 }),
        fc.boolean(),
        fc.array(fc.tuple(fc.constantFrom(...ouis), hex(6)).map(([o, t]) => o + t), { minLength: 1, maxLength: 30 }),
        (prefixes, raParent, addresses) => {
          const records = prefixes.map((p) => record(p));
          if (raParent) records.push(record('70B3D5', 'IEEE Registration Authority'));
          const snap = new OuiSnapshot({ dataset: 'test', built_at: null }, records.map((r) => ({ ...r })));
          for (const a of addresses) {
            expect(snap.lookup(a)?.prefix ?? null, a).toBe(naive(records, a)?.prefix ?? null);
            // The key form: the same record, one key per record.
            expect(snap.record(snap.keyFor(a))).toBe(snap.lookup(a));
            for (const b of addresses) if (snap.lookup(a) !== null) expect(snap.keyFor(a) === snap.keyFor(b)).toBe(snap.lookup(a) === snap.lookup(b));
          }
          expect(snap.record(-1)).toBeNull();
        },
      ),
      { numRuns: 500 },
    );
  });
});
