import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LookupError } from '../../../../src/http/errors.js';
import { asPart, geoFields, rangeInfo } from '../../../../src/lookups/ip/core.js';
import { cidrWithin, parseIp } from '../../../../src/lookups/ip-address.js';
import { createIpAnswerer, createIpBytesAnswerer, type IpDatasets } from '../../../../src/lookups/ip/index.js';
import { createAsnBytesAnswerer } from '../../../../src/lookups/asn/index.js';
import { EMPTY_GEO, FakeAsns, FakeGeo, FakePrefixes, GEO_META, PREFIX_META } from './fakes.js';

// Invented places and networks (Elbonia), so nothing here can be mistaken for real data.
const geo = new FakeGeo([
  ['8.8.8.0', '8.8.8.255', {
    city: 'Mudville', region: 'Northern Elbonia', region_code: 'NE', country_code: 'us', continent_code: null, postal: '94043',
    latitude: 37.422000885009766, longitude: -122.08499908447266, accuracy_radius_km: 50, timezone: null,
  }],
  ['9.9.9.0', '9.9.9.255', {
    city: 'Paris', region: 'Île-de-France', country_code: 'FR', continent_code: 'EU', latitude: 48.8566, longitude: 2.3522, timezone: 'Europe/Paris',
  }],
  ['2001:4860::', '2001:4860:ffff:ffff:ffff:ffff:ffff:ffff', { country_code: 'DE', latitude: 52.52, longitude: 13.405 }],
  ['11.0.0.0', '11.0.0.255', { country_code: 'ZZ' }],
]);
const prefixes = new FakePrefixes([
  ['8.8.4.0', '8.8.11.255', 64999, null],
  ['8.8.8.0', '8.8.8.255', 15169, 'Elbonia Networks'],
  ['9.9.9.0', '9.9.9.255', 19281, null],
  ['12.0.0.0', '12.0.0.255', 0, 'Not routed'],
  ['2001:4860::', '2001:4860:ffff:ffff:ffff:ffff:ffff:ffff', 15169, 'Elbonia Networks'],
]);
const asns = new FakeAsns([{ asn: 19281, name: 'QUAD9-AS', description: 'Mudville Resolver Co-op' }]);
const all: IpDatasets = { geo, prefixes, asns };
const answer = createIpAnswerer(all);

function expectError(fn: () => unknown, code: string, status: number): LookupError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(LookupError);
    expect((e as LookupError).code).toBe(code);
    expect((e as LookupError).status).toBe(status);
    return e as LookupError;
  }
  throw new Error('expected a LookupError');
}

