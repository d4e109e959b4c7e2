import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LookupError } from '../../../../src/http/errors.js';
import { asnResultText, isReservedAsn, parseAsnQuery } from '../../../../src/lookups/asn/core.js';
import { createAsnAnswerer, createAsnBytesAnswerer } from '../../../../src/lookups/asn/index.js';
import { FakeAsns, FakePrefixes, NAMES_META, PREFIX_META, RIR_META } from '../ip/fakes.js';

const prefixes = new FakePrefixes([
  ['1.1.1.0', '1.1.1.255', 13335, 'Elbonia Cloud, Inc.'],
  ['104.16.0.0', '104.31.255.255', 13335, 'Elbonia Cloud, Inc.'],
  ['2606:4700::', '2606:4700:ffff:ffff:ffff:ffff:ffff:ffff', 13335, 'Elbonia Cloud, Inc.'],
  ['5.5.0.0', '5.5.3.255', 65550, 'Documentation Mud'],
  ['6.0.0.0', '6.0.0.255', 0, 'Not routed'],
  ['7.0.0.0', '7.0.0.255', 64777, null],
]);
const asns = new FakeAsns([
  { asn: 13335, name: 'ELBONIA-CLOUDNET', description: 'Elbonia Cloud, Inc.', country: 'US', rir: 'ARIN', allocated: '2010-07-14', status: 'assigned' },
  { asn: 65546, name: 'ASDOT-TEST', description: 'Asdot Mudworks', country: 'EB', rir: 'RIPE', allocated: '2007-01-01', status: 'allocated' },
  { asn: 64777, name: 'PRIVATE-MUD', description: null, country: null },
]);
const answer = createAsnAnswerer({ prefixes, asns });
const SOURCE = { prefixes: PREFIX_META, as_names: NAMES_META, rir: RIR_META };

function expectError(fn: () => unknown, code: string): LookupError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(LookupError);
    expect((e as LookupError).code).toBe(code);
    return e as LookupError;
  }
  throw new Error('expected a LookupError');
}

describe('parseAsnQuery', () => {
  it.each([
    ['AS13335', 13335], ['as13335', 13335], ['As13335', 13335], ['aS13335', 13335], ['13335', 13335],
    ['AS1.10', 65546], ['as1.10', 65546], ['1.10', 65546], ['AS0.10', 10], ['AS65535.65535', 4294967295],
    ['0', 0], ['AS0', 0], ['4294967295', 4294967295], ['AS4294967295', 4294967295],
  ])('%s → AS%i', (input, asn) => {
    expect(parseAsnQuery(input)).toEqual({ kind: 'asn', asn });
  });

  it.each([['1.1.1.1', '1.1.1.1'], ['2606:4700::1111', '2606:4700::1111'], ['::ffff:1.1.1.1', '1.1.1.1']])('%s → IP %s', (input, ip) => {
    const q = parseAsnQuery(input);
    expect(q?.kind).toBe('ip');
    expect(q?.kind === 'ip' && q.ip.text).toBe(ip);
  });

  it.each([
    '', 'AS', 'as', 'AS4294967296', '4294967296', '99999999999', 'AS-1', '-1', 'AS 13335', ' 13335', '13335 ', 'AS013335', '013335',
    'AS1.65536', 'AS65536.0', 'AS1.', 'AS.1', 'AS1.2.3', '1.2.3', 'ASN13335', 'AS13335x', '0x3417', '1e5', '13335.0.0.0/8',
    'AS1.1.1.1', '010.1.1.1', 'example.com', 'fe80::1%eth0', '1.2.3.4/24', 'AS::1', '１３３３５', 'AS1.010',
  ])('%j → null', (input) => {
    expect(parseAsnQuery(input)).toBeNull();
  });
});

describe('isReservedAsn (API.md ranges)', () => {
  it.each([
    [0, true], [1, false], [23455, false], [23456, true], [23457, false], [64495, false], [64496, true], [64511, true], [64512, true],
    [65534, true], [65535, true], [65536, true], [65551, true], [65552, false], [4199999999, false], [4200000000, true],
    [4294967294, true], [4294967295, true], [13335, false],
  ])('AS%i reserved=%s', (asn, reserved) => {
    expect(isReservedAsn(asn)).toBe(reserved);
  });
});

