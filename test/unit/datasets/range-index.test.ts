import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { V4_BLOCKS_PER_RANGE, cidrRangeV4, cidrRangeV6, formatV4, formatV6, parseV4, parseV6 } from '../../../src/datasets/ip.js';
import { cidrWithin, parseIp } from '../../../src/lookups/ip-address.js';
import { findV4, findV6, flattenV4, flattenV6, parseForLookup, toV4Index, toV6Index } from '../../../src/datasets/range-index.js';
import { PrefixIndexBuilder, PrefixSnapshot } from '../../../src/datasets/prefix-index.js';

/** The oracle: the smallest containing range, first given on a tie. */
function naive<K extends number | bigint>(starts: K[], ends: K[], x: K): number {
  let best = -1;
  for (let i = 0; i < starts.length; i++) {
    if (starts[i]! <= x && x <= ends[i]!) {
      if (best < 0 || ends[i]! - starts[i]! < ends[best]! - starts[best]!) best = i;
    }
  }
  return best;
}

describe('ip text ↔ numbers', () => {
  it('parses IPv4 strictly', () => {
    expect(parseV4('8.8.8.8')).toBe(0x08080808);
    expect(parseV4('255.255.255.255')).toBe(0xffffffff);
    for (const bad of ['1.2.3', '01.2.3.4', '1.2.3.256', '1.2.3.4.5', ' 1.2.3.4', '1..2.3', 'a.b.c.d']) expect(parseV4(bad)).toBe(-1);
  });

  it('parses IPv6 forms and formats RFC 5952', () => {
    expect(parseV6('::')).toBe(0n);
    expect(parseV6('::1')).toBe(1n);
    expect(formatV6(parseV6('2001:0db8:0000:0000:0000:ff00:0042:8329')!)).toBe('2001:db8::ff00:42:8329');
    expect(formatV6(parseV6('::ffff:1.2.3.4')!)).toBe('::ffff:102:304');
    expect(formatV6(parseV6('2001:db8:0:0:1:0:0:1')!)).toBe('2001:db8::1:0:0:1');
    for (const bad of ['1::2::3', '12345::', ':1', '1:', 'g::', '1:2:3:4:5:6:7:8:9', 'fe80::1%eth0']) expect(parseV6(bad)).toBeNull();
  });

  it('round-trips any IPv4 and IPv6 address (property)', () => {
    fc.assert(fc.property(fc.ipV4(), (ip) => formatV4(parseV4(ip)) === ip));
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const v = parseV6(ip);
        return v !== null && parseV6(formatV6(v)) === v;
      }),
    );
  });

  it('computes CIDR bounds', () => {
    expect(cidrRangeV4(parseV4('10.1.2.3'), 8).map(formatV4)).toEqual(['10.0.0.0', '10.255.255.255']);
    expect(cidrRangeV6(parseV6('2001:db8::1')!, 32).map(formatV6)).toEqual(['2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff']);
  });
});

