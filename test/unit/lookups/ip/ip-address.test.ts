import net from 'node:net';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { cidrWithin, parseIp, parseIpv4 } from '../../../../src/lookups/ip-address.js';

describe('parseIp: accepted notations', () => {
  it.each([
    ['8.8.8.8', 4, '8.8.8.8'],
    ['0.0.0.0', 4, '0.0.0.0'],
    ['255.255.255.255', 4, '255.255.255.255'],
    ['192.168.0.1', 4, '192.168.0.1'],
    ['2001:4860:4860::8888', 6, '2001:4860:4860::8888'],
    ['2001:4860:4860:0:0:0:0:8888', 6, '2001:4860:4860::8888'],
    ['2001:4860:4860:0000:0000:0000:0000:8888', 6, '2001:4860:4860::8888'],
    ['2001:DB8::1', 6, '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', 6, '2001:db8::1:0:0:1'], // RFC 5952 4.2.3: first of equal runs
    ['2001:db8:0:1:1:1:1:1', 6, '2001:db8:0:1:1:1:1:1'], // RFC 5952 4.2.2: a single 0 group stays
    ['::', 6, '::'],
    ['::1', 6, '::1'],
    ['1::', 6, '1::'],
    ['1:2:3:4:5:6:7::', 6, '1:2:3:4:5:6:7:0'],
    ['::2:3:4:5:6:7:8', 6, '0:2:3:4:5:6:7:8'],
    ['fe80::1', 6, 'fe80::1'],
    ['::1.2.3.4', 6, '::102:304'],
    ['64:ff9b::192.0.2.33', 6, '64:ff9b::c000:221'],
    // IPv4-mapped, in every notation, is answered as the IPv4 address.
    ['::ffff:8.8.8.8', 4, '8.8.8.8'],
    ['::FFFF:8.8.8.8', 4, '8.8.8.8'],
    ['::ffff:808:808', 4, '8.8.8.8'],
    ['0:0:0:0:0:ffff:8.8.8.8', 4, '8.8.8.8'],
    ['0000:0000:0000:0000:0000:FFFF:0808:0808', 4, '8.8.8.8'],
  ])('%s → v%i %s', (input, version, text) => {
    const ip = parseIp(input);
    expect(ip).not.toBeNull();
    expect(ip!.version).toBe(version);
    expect(ip!.text).toBe(text);
  });
});

describe('parseIp: rejected input', () => {
  it.each([
    '', ' ', '8.8.8.8 ', ' 8.8.8.8', '8.8.8.8\n', '\t::1',
    '1.2.3', '1.2.3.4.5', '1.2.3.', '.1.2.3', '1..2.3', '256.1.1.1', '1.2.3.256', '999.1.1.1',
    '010.1.1.1', '1.02.3.4', '00.1.2.3', '0x7f.0.0.1', '0x7f000001', '017700000001', '2130706433', '127.1',
    '1.2.3.4/32', '10.0.0.0/8', '2001:db8::/32', 'fe80::1%eth0', 'fe80::1%25eth0', '[::1]', '[::1]:80', '1.2.3.4:80',
    'example.com', 'localhost', '1.2.3.4.example', 'g::1', ':', ':::', '::1::', '1:::2', ':1::', '1::2:', '1:2',
    '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '1::2:3:4:5:6:7:8', '12345::1', '::ffff:1.2.3', '::ffff:01.2.3.4',
    '::1.2.3.4:5', '1:2:3:4:5:6:7:1.2.3.4', '::256.0.0.1', '１.２.３.４', '1.2.3.4\u0000', 'a'.repeat(100),
  ])('%j → null', (input) => {
    expect(parseIp(input)).toBeNull();
  });
});

