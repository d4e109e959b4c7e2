import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OuiRecord } from '../../../../src/datasets/types.js';
import { LookupError } from '../../../../src/http/errors.js';
import { colonForm, firstOctet, parseMac, searchKey } from '../../../../src/lookups/mac/core.js';
import { createMacAnswerer, createMacBytesAnswerer } from '../../../../src/lookups/mac/index.js';
import { FakeOui, OUI_META } from '../ip/fakes.js';

const RECORDS: OuiRecord[] = [
  { prefix: '001A2B', bits: 24, registry: 'MA-L', vendor: 'Elbonia Networks', address: '1 Mud Street, Mudville 12345', country: 'EB' },
  { prefix: 'B827EB', bits: 24, registry: 'MA-L', vendor: 'Mudberry Pi Trading Ltd', address: 'Maurice Wilkes Building, Cambridge CB4 0DS', country: 'GB' },
  { prefix: '70B3D5', bits: 24, registry: 'MA-L', vendor: 'IEEE Registration Authority', address: '445 Hoes Lane, Piscataway NJ 08554', country: 'US' },
  { prefix: '70B3D594D', bits: 36, registry: 'MA-S', vendor: 'Example Devices GmbH', address: 'Werner-von-Siemens-Str. 13, Olching Bavaria 82140', country: 'DE' },
  { prefix: '0CEFAF', bits: 24, registry: 'MA-L', vendor: 'IEEE Registration Authority', address: null, country: null },
  { prefix: '0CEFAF1', bits: 28, registry: 'MA-M', vendor: 'Elbonian Mudworks', address: null, country: 'EB' },
  { prefix: '00005E', bits: 24, registry: 'MA-L', vendor: 'ICANN, IANA Department', address: 'Los Angeles CA 90094', country: 'US' },
  { prefix: '0A1B2C', bits: 24, registry: 'CID', vendor: 'Local Elbonia Identifiers', address: null, country: 'EB' },
];
const oui = new FakeOui(RECORDS);
const answer = createMacAnswerer({ oui });

describe('parseMac: accepted notations', () => {
  it.each([
    ['00:1A:2B:3C:4D:5E', '001A2B3C4D5E', 48],
    ['00:1a:2b:3c:4d:5e', '001A2B3C4D5E', 48],
    ['00-1A-2B-3C-4D-5E', '001A2B3C4D5E', 48],
    ['00.1A.2B.3C.4D.5E', '001A2B3C4D5E', 48],
    ['001a.2b3c.4d5e', '001A2B3C4D5E', 48],
    ['001A:2B3C:4D5E', '001A2B3C4D5E', 48],
    ['001A2B-3C4D5E', '001A2B3C4D5E', 48],
    ['001A2B3C4D5E', '001A2B3C4D5E', 48],
    ['001a2b3c4d5e', '001A2B3C4D5E', 48],
    ['70B3D5', '70B3D5', 24],
    ['70:B3:D5', '70B3D5', 24],
    ['70-b3-d5', '70B3D5', 24],
    ['70B3D59', '70B3D59', 28],
    ['70:B3:D5:9', '70B3D59', 28],
    ['70B3D594D', '70B3D594D', 36],
    ['70:B3:D5:94:D', '70B3D594D', 36],
    ['70b3.d594.d', '70B3D594D', 36],
    ['70B3D5-94D', '70B3D594D', 36],
  ])('%s → %s (%i bits)', (input, hex, bits) => {
    expect(parseMac(input)).toEqual({ hex, bits });
  });

  it.each([
    '', ' 00:1A:2B:3C:4D:5E', '00:1A:2B:3C:4D:5E ', '00:1A-2B:3C:4D:5E', '00:1A:2B:3C:4D:5E:6F', '001A2B3C4D5E6', '001A2B3C4D5',
    '00:1A:2B:3C:4D:5', '0:1A:2B:3C:4D:5E', '00:1A:2B:3C:4D:', ':00:1A:2B:3C:4D', '00::1A:2B:3C:4D', '001A2B3C', '001A2B3C4D',
    '00:1A:2B:3C', '001.a2b.3c4.d5e', '001a.2b3c.4d5e.6f70', '00:1G:2B:3C:4D:5E', 'zz:zz:zz:zz:zz:zz', 'hello', '00 1A 2B 3C 4D 5E',
    '001A2B:3C4D5E:', '001A2B-3C4D5E6F', '0x001A2B3C4D5E', '00:1A:2B:3C:4D:5E%', '001a.2b3c-4d5e', '１２３４５６',
  ])('%j → null', (input) => {
    expect(parseMac(input)).toBeNull();
  });
});