describe('/v1/asn answer', () => {
  it('an IP: the API.md example field for field', () => {
    const r = answer('1.1.1.1');
    expect(Object.keys(r)).toEqual(['query', 'asn', 'name', 'description', 'country', 'rir', 'allocated', 'status', 'reserved', 'ip', 'prefix', 'announced', 'prefixes', 'source']);
    expect(r).toEqual({
      query: '1.1.1.1', asn: 13335, name: 'ELBONIA-CLOUDNET', description: 'Elbonia Cloud, Inc.', country: 'US',
      rir: 'ARIN', allocated: '2010-07-14', status: 'assigned', reserved: false,
      ip: '1.1.1.1', prefix: '1.1.1.0/24', announced: true, prefixes: { ipv4: 2, ipv6: 1 }, source: SOURCE,
    });
  });

  it('an AS number in every notation: same answer but for the echoed query; ip and prefix null', () => {
    const base = answer('AS13335');
    for (const q of ['as13335', '13335', 'AS0.13335']) expect({ ...answer(q), query: 'AS13335' }).toEqual(base);
    expect(base).toMatchObject({ asn: 13335, name: 'ELBONIA-CLOUDNET', ip: null, prefix: null, announced: true, reserved: false, prefixes: { ipv4: 2, ipv6: 1 } });
  });

  it('asdot AS1.10 is AS65546', () => {
    expect(answer('AS1.10')).toMatchObject({ query: 'AS1.10', asn: 65546, name: 'ASDOT-TEST', announced: false, prefixes: { ipv4: 0, ipv6: 0 } });
  });

  it('IPv6 and the prefix from a range', () => {
    expect(answer('2606:4700:0::1111')).toMatchObject({ asn: 13335, ip: '2606:4700::1111', prefix: '2606:4700::/32', announced: true });
    expect(answer('104.20.1.1')).toMatchObject({ asn: 13335, prefix: '104.16.0.0/12' });
  });

  it('an IP not covered, or covered by AS0: announced false, AS fields null', () => {
    for (const q of ['9.9.9.9', '6.0.0.1', '10.0.0.1']) {
      expect(answer(q)).toMatchObject({ asn: null, name: null, description: null, ip: q, prefix: null, announced: false, prefixes: null, reserved: false });
    }
  });

  it('reserved ASNs: reserved true, whatever the data says', () => {
    expect(answer('AS64512')).toMatchObject({ asn: 64512, reserved: true, name: null, announced: false });
    expect(answer('AS23456')).toMatchObject({ reserved: true });
    expect(answer('5.5.1.1')).toMatchObject({ asn: 65550, reserved: true, announced: true, description: 'Documentation Mud' });
    expect(answer('7.0.0.1')).toMatchObject({ asn: 64777, name: 'PRIVATE-MUD', description: null, reserved: true });
  });

  it('a public ASN absent from every dataset: 200 with null fields', () => {
    expect(answer('AS398765')).toEqual({
      query: 'AS398765', asn: 398765, name: null, description: null, country: null, rir: null, allocated: null, status: null,
      reserved: false, ip: null, prefix: null, announced: false, prefixes: { ipv4: 0, ipv6: 0 }, source: SOURCE,
    });
  });

  it('range data without an AS-names record: description from the range org', () => {
    const noNames = createAsnAnswerer({ prefixes, asns: null });
    const r = noNames('1.1.1.1');
    expect(r).toMatchObject({ asn: 13335, name: null, description: 'Elbonia Cloud, Inc.', rir: null });
    expect(r.source).toEqual({ prefixes: PREFIX_META });
  });

  it('missing datasets: fields null where a dataset is missing, 503 when nothing usable is loaded', () => {
    const namesOnly = createAsnAnswerer({ prefixes: null, asns: new FakeAsns([{ asn: 13335, name: 'X', description: 'Y' }], { registry: false }) });
    expect(namesOnly('AS13335')).toMatchObject({ name: 'X', announced: null, prefixes: null });
    expect(namesOnly('AS13335').source).toEqual({ as_names: NAMES_META });
    expect(expectError(() => namesOnly('1.1.1.1'), 'dataset_unavailable').headers['retry-after']).toBeDefined();
    const none = createAsnAnswerer({ prefixes: null, asns: null });
    expectError(() => none('AS13335'), 'dataset_unavailable');
    expectError(() => none('8.8.8.8'), 'dataset_unavailable');
    expect(none('AS64512')).toMatchObject({ asn: 64512, reserved: true, name: null, announced: null });
  });

  it.each(['AS4294967296', 'AS', 'hello', '1.2.3', '', ' AS1'])('400 invalid_asn for %j', (p) => {
    const e = expectError(() => answer(p), 'invalid_asn');
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/^Invalid ASN query: ".*" is not an AS number \(AS13335, as13335, 13335, asdot AS1\.10; 0 to 4294967295\) or an IPv4\/IPv6 address$/);
  });
});