describe('/v1/ip answer', () => {
  it('has every API.md field, in order, with names from codes and rounded coordinates', () => {
    const r = answer('8.8.8.8');
    expect(Object.keys(r)).toEqual([
      'ip', 'version', 'city', 'region', 'region_code', 'country', 'country_code', 'continent', 'postal', 'latitude', 'longitude',
      'accuracy_radius_km', 'timezone', 'asn', 'as_name', 'isp', 'prefix', 'bogon', 'bogon_reason', 'source',
    ]);
    expect(r).toEqual({
      ip: '8.8.8.8', version: 4, city: 'Mudville', region: 'Northern Elbonia', region_code: 'NE',
      country: 'United States', country_code: 'US', continent: 'North America', postal: '94043',
      latitude: 37.422, longitude: -122.085, accuracy_radius_km: 50, timezone: 'America/Los_Angeles',
      asn: 15169, as_name: 'Elbonia Networks', isp: 'AS15169 Elbonia Networks', prefix: '8.8.8.0/24',
      bogon: false, bogon_reason: null,
      source: { geo: GEO_META, asn: PREFIX_META },
    });
  });

  it('keeps the timezone of the data, takes the continent from the data, names the AS from the AS-names data when the range has no org', () => {
    const r = answer('9.9.9.9');
    expect(r).toMatchObject({ country: 'France', continent: 'Europe', timezone: 'Europe/Paris', asn: 19281, as_name: 'Mudville Resolver Co-op', isp: 'AS19281 Mudville Resolver Co-op', prefix: '9.9.9.0/24' });
  });

  it('answers IPv6, compressed, and IPv4-mapped IPv6 as IPv4', () => {
    expect(answer('2001:4860:0:0::8888')).toMatchObject({ ip: '2001:4860::8888', version: 6, country: 'Germany', continent: 'Europe', timezone: 'Europe/Berlin', asn: 15169, prefix: '2001:4860::/32' });
    const mapped = answer('::ffff:8.8.8.8');
    expect(mapped).toEqual(answer('8.8.8.8'));
  });

  it('passes the canonical text to the datasets', () => {
    geo.calls.length = 0;
    answer('::FFFF:0808:0808');
    answer('2001:4860:0000::8888');
    expect(geo.calls).toEqual(['8.8.8.8', '2001:4860::8888']);
  });

  it('a public address missing from the data: 200 with null fields', () => {
    const r = answer('1.2.3.4');
    expect(r).toMatchObject({ ip: '1.2.3.4', city: null, country: null, continent: null, latitude: null, timezone: null, asn: null, as_name: null, isp: null, prefix: null, bogon: false });
  });

  it('"ZZ" is no country; AS0 ranges are no AS', () => {
    expect(answer('11.0.0.1')).toMatchObject({ country: null, country_code: null, continent: null });
    expect(answer('12.0.0.1')).toMatchObject({ asn: null, as_name: null, isp: null, prefix: null });
  });

  it('prefix is the largest CIDR inside the most specific range', () => {
    expect(answer('8.8.5.5').prefix).toBe('8.8.4.0/22');
    expect(answer('8.8.9.1').prefix).toBe('8.8.8.0/22'); // 8.8.8.0/24 is a more specific range only for 8.8.8.x
    expect(answer('8.8.9.1').asn).toBe(64999);
    expect(answer('8.8.9.1').isp).toBe('AS64999');
  });

  it.each([
    ['10.1.2.3', 'private-use (RFC 1918)'],
    ['100.64.1.1', 'shared address space, CGNAT (RFC 6598)'],
    ['::1', 'loopback (RFC 4291)'],
    ['fe80::1', 'link-local (RFC 4291)'],
    ['::ffff:192.168.1.1', 'private-use (RFC 1918)'],
  ])('bogon %s: geo and AS fields null, no dataset consulted', (ip, why) => {
    prefixes.calls.length = 0;
    geo.calls.length = 0;
    const r = answer(ip);
    expect(r).toMatchObject({ bogon: true, bogon_reason: why, city: null, country: null, asn: null, isp: null, prefix: null, latitude: null });
    expect(r.source).toEqual({ special_purpose: { dataset: 'iana-special-purpose-registries (built in)', built_at: null } });
    expect(prefixes.calls).toEqual([]);
    expect(geo.calls).toEqual([]);
  });

  it.each(['1.2.3', '010.1.1.1', '1.2.3.4/32', 'example.com', 'fe80::1%eth0', ' 8.8.8.8', '8.8.8.8 ', '', '::1::'])('400 invalid_ip for %j', (p) => {
    const e = expectError(() => answer(p), 'invalid_ip', 400);
    expect(e.message).toContain('Invalid IP address format: ');
    expect(e.message).toContain('is not an IPv4 or IPv6 address');
  });

  it('the message for "1.2.3" is the one API.md shows', () => {
    expect(expectError(() => answer('1.2.3'), 'invalid_ip', 400).message).toMatch(/^Invalid IP address format: "1\.2\.3" is not an IPv4 or IPv6 address/);
  });

  it('datasets: geo only, prefixes only, neither (503 with Retry-After; bogons still answered)', () => {
    const geoOnly = createIpAnswerer({ geo, prefixes: null, asns: null })('8.8.8.8');
    expect(geoOnly).toMatchObject({ city: 'Mudville', asn: null, isp: null, prefix: null });
    expect(geoOnly.source).toEqual({ geo: GEO_META });
    const asOnly = createIpAnswerer({ geo: null, prefixes, asns: null })('8.8.8.8');
    expect(asOnly).toMatchObject({ city: null, country: null, asn: 15169, prefix: '8.8.8.0/24' });
    expect(asOnly.source).toEqual({ asn: PREFIX_META });
    const none = createIpAnswerer({ geo: null, prefixes: null, asns: null });
    const e = expectError(() => none('8.8.8.8'), 'dataset_unavailable', 503);
    expect(e.headers['retry-after']).toMatch(/^\d+$/);
    expect(none('192.168.0.1')).toMatchObject({ bogon: true, bogon_reason: 'private-use (RFC 1918)' });
  });

  it('follows a dataset swap on the next request (the registry getter is read every time)', () => {
    let current: FakeGeo | null = null;
    const swapping = createIpAnswerer({ get geo() { return current; }, prefixes, asns: null });
    expect(swapping('8.8.8.8').city).toBeNull();
    current = geo;
    expect(swapping('8.8.8.8').city).toBe('Mudville');
  });

  it('a new geo source reuses record keys for other records: no bytes kept for the old one are served', () => {
    // Key 0 is a different record in each source.
    const before = new FakeGeo([['8.8.8.0', '8.8.8.255', { city: 'Mudville', country_code: 'US' }]]);
    const after = new FakeGeo([['8.8.8.0', '8.8.8.255', { city: 'New Mudville', country_code: 'FR' }]]);
    let current = before;
    const bytes = createIpBytesAnswerer({ get geo() { return current; }, prefixes, asns: null });
    expect(JSON.parse(bytes('8.8.8.8').toString())).toMatchObject({ city: 'Mudville', country_code: 'US' });
    current = after;
    expect(JSON.parse(bytes('8.8.8.8').toString())).toMatchObject({ city: 'New Mudville', country_code: 'FR', country: 'France' });
  });

  it('new AS-names data renames ranges without an organisation on the next request', () => {
    let names = new FakeAsns([{ asn: 19281, name: 'QUAD9-AS', description: 'Mudville Resolver Co-op' }]);
    const datasets = { geo, prefixes, get asns() { return names; } };
    const bytes = createIpBytesAnswerer(datasets);
    const object = createIpAnswerer(datasets);
    expect(JSON.parse(bytes('9.9.9.9').toString())).toMatchObject({ as_name: 'Mudville Resolver Co-op' });
    names = new FakeAsns([{ asn: 19281, name: 'QUAD9-AS', description: 'Renamed Resolver Co-op' }]);
    expect(JSON.parse(bytes('9.9.9.9').toString())).toMatchObject({ as_name: 'Renamed Resolver Co-op', isp: 'AS19281 Renamed Resolver Co-op' });
    expect(object('9.9.9.9')).toMatchObject({ as_name: 'Renamed Resolver Co-op' });
  });

  it('a new prefix source reuses range ids for other ranges: nothing memoised from the old one is served', () => {
    // id 0 names a different range, AS and organisation in each source.
    const before = new FakePrefixes([['8.8.8.0', '8.8.8.255', 15169, 'Elbonia Networks']]);
    const after = new FakePrefixes([['8.8.8.0', '8.8.8.127', 64500, 'Renumbered Mud']]);
    let current = before;
    const datasets = { geo, get prefixes() { return current; }, asns: null };
    const object = createIpAnswerer(datasets);
    const bytes = createIpBytesAnswerer(datasets);
    const asn = createAsnBytesAnswerer(datasets);
    expect(object('8.8.8.8')).toMatchObject({ asn: 15169, prefix: '8.8.8.0/24' });
    expect(JSON.parse(bytes('8.8.8.8').toString())).toMatchObject({ asn: 15169, prefix: '8.8.8.0/24' });
    expect(JSON.parse(asn('8.8.8.8').toString())).toMatchObject({ asn: 15169, prefix: '8.8.8.0/24' });
    current = after;
    expect(object('8.8.8.8')).toMatchObject({ asn: 64500, as_name: 'Renumbered Mud', prefix: '8.8.8.0/25' });
    expect(JSON.parse(bytes('8.8.8.8').toString())).toMatchObject({ asn: 64500, as_name: 'Renumbered Mud', prefix: '8.8.8.0/25' });
    expect(JSON.parse(asn('8.8.8.8').toString())).toMatchObject({ asn: 64500, description: 'Renumbered Mud', prefix: '8.8.8.0/25' });
  });
});