describe('/v1/mac answer', () => {
  it('a MA-S address: the API.md example field for field', () => {
    const r = answer('70:B3:D5:94:D0:00');
    expect(Object.keys(r)).toEqual(['mac', 'prefix', 'prefix_bits', 'registry', 'assigned', 'vendor', 'address', 'country', 'block', 'multicast', 'locally_administered', 'randomized', 'source']);
    expect(r).toEqual({
      mac: '70:B3:D5:94:D0:00', prefix: '70:B3:D5:94:D', prefix_bits: 36, registry: 'MA-S', assigned: true,
      vendor: 'Example Devices GmbH', address: 'Werner-von-Siemens-Str. 13, Olching Bavaria 82140', country: 'DE',
      block: { start: '70:B3:D5:94:D0:00', end: '70:B3:D5:94:DF:FF', size: 4096 },
      multicast: false, locally_administered: false, randomized: false, source: { oui: OUI_META },
    });
  });

  it('longest match: MA-S beats the IEEE RA parent, MA-M beats its parent, the parent answers elsewhere', () => {
    expect(answer('70B3D594D123')).toMatchObject({ registry: 'MA-S', vendor: 'Example Devices GmbH' });
    expect(answer('70B3D5000001')).toMatchObject({ registry: 'MA-L', vendor: 'IEEE Registration Authority', prefix: '70:B3:D5', prefix_bits: 24 });
    expect(answer('0C:EF:AF:10:00:01')).toMatchObject({ registry: 'MA-M', vendor: 'Elbonian Mudworks', prefix: '0C:EF:AF:1', prefix_bits: 28, block: { start: '0C:EF:AF:10:00:00', end: '0C:EF:AF:1F:FF:FF', size: 1048576 } });
  });

  it('a MA-L address: block of 2^24', () => {
    expect(answer('b8-27-eb-12-34-56')).toMatchObject({
      mac: 'B8:27:EB:12:34:56', prefix: 'B8:27:EB', prefix_bits: 24, registry: 'MA-L', vendor: 'Mudberry Pi Trading Ltd', country: 'GB',
      block: { start: 'B8:27:EB:00:00:00', end: 'B8:27:EB:FF:FF:FF', size: 16777216 },
    });
  });

  it('an unassigned prefix: assigned false, vendor fields null', () => {
    expect(answer('00:11:22:33:44:55')).toMatchObject({ mac: '00:11:22:33:44:55', assigned: false, vendor: null, address: null, country: null, prefix: null, block: null, randomized: false });
  });

  it('a locally administered unicast address is randomized and unassigned', () => {
    expect(answer('DA:A1:19:01:02:03')).toMatchObject({ assigned: false, randomized: true, locally_administered: true, multicast: false, vendor: null });
    expect(answer('02:00:00:00:00:01')).toMatchObject({ assigned: false, randomized: true });
  });

  it('unless a CID covers it: a company identifier, not random', () => {
    expect(answer('0A:1B:2C:00:00:01')).toMatchObject({ assigned: true, randomized: false, locally_administered: true, registry: 'CID', vendor: 'Local Elbonia Identifiers' });
  });

  it('multicast: searched with the I/G bit cleared, prefix and block keep the queried bits', () => {
    oui.calls.length = 0;
    const r = answer('01:00:5E:00:00:FB');
    expect(oui.calls).toEqual(['00005E0000FB']);
    expect(r).toMatchObject({
      multicast: true, locally_administered: false, randomized: false, assigned: true, vendor: 'ICANN, IANA Department',
      prefix: '01:00:5E', block: { start: '01:00:5E:00:00:00', end: '01:00:5E:FF:FF:FF', size: 16777216 },
    });
    expect(answer('33:33:00:00:00:01')).toMatchObject({ multicast: true, locally_administered: true, randomized: false, assigned: false });
  });

  it('prefix queries: mac is the canonical prefix; a deeper assignment does not answer a shorter query', () => {
    expect(answer('B827EB')).toMatchObject({ mac: 'B8:27:EB', prefix: 'B8:27:EB', vendor: 'Mudberry Pi Trading Ltd', assigned: true });
    expect(answer('70B3D594D')).toMatchObject({ mac: '70:B3:D5:94:D', prefix: '70:B3:D5:94:D', prefix_bits: 36, registry: 'MA-S', vendor: 'Example Devices GmbH' });
    expect(answer('70B3D594E')).toMatchObject({ mac: '70:B3:D5:94:E', prefix: '70:B3:D5', prefix_bits: 24, vendor: 'IEEE Registration Authority' });
    expect(answer('70:B3:D5:9')).toMatchObject({ registry: 'MA-L', vendor: 'IEEE Registration Authority' });
    // "0CEFAF" alone pads to 0CEFAF000000, which MA-M 0CEFAF1 does not hold: the RA parent answers.
    expect(answer('0CEFAF')).toMatchObject({ registry: 'MA-L', prefix: '0C:EF:AF' });
    // "0CEFAF1" is exactly the MA-M block.
    expect(answer('0CEFAF1')).toMatchObject({ registry: 'MA-M', vendor: 'Elbonian Mudworks', mac: '0C:EF:AF:1' });
    // A 6-digit query whose zero-padded address falls in a deeper block: no single assignee.
    expect(answer('70B3D5')).toMatchObject({ registry: 'MA-L', vendor: 'IEEE Registration Authority' });
    const deep = createMacAnswerer({ oui: new FakeOui([{ prefix: '70B3D5000', bits: 36, registry: 'MA-S', vendor: 'Zero Block Ltd', address: null, country: null }]) });
    expect(deep('70B3D5')).toMatchObject({
      mac: '70:B3:D5', prefix: '70:B3:D5', prefix_bits: 24, registry: null, assigned: true, vendor: null,
      block: { start: '70:B3:D5:00:00:00', end: '70:B3:D5:FF:FF:FF', size: 16777216 },
    });
    expect(deep('70:B3:D5:00:01:02')).toMatchObject({ vendor: 'Zero Block Ltd', prefix_bits: 36 });
  });

  it.each(['00:1A:2B:3C:4D:5E:6F', '001A2B3C4D5E6', 'nonsense', '', '00:1A-2B:3C:4D:5E'])('400 invalid_mac for %j', (p) => {
    try {
      answer(p);
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(LookupError);
      expect((e as LookupError).code).toBe('invalid_mac');
      expect((e as LookupError).status).toBe(400);
      expect((e as LookupError).message).toMatch(/^Invalid MAC address: ".*" is not a MAC address in any case/);
    }
  });

  it('registry not loaded: 503, except for a locally administered unicast address', () => {
    const none = createMacAnswerer({ oui: null });
    try {
      none('00:1A:2B:3C:4D:5E');
      throw new Error('no error');
    } catch (e) {
      expect((e as LookupError).code).toBe('dataset_unavailable');
      expect((e as LookupError).headers['retry-after']).toBeDefined();
    }
    expect(none('02:00:00:00:00:01')).toMatchObject({ randomized: true, assigned: false, source: {} });
  });
});