describe('/v1/asn properties', () => {
  it('asplain, AS-prefixed (any case) and asdot give the same AS', () => {
    fc.assert(
      fc.property(fc.nat({ max: 4294967295 }), fc.constantFrom('AS', 'as', 'As', 'aS', ''), (asn, pre) => {
        const plain = parseAsnQuery(`${pre}${asn}`);
        const dot = parseAsnQuery(`${pre}${Math.floor(asn / 65536)}.${asn % 65536}`);
        expect(plain).toEqual({ kind: 'asn', asn });
        expect(dot).toEqual({ kind: 'asn', asn });
        const a = answer(`${pre}${asn}`);
        expect({ ...answer(`AS${Math.floor(asn / 65536)}.${asn % 65536}`), query: a.query }).toEqual(a);
      }),
      { numRuns: 1000 },
    );
  });

  it('random strings give an answer or a 400 invalid_asn, never anything else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789aAsS.:f '.split('')), maxLength: 24 }), fc.ipV4Extended(), fc.ipV6()), (s) => {
        try {
          answer(s);
        } catch (e) {
          expect(e).toBeInstanceOf(LookupError);
          expect((e as LookupError).code).toBe('invalid_asn');
        }
      }),
      { numRuns: 5000 },
    );
  });
});

describe('serialised answers', () => {
  const queries = fc.oneof(
    fc.constantFrom('AS13335', 'as13335', '13335', 'AS1.10', 'AS64777', 'AS65550', 'AS0', 'AS4294967295', '1.1.1.1', '104.20.1.2', '2606:4700::1111', '5.5.2.1', '6.0.0.1', '7.0.0.9', '8.8.8.8', '"quoted"'),
    fc.nat({ max: 4_294_967_295 }).map((n) => `AS${n}`),
    fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.')),
  );

  it('property: the text and the bytes answers are JSON.stringify of the object answer, memoised parts included', () => {
    const bytes = createAsnBytesAnswerer({ prefixes, asns });
    fc.assert(
      fc.property(queries, (q) => {
        let r;
        try {
          r = answer(q);
        } catch {
          expect(() => bytes(q)).toThrow(); // invalid input: the HTTP layer answers 400, nothing to serialise
          return;
        }
        // Twice each: the second time from the per-object fragments and the memoised parts.
        for (let i = 0; i < 2; i++) {
          expect(asnResultText(r)).toBe(JSON.stringify(r));
          expect(bytes(q).toString('utf8')).toBe(JSON.stringify(r));
        }
      }),
      { numRuns: 1000 },
    );
    // Answers about one AS share their memoised part but keep their own query (and address).
    const withoutQuery = (q: string): unknown => ({ ...(JSON.parse(bytes(q).toString()) as object), query: null });
    expect(withoutQuery('as13335')).toEqual(withoutQuery('13335'));
    expect(JSON.parse(bytes('as13335').toString())).toMatchObject({ query: 'as13335', asn: 13335 });
    expect(JSON.parse(bytes('1.1.1.2').toString())).toMatchObject({ query: '1.1.1.2', ip: '1.1.1.2', prefix: '1.1.1.0/24' });
    expect(JSON.parse(bytes('1.1.1.3').toString())).toMatchObject({ query: '1.1.1.3', ip: '1.1.1.3', prefix: '1.1.1.0/24' });
  });

  it('forgets its encoded parts when a dataset version changes', () => {
    const datasets: { prefixes: FakePrefixes; asns: FakeAsns } = { prefixes, asns };
    const bytes = createAsnBytesAnswerer(datasets);
    const read = (q: string): Record<string, unknown> => JSON.parse(bytes(q).toString()) as Record<string, unknown>;
    expect(read('AS13335')).toMatchObject({ name: 'ELBONIA-CLOUDNET', rir: 'ARIN' });
    expect(read('1.1.1.1')).toMatchObject({ name: 'ELBONIA-CLOUDNET', rir: 'ARIN' });
    datasets.asns = new FakeAsns([{ asn: 13335, name: 'RENAMED-NET' }], { registry: false });
    expect(read('AS13335')).toMatchObject({ name: 'RENAMED-NET', rir: null, source: { prefixes: PREFIX_META, as_names: NAMES_META } });
    expect(read('1.1.1.1')).toMatchObject({ name: 'RENAMED-NET', rir: null });
  });
});