// Random notations of one IPv6 value: any zero run compressed (or none), any case, leading zeros,
// and the last 32 bits optionally as a dotted quad.
const v6Notation = fc
  .tuple(
    fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }),
    fc.nat(), fc.boolean(), fc.boolean(), fc.boolean(), fc.nat(),
  )
  .map(([groups, pick, upper, pad, dotted, padPick]) => {
    const hex = (g: number, k: number): string => {
      let s = g.toString(16);
      if (pad && (padPick >> k) & 1) s = s.padStart(4, '0');
      return upper ? s.toUpperCase() : s;
    };
    const parts = groups.map(hex);
    let tail: string[] = [];
    let head = parts;
    if (dotted) {
      const v4 = `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
      head = parts.slice(0, 6);
      tail = [v4];
    }
    // Zero runs (length ≥ 1) available for "::" in the hex part.
    const runs: [number, number][] = [];
    for (let k = 0; k < head.length; ) {
      if (groups[k] !== 0) { k++; continue; }
      let e = k;
      while (e < head.length && groups[e] === 0) e++;
      runs.push([k, e]);
      k = e;
    }
    const choice = runs.length === 0 ? -1 : (pick % (runs.length + 1)) - 1;
    let text: string;
    if (choice < 0) {
      text = [...head, ...tail].join(':');
    } else {
      const [s, e] = runs[choice]!;
      const left = head.slice(0, s).join(':');
      const right = [...head.slice(e), ...tail].join(':');
      text = `${left}::${right}`;
    }
    return { groups, text };
  });

describe('parseIp: properties', () => {
  it('every IPv6 notation of a value gives the same canonical answer, equal to ipaddr.js RFC 5952 text', () => {
    fc.assert(
      fc.property(v6Notation, ({ groups, text }) => {
        const ip = parseIp(text);
        expect(ip, text).not.toBeNull();
        const ref = ipaddr.IPv6.parse(groups.map((g) => g.toString(16)).join(':'));
        const expected = ref.isIPv4MappedAddress() ? ref.toIPv4Address().toString() : ref.toRFC5952String();
        expect(ip!.text).toBe(expected);
        expect(parseIp(ip!.text)?.text).toBe(ip!.text); // canonical text is a fixed point
      }),
      { numRuns: 2000 },
    );
  });

  it('IPv4 dotted quads round-trip and agree with ipaddr.js; the mapped IPv6 forms give the same answer', () => {
    fc.assert(
      fc.property(fc.ipV4(), (text) => {
        const ip = parseIp(text);
        expect(ip?.text).toBe(ipaddr.IPv4.parse(text).toString());
        expect(parseIp(`::ffff:${text}`)).toEqual(ip);
        const [a, b, c, d] = text.split('.').map(Number) as [number, number, number, number];
        expect(parseIp(`::FFFF:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16).padStart(4, '0')}`)).toEqual(ip);
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts exactly what net.isIP accepts, minus zone ids (net.isIP allows "%zone")', () => {
    const alphabet = fc.constantFrom(...'0123456789abcdefABCDEF:.:.:'.split(''), '%', 'g', ' ', '/');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: alphabet, maxLength: 45 }), fc.ipV6(), fc.ipV4(), fc.ipV4Extended(), fc.string()), (s) => {
        const ours = parseIp(s) !== null;
        const node = !s.includes('%') && net.isIP(s) !== 0;
        expect(ours, s).toBe(node);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('cidrWithin: the largest CIDR inside a range that holds the address', () => {
  const p = (s: string) => parseIp(s)!;
  it.each([
    ['8.8.8.8', '8.8.8.0', '8.8.8.255', '8.8.8.0/24'],
    ['8.8.8.8', '8.8.8.8', '8.8.8.8', '8.8.8.8/32'],
    ['8.8.8.8', '8.8.4.0', '8.8.11.255', '8.8.8.0/22'], // range 8.8.4.0–8.8.11.255 is a /22 + /22
    ['8.8.5.1', '8.8.4.0', '8.8.11.255', '8.8.4.0/22'],
    ['1.0.0.5', '1.0.0.1', '1.0.0.6', '1.0.0.4/31'],
    ['1.0.0.1', '1.0.0.1', '1.0.0.6', '1.0.0.1/32'],
    ['0.0.0.0', '0.0.0.0', '255.255.255.255', '0.0.0.0/0'],
    ['2001:db8::1', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db8::/32'],
    ['2001:db8:1::1', '2001:db8::', '2001:db8:2:ffff:ffff:ffff:ffff:ffff', '2001:db8::/47'],
    ['2001:db8:2::1', '2001:db8::', '2001:db8:2:ffff:ffff:ffff:ffff:ffff', '2001:db8:2::/48'],
    ['::', '::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '::/0'],
  ])('%s in %s–%s → %s', (ip, start, end, cidr) => {
    expect(cidrWithin(p(ip), p(start), p(end))).toBe(cidr);
  });

  it('is null outside the range or across families', () => {
    expect(cidrWithin(p('8.8.8.8'), p('9.0.0.0'), p('9.0.0.255'))).toBeNull();
    expect(cidrWithin(p('::1'), p('0.0.0.0'), p('255.255.255.255'))).toBeNull();
  });

  it('property: the block contains the address, lies inside the range, and doubling it would not', () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff }), (x, y, z) => {
        const [lo, mid, hi] = [x, y, z].sort((a, b) => a - b) as [number, number, number];
        const t = (v: number) => `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
        const cidr = cidrWithin(p(t(mid)), p(t(lo)), p(t(hi)))!;
        const [base, lenText] = cidr.split('/');
        const len = Number(lenText);
        const b = parseIp(base!)!.words[0];
        const size = 2 ** (32 - len);
        expect(b % size).toBe(0);
        expect(b <= mid && mid < b + size).toBe(true);
        expect(b >= lo && b + size - 1 <= hi).toBe(true);
        if (len > 0) {
          const pb = b - (b % (size * 2));
          expect(pb >= lo && pb + size * 2 - 1 <= hi).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseIpv4 (the by-value hot path)', () => {
  it('is the value parseIp gives a colon-free IPv4 address, and -1 for everything parseIp does not read as a dotted quad', () => {
    const expectSame = (s: string): void => {
      const ip = parseIp(s);
      const want = ip !== null && ip.version === 4 && !s.includes(':') ? ip.words[0] : -1;
      expect(parseIpv4(s), JSON.stringify(s)).toBe(want);
    };
    fc.assert(fc.property(fc.ipV4(), (s) => expectSame(s)), { numRuns: 5000 });
    fc.assert(fc.property(fc.oneof(fc.ipV4Extended(), fc.ipV6(), fc.string({ maxLength: 20 }), fc.stringMatching(/^[0-9.]{0,18}$/)), (s) => expectSame(s)), { numRuns: 5000 });
    for (const s of ['', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.256', '1.2.3.4 ', '::ffff:1.2.3.4', '255.255.255.255', '0.0.0.0']) expectSame(s);
  });
});