describe('/v1/mac properties', () => {
  const hexDigit = fc.constantFrom(...'0123456789abcdefABCDEF'.split(''));
  const mac12 = fc.string({ unit: fc.constantFrom(...'0123456789ABCDEF'.split('')), minLength: 12, maxLength: 12 });

  function notation(hex: string, style: number, lower: boolean[]): string {
    const h = [...hex].map((c, i) => (lower[i] ? c.toLowerCase() : c)).join('');
    const groups = (n: number) => h.match(new RegExp(`.{1,${n}}`, 'g'))!;
    switch (style % 8) {
      case 0: return h;
      case 1: return groups(2).join(':');
      case 2: return groups(2).join('-');
      case 3: return groups(2).join('.');
      case 4: return groups(4).join('.');
      case 5: return groups(4).join(':');
      case 6: return groups(6).join('-');
      default: return groups(6).join('.');
    }
  }

  it('every notation of the same address gives the same answer', () => {
    fc.assert(
      fc.property(mac12, fc.nat(), fc.nat(), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), (hex, s1, s2, lower) => {
        const a = answer(notation(hex, s1, lower));
        const b = answer(notation(hex, s2, lower.map((x) => !x)));
        expect(a).toEqual(b);
        expect(a.mac).toBe(colonForm(hex));
      }),
      { numRuns: 2000 },
    );
  });

  it('every notation of the same prefix (6, 7 or 9 digits) gives the same answer', () => {
    fc.assert(
      fc.property(fc.constantFrom(6, 7, 9), mac12, fc.nat(), fc.nat(), (len, hex, s1, s2) => {
        const p = hex.slice(0, len);
        const lower = Array.from({ length: len }, (_, i) => ((s1 >> i) & 1) === 1);
        expect(answer(notation(p, s1, lower))).toEqual(answer(notation(p, s2, lower)));
      }),
      { numRuns: 1000 },
    );
  });

  it('random strings give an answer or a 400 invalid_mac, never anything else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.oneof(hexDigit, fc.constantFrom(':', '-', '.', ' ', 'g')), maxLength: 20 })), (s) => {
        try {
          answer(s);
        } catch (e) {
          expect(e).toBeInstanceOf(LookupError);
          expect((e as LookupError).code).toBe('invalid_mac');
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('searchKey is always 12 upper-case hex digits with the I/G bit clear', () => {
    fc.assert(
      fc.property(mac12, fc.constantFrom(6, 7, 9, 12), (hex, len) => {
        const key = searchKey(parseMac(hex.slice(0, len))!);
        expect(key).toMatch(/^[0-9A-F]{12}$/);
        expect(parseInt(key.slice(0, 2), 16) & 1).toBe(0);
      }),
    );
  });
});

describe('serialised answers', () => {
  const bytes = createMacBytesAnswerer({ oui });
  const text = (q: string): string => bytes(q).toString('utf8');
  const withRecordHex = fc.tuple(fc.constantFrom(...RECORDS.map((r) => r.prefix)), fc.string({ unit: fc.constantFrom(...'0123456789ABCDEF'.split('')), minLength: 12, maxLength: 12 }))
    .map(([prefix, tail]) => (prefix + tail).slice(0, 12));
  const anyHex = fc.string({ unit: fc.constantFrom(...'0123456789ABCDEF'.split('')), minLength: 12, maxLength: 12 });

  it('property: the text is JSON.stringify of the answer, for addresses inside and outside the records, repeated', () => {
    fc.assert(
      fc.property(fc.oneof(withRecordHex, anyHex), fc.constantFrom(6, 7, 9, 12), (hex, len) => {
        const q = hex.slice(0, len);
        // Twice: the second answer comes from the per-record cache.
        expect(text(q)).toBe(JSON.stringify(answer(q)));
        expect(text(q)).toBe(JSON.stringify(answer(q)));
      }),
      { numRuns: 1000 },
    );
  });

  it('a new registry reuses record keys for other records: no part kept for the old one is served', () => {
    const before = new FakeOui([RECORDS.find((r) => r.prefix === 'B827EB')!]);
    const after = new FakeOui([{ ...RECORDS.find((r) => r.prefix === 'B827EB')!, vendor: 'Renamed Mud Ltd', country: 'FR' }]);
    let current = before;
    const swapping = createMacBytesAnswerer({ get oui() { return current; } });
    expect(JSON.parse(swapping('B8:27:EB:00:00:01').toString())).toMatchObject({ vendor: 'Mudberry Pi Trading Ltd' });
    current = after;
    expect(JSON.parse(swapping('B8:27:EB:00:00:01').toString())).toMatchObject({ vendor: 'Renamed Mud Ltd', country: 'FR' });
  });

  it('two addresses in one block share the record part but keep their own mac', () => {
    expect(JSON.parse(text('B8:27:EB:00:00:01'))).toMatchObject({ mac: 'B8:27:EB:00:00:01', vendor: 'Mudberry Pi Trading Ltd' });
    expect(JSON.parse(text('B8:27:EB:00:00:02'))).toMatchObject({ mac: 'B8:27:EB:00:00:02', vendor: 'Mudberry Pi Trading Ltd' });
  });
});

describe('search key and first octet', () => {
  it('property: the registry key is the query with the I/G bit cleared, padded to 12 digits', () => {
    const hexDigits = fc.string({ unit: fc.constantFrom(...'0123456789ABCDEF'.split('')), minLength: 12, maxLength: 12 });
    fc.assert(
      fc.property(hexDigits, fc.constantFrom(6, 7, 9, 12), (hex, len) => {
        const mac = parseMac(hex.slice(0, len))!;
        const first = parseInt(mac.hex.slice(0, 2), 16);
        expect(firstOctet(mac.hex)).toBe(first);
        const head = (first & 0xfe).toString(16).toUpperCase().padStart(2, '0');
        expect(searchKey(mac)).toBe((head + mac.hex.slice(2)).padEnd(12, '0'));
      }),
      { numRuns: 2000 },
    );
  });
});