describe('range cache', () => {
  it('a range that is one CIDR yields one shared AS part; other ranges compute the block per address', () => {
    const info = rangeInfo({ asn: 15169, start: '8.8.8.0', end: '8.8.8.255', org: 'Elbonia Networks' }, () => null)!;
    expect(info.whole).toEqual({ asn: 15169, as_name: 'Elbonia Networks', isp: 'AS15169 Elbonia Networks', prefix: '8.8.8.0/24' });
    expect(asPart(parseIp('8.8.8.1')!, info)).toBe(info.whole);
    const split = rangeInfo({ asn: 64999, start: '8.8.4.0', end: '8.8.11.255', org: null }, () => 'Fallback Mud')!;
    expect(split.whole).toBeNull();
    expect(asPart(parseIp('8.8.5.1')!, split)).toEqual({ asn: 64999, as_name: 'Fallback Mud', isp: 'AS64999 Fallback Mud', prefix: '8.8.4.0/22' });
    expect(rangeInfo({ asn: 1, start: 'junk', end: '8.8.8.8', org: null }, () => null)).toBeNull();
    expect(rangeInfo({ asn: 1, start: '8.8.8.9', end: '8.8.8.8', org: null }, () => null)).toBeNull();
    expect(rangeInfo({ asn: 1, start: '8.8.8.0', end: '::1', org: null }, () => null)).toBeNull();
  });

  it('property: the memoised IPv4 block equals cidrWithin for every address of a range', () => {
    const t = (v: number) => `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffff }), fc.array(fc.nat({ max: 0xffff }), { minLength: 1, maxLength: 20 }), (s0, width, offsets) => {
        const e0 = Math.min(0xffffffff, s0 + width);
        const info = rangeInfo({ asn: 64500, start: t(s0), end: t(e0), org: 'Mud' }, () => null)!;
        for (const o of offsets) {
          const a = parseIp(t(Math.min(e0, s0 + o)))!;
          const part = asPart(a, info);
          expect(part.prefix).toBe(cidrWithin(a, info.start, info.end));
          expect(asPart(a, info)).toBe(part);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a new AS-names snapshot renames ranges without an organisation', () => {
    let names = new FakeAsns([{ asn: 19281, description: 'Old Mud' }]);
    const a = createIpAnswerer({ geo: null, prefixes, get asns() { return names; } });
    expect(a('9.9.9.9').as_name).toBe('Old Mud');
    names = new FakeAsns([{ asn: 19281, description: 'New Mud' }]);
    expect(a('9.9.9.9').as_name).toBe('New Mud');
  });
});

describe('geo fields', () => {
  it('derives the timezone from coordinates only when the data has none', () => {
    expect(geoFields({ ...EMPTY_GEO, latitude: 51.5074, longitude: -0.1278 }).timezone).toBe('Europe/London');
    expect(geoFields({ ...EMPTY_GEO, latitude: 51.5074, longitude: -0.1278, timezone: 'Etc/UTC' }).timezone).toBe('Etc/UTC');
    expect(geoFields({ ...EMPTY_GEO, latitude: null, longitude: -0.1278 }).timezone).toBeNull();
    expect(geoFields({ ...EMPTY_GEO, latitude: 123, longitude: 500 }).timezone).toBeNull();
  });

  it('turns empty strings into null and names continents from the country when the data has none', () => {
    const f = geoFields({ ...EMPTY_GEO, city: '', region: '', country_code: 'JP', postal: '' });
    expect(f).toMatchObject({ city: null, region: null, postal: null, country: 'Japan', continent: 'Asia' });
    expect(geoFields({ ...EMPTY_GEO, country_code: 'BR' }).continent).toBe('South America');
    expect(geoFields({ ...EMPTY_GEO, country_code: 'AU' }).continent).toBe('Oceania');
    expect(geoFields({ ...EMPTY_GEO, country_code: 'NG' }).continent).toBe('Africa');
    expect(geoFields({ ...EMPTY_GEO, country_code: 'AQ' }).continent).toBe('Antarctica');
    expect(geoFields({ ...EMPTY_GEO, country_code: 'RU' }).continent).toBe('Europe');
  });

  it('rounds to 4 decimals', () => {
    const f = geoFields({ ...EMPTY_GEO, latitude: -33.868800000000004, longitude: 151.20929718017578 });
    expect([f.latitude, f.longitude]).toEqual([-33.8688, 151.2093]);
  });
});

describe('/v1/ip properties', () => {
  it('random strings give an answer or a 400 invalid_ip, never anything else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF:.%/ '.split('')), maxLength: 50 }), fc.ipV4Extended(), fc.ipV6()), (s) => {
        try {
          const r = answer(s);
          expect(typeof r.ip).toBe('string');
        } catch (e) {
          expect(e).toBeInstanceOf(LookupError);
          expect((e as LookupError).code).toBe('invalid_ip');
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('every notation of an IPv4 address (dotted, mapped dotted, mapped hex) gives the same answer', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.boolean(), (v4, upper) => {
        const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
        const hex = `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        const base = answer(v4);
        expect(answer(`::ffff:${v4}`)).toEqual(base);
        expect(answer(upper ? hex.toUpperCase() : hex)).toEqual(base);
        expect(answer(`0:0:0:0:0:ffff:${v4}`)).toEqual(base);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('serialised answers', () => {
  it('equal JSON.stringify of the object answer, field order included, for every kind of address', () => {
    const bytes = createIpBytesAnswerer(all);
    const text = (ip: string): string => bytes(ip).toString('utf8');
    const partialBytes = createIpBytesAnswerer({ geo, prefixes: null, asns: null });
    const partial = [(ip: string) => partialBytes(ip).toString('utf8'), createIpAnswerer({ geo, prefixes: null, asns: null })] as const;
    for (const ip of ['8.8.8.8', '8.8.8.8', '8.8.5.1', '8.8.10.200', '9.9.9.9', '2001:4860::8888', '11.0.0.1', '12.0.0.7', '13.1.1.1', '10.0.0.1', '::ffff:8.8.8.8']) {
      expect(text(ip), ip).toBe(JSON.stringify(answer(ip)));
      expect(partial[0](ip), ip).toBe(JSON.stringify(partial[1](ip)));
    }
  });

  it('agree on random public addresses too', () => {
    const bytes = createIpBytesAnswerer(all);
    const text = (ip: string): string => bytes(ip).toString('utf8');
    fc.assert(fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (ip) => {
      expect(text(ip)).toBe(JSON.stringify(answer(ip)));
    }), { numRuns: 300 });
  });
});