describe('range index', () => {
  it('picks the most specific of nested ranges and the outer one around them', () => {
    const starts = [parseV4('10.0.0.0'), parseV4('10.1.0.0'), parseV4('10.1.2.0')];
    const ends = [parseV4('10.255.255.255'), parseV4('10.1.255.255'), parseV4('10.1.2.255')];
    const idx = toV4Index(flattenV4(starts, ends));
    expect(findV4(idx, parseV4('10.1.2.3'))).toBe(2);
    expect(findV4(idx, parseV4('10.1.3.0'))).toBe(1);
    expect(findV4(idx, parseV4('10.2.0.0'))).toBe(0);
    expect(findV4(idx, parseV4('10.0.0.0'))).toBe(0);
    expect(findV4(idx, parseV4('11.0.0.0'))).toBe(-1);
    expect(findV4(idx, parseV4('9.255.255.255'))).toBe(-1);
  });

  it('handles the ends of the address space and empty input', () => {
    const idx = toV4Index(flattenV4([0, 0xffffff00], [0xffffffff, 0xffffffff]));
    expect(findV4(idx, 0xffffffff)).toBe(1);
    expect(findV4(idx, 0)).toBe(0);
    expect(findV4(toV4Index(flattenV4([], [])), 5)).toBe(-1);
    const v6 = toV6Index(flattenV6([0n], [(1n << 128n) - 1n]));
    expect(findV6(v6, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff)).toBe(0);
  });

  const v4Range = fc
    .tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 32 }))
    .map(([base, bits]) => cidrRangeV4(base, bits));
  const v4Any = fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff })).map(([a, b]) => (a <= b ? [a, b] : [b, a]) as [number, number]);

  it('agrees with a naive scan for nested CIDR ranges (IPv4 property)', () => {
    fc.assert(
      fc.property(fc.array(v4Range, { maxLength: 40 }), fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 40 }), (ranges, probes) => {
        const starts = ranges.map((r) => r[0]);
        const ends = ranges.map((r) => r[1]);
        const idx = toV4Index(flattenV4(starts, ends));
        // Probe the boundaries too: that is where off-by-one errors live.
        const points = [...probes, ...starts, ...ends, ...starts.map((s) => Math.max(0, s - 1)), ...ends.map((e) => Math.min(0xffffffff, e + 1))];
        for (const x of points) {
          const got = findV4(idx, x);
          const want = naive(starts, ends, x);
          if (got !== want && !(got >= 0 && want >= 0 && ends[got]! - starts[got]! === ends[want]! - starts[want]!)) return false;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with a naive scan for arbitrary overlapping ranges (IPv4 property)', () => {
    fc.assert(
      fc.property(fc.array(v4Any, { maxLength: 30 }), fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 30 }), (ranges, probes) => {
        const starts = ranges.map((r) => r[0]);
        const ends = ranges.map((r) => r[1]);
        const idx = toV4Index(flattenV4(starts, ends));
        for (const x of [...probes, ...starts, ...ends, ...ends.map((e) => Math.min(0xffffffff, e + 1))]) {
          if (findV4(idx, x) !== naive(starts, ends, x)) return false;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  const big = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
  const v6Range = fc.tuple(big, fc.integer({ min: 0, max: 128 })).map(([base, bits]) => cidrRangeV6(base, bits));

  it('agrees with a naive scan for nested IPv6 prefixes (property)', () => {
    fc.assert(
      fc.property(fc.array(v6Range, { maxLength: 30 }), fc.array(big, { maxLength: 30 }), (ranges, probes) => {
        const starts = ranges.map((r) => r[0]);
        const ends = ranges.map((r) => r[1]);
        const idx = toV6Index(flattenV6(starts, ends));
        const out = new Float64Array(4);
        for (const x of [...probes, ...starts, ...ends]) {
          const ip = formatV6(x);
          const family = parseForLookup(ip, out);
          if (family === 4) continue; // v4-mapped addresses are answered by the IPv4 index
          const got = findV6(idx, out[0]!, out[1]!, out[2]!, out[3]!);
          const want = naive(starts, ends, x);
          if (got !== want && !(got >= 0 && want >= 0 && ends[got]! - starts[got]! === ends[want]! - starts[want]!)) return false;
        }
        return true;
      }),
      { numRuns: 200 },
    );
  });
});

describe('prefix snapshot', () => {
  it('lookupV4 answers exactly what lookup answers for the same address (property)', () => {
    const builder = new PrefixIndexBuilder();
    const rows = fc.sample(fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 8, max: 32 }), fc.integer({ min: 1, max: 70000 })), { numRuns: 300, seed: 7 });
    for (const [ip, len, asn] of rows) {
      const [start, end] = cidrRangeV4(ip, len);
      builder.add({ family: 4, start, end, asn, org: asn % 3 === 0 ? null : `Org ${asn}` });
    }
    const snap = new PrefixSnapshot(builder.build({ dataset: 'test', built_at: null }));
    fc.assert(fc.property(fc.integer({ min: 0, max: 0xffffffff }), (n) => snap.lookupV4(n) === snap.lookup(formatV4(n))), { numRuns: 5000 });
    // Addresses inside the ranges, not only random ones (most of which no range covers).
    for (const [ip] of rows) expect(snap.lookupV4(ip >>> 0)).toBe(snap.lookup(formatV4(ip >>> 0)));
    expect(rows.some(([ip]) => snap.lookupV4(ip >>> 0) !== null)).toBe(true);
    // The block key names the same range by id, and match() gives it back.
    const byKey = (n: number): unknown => (snap.blockKeyV4(n) < 0 ? null : snap.match(Math.floor(snap.blockKeyV4(n) / V4_BLOCKS_PER_RANGE)));
    fc.assert(fc.property(fc.integer({ min: 0, max: 0xffffffff }), (n) => byKey(n) === snap.lookupV4(n)), { numRuns: 2000 });
    for (const [ip] of rows) expect(byKey(ip >>> 0)).toBe(snap.lookupV4(ip >>> 0));
  });

  it('block keys: equal exactly when two addresses share the range and the CIDR block API.md names (property)', () => {
    // Ranges that are mostly not one CIDR block, nested and overlapping.
    const rows = fc.sample(fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 5000 })), { numRuns: 200, seed: 11 });
    const builder = new PrefixIndexBuilder();
    for (const [start, width] of rows) builder.add({ family: 4, start, end: Math.min(0xffffffff, start + width), asn: 1 + (start % 1000), org: null });
    builder.add({ family: 4, start: 0, end: 0xffffffff, asn: 7, org: null });
    const snap = new PrefixSnapshot(builder.build({ dataset: 'test', built_at: null }));
    const block = (n: number): string => {
      const m = snap.lookupV4(n)!;
      const ip = parseIp(formatV4(n))!;
      return `${m.id} ${cidrWithin(ip, parseIp(m.start)!, parseIp(m.end)!)}`;
    };
    // Neighbours of range bounds are where blocks change.
    const near = fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(...rows.map(([s]) => s)).chain((s) => fc.integer({ min: Math.max(0, s - 300), max: Math.min(0xffffffff, s + 5300) })));
    fc.assert(fc.property(near, near, (a, b) => (snap.blockKeyV4(a) === snap.blockKeyV4(b)) === (block(a) === block(b))), { numRuns: 20000 });
    // Every block of one wide, unaligned range has its own key.
    const wide = new PrefixIndexBuilder();
    wide.add({ family: 4, start: 0x0a000001, end: 0x0affff00, asn: 1, org: null });
    const w = new PrefixSnapshot(wide.build({ dataset: 'test', built_at: null }));
    const keys = new Map<number, string>();
    for (let n = 0x0a000001; n <= 0x0affff00; n += 97) keys.set(w.blockKeyV4(n), cidrWithin(parseIp(formatV4(n))!, parseIp('10.0.0.1')!, parseIp('10.255.255.0')!)!);
    for (const n of [0x0a000001, 0x0a000002, 0x0a000003, 0x0affff00, 0x0afffeff]) keys.set(w.blockKeyV4(n), cidrWithin(parseIp(formatV4(n))!, parseIp('10.0.0.1')!, parseIp('10.255.255.0')!)!);
    expect(new Set(keys.values()).size).toBe(keys.size);
    expect(keys.size).toBeGreaterThan(20);
  });

  it('gives every range a distinct dense id, IPv4 and IPv6 alike', () => {
    const builder = new PrefixIndexBuilder();
    builder.add({ family: 4, start: 0x0a000000, end: 0x0affffff, asn: 1, org: null });
    builder.add({ family: 4, start: 0x0b000000, end: 0x0bffffff, asn: 2, org: null });
    builder.add({ family: 6, start: 0x20010db8n << 96n, end: (0x20010db9n << 96n) - 1n, asn: 3, org: null });
    const snap = new PrefixSnapshot(builder.build({ dataset: 'test', built_at: null }));
    const ids = ['10.0.0.1', '11.0.0.1', '2001:db8::1'].map((ip) => snap.lookup(ip)!.id);
    expect(ids.sort()).toEqual([0, 1, 2]);
    expect(snap.records).toBe(3);
    expect(snap.lookup('2001:db8::1')).toBe(snap.lookup('2001:db8::2'));
    for (const ip of ['10.0.0.1', '11.0.0.1', '2001:db8::1']) expect(snap.match(snap.lookup(ip)!.id)).toBe(snap.lookup(ip));
    for (const id of [-1, 3, 1.5, Number.NaN, 2 ** 40]) expect(snap.match(id)).toBeNull();
  });
});
