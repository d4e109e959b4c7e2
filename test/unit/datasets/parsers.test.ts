import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CsvRecords, parseCsvRecord } from '../../../src/datasets/parse/csv.js';
import { IeeeCsvParser, IeeeTxtParser, parseOuiDataJson, splitCountry, detectOuiFormat, type OuiRow } from '../../../src/datasets/parse/oui.js';
import { AsNamesParser, RirParser, parseAsNameLine, type AsNameRow, type RirRow } from '../../../src/datasets/parse/asn.js';
import { PrefixParser, detectPrefixFormat, parseOrigin, type PrefixRow } from '../../../src/datasets/parse/prefixes.js';
import { FormatError, type LineParser, type Sink } from '../../../src/datasets/parse/sink.js';
import { countryCodeFromName, isCountryCode } from '../../../src/datasets/parse/countries.js';
import { formatV4, formatV6 } from '../../../src/datasets/ip.js';

function collect<T>(make: (sink: Sink<T>) => LineParser, text: string): { rows: T[]; rejects: [number, string][] } {
  const rows: T[] = [];
  const rejects: [number, string][] = [];
  const p = make({ row: (r) => rows.push(r), reject: (n, reason) => rejects.push([n, reason]) });
  text.split('\n').forEach((line, i) => p.push(line.replace(/\r$/, ''), i + 1));
  p.end();
  return { rows, rejects };
}

/** RFC 4180 encoding of one field. */
const csvField = (s: string): string => (/[",\n]/.test(s) || s === '' ? `"${s.replace(/"/g, '""')}"` : s);

describe('CSV (RFC 4180)', () => {
  it('handles quotes, doubled quotes, commas and line breaks', () => {
    expect(parseCsvRecord('a,"b, c","d ""e"""')).toEqual({ ok: true, fields: ['a', 'b, c', 'd "e"'] });
    expect(parseCsvRecord('a,"open')).toEqual({ ok: 'open' });
    expect(parseCsvRecord('a,b"c').ok).toBe(false);
    expect(parseCsvRecord('"a"x,b').ok).toBe(false);
    const got: [string[], number][] = [];
    const errs: number[] = [];
    const r = new CsvRecords((f, n) => got.push([f, n]), (n) => errs.push(n));
    ['x,"multi', 'line",y', 'z,"never closed'].forEach((l, i) => r.push(l, i + 1));
    r.end();
    expect(got).toEqual([[['x', 'multi\nline', 'y'], 1]]);
    expect(errs).toEqual([3]);
  });

  it('parses whatever a correct writer produced (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', ' ', 'é') }), { minLength: 1, maxLength: 6 }), (fields) => {
        const text = fields.map(csvField).join(',');
        const out: string[][] = [];
        const r = new CsvRecords((f) => out.push(f), () => out.push(['ERR']));
        text.split('\n').forEach((l, i) => r.push(l, i + 1));
        r.end();
        return out.length === 1 && JSON.stringify(out[0]) === JSON.stringify(fields);
      }),
    );
  });
});

describe('countries', () => {
  it('knows codes and names, including ISO spellings', () => {
    expect(isCountryCode('US')).toBe(true);
    expect(isCountryCode('ZZ')).toBe(false);
    expect(isCountryCode('EU')).toBe(false);
    expect(countryCodeFromName('United States')).toBe('US');
    expect(countryCodeFromName('Korea, Republic of')).toBe('KR');
    expect(countryCodeFromName('Taiwan, Province of China')).toBe('TW');
    expect(countryCodeFromName('Viet Nam')).toBe('VN');
    expect(countryCodeFromName('Germany')).toBe('DE');
    expect(countryCodeFromName('United Kingdom')).toBe('GB');
    expect(isCountryCode('UK')).toBe(false);
    expect(countryCodeFromName('Atlantis')).toBeNull();
  });
});

describe('IEEE registry CSV', () => {
  const csv = [
    'Registry,Assignment,Organization Name,Organization Address',
    'MA-L,002272,American Micro-Fuel Device Corp.,2181 Buchanan Loop Ferndale WA US 98248',
    'MA-L,00000C,"Cisco Systems, Inc",170 WEST TASMAN DRIVE SAN JOSE CA US 95134-1706',
    'MA-L,B827EB,Raspberry Pi Foundation,Mitchell Wood House Caldecote Cambridgeshire GB CB23 7NU',
    'MA-L,A0B1C2,"Vendor ""Quoted"" BV",High Tech Campus Eindhoven NL 5656 AE',
    'MA-L,100000,Private,',
    'MA-M,8C1F64D,Example Devices GmbH,Werner-von-Siemens-Str. 13 Olching Bavaria DE 82140',
    'MA-S,70B3D5001,SOREDI touch systems GmbH,Werner-von-Siemens-Str. 13 Olching  DE 82140',
    'XX-L,123456,Bad Registry,Somewhere US',
    'MA-L,12345,Short,Somewhere US',
    'MA-L,ABCDEF,"unterminated, US',
  ].join('\n');

  it('reads rows, folds the country out of the address, rejects bad lines with their numbers', () => {
    const { rows, rejects } = collect<OuiRow>((s) => new IeeeCsvParser(s), csv);
    expect(rows.map((r) => [r.prefix, r.registry, r.bits, r.country])).toEqual([
      ['002272', 'MA-L', 24, 'US'],
      ['00000C', 'MA-L', 24, 'US'],
      ['B827EB', 'MA-L', 24, 'GB'],
      ['A0B1C2', 'MA-L', 24, 'NL'],
      ['100000', 'MA-L', 24, null],
      ['8C1F64D', 'MA-M', 28, 'DE'],
      ['70B3D5001', 'MA-S', 36, 'DE'],
    ]);
    expect(rows[0]!.address).toBe('2181 Buchanan Loop Ferndale WA 98248');
    expect(rows[1]!.vendor).toBe('Cisco Systems, Inc');
    expect(rows[3]!.vendor).toBe('Vendor "Quoted" BV');
    expect(rows[4]).toMatchObject({ vendor: 'Private', address: null, country: null });
    expect(rejects.map((r) => r[0])).toEqual([9, 10, 11]);
    expect(rejects[2]![1]).toMatch(/not closed/);
  });

  it('refuses a file without the header', () => {
    expect(() => collect<OuiRow>((s) => new IeeeCsvParser(s), '1.0.0.0,1.0.0.255,13335,x')).toThrow(FormatError);
  });

  it('splits the country for state codes that are also country codes', () => {
    expect(splitCountry('1 Main St Toronto ON CA M5V 2T6')).toEqual({ address: '1 Main St Toronto ON M5V 2T6', country: 'CA' });
    expect(splitCountry('Berlin  DE')).toEqual({ address: 'Berlin', country: 'DE' });
    expect(splitCountry('nowhere at all')).toEqual({ address: 'nowhere at all', country: null });
  });
});

describe('IEEE registry TXT', () => {
  const txt = [
    'OUI/MA-L                                                    Organization',
    'company_id                                                  Organization',
    '                                                            Address',
    '',
    '00-22-72   (hex)\t\tAmerican Micro-Fuel Device Corp.',
    '002272     (base 16)\t\tAmerican Micro-Fuel Device Corp.',
    '\t\t\t\t2181 Buchanan Loop',
    '\t\t\t\tFerndale  WA  98248',
    '\t\t\t\tUS',
    '',
    '10-00-00   (hex)\t\tPrivate',
    '100000     (base 16)\t\tPrivate',
    '',
    '8C-1F-64   (hex)\t\tExample Devices GmbH',
    'D00000-DFFFFF     (base 16)\t\tExample Devices GmbH',
    '\t\t\t\tWerner-von-Siemens-Str. 13',
    '\t\t\t\tOlching Bavaria 82140',
    '\t\t\t\tDE',
    '',
    '70-B3-D5   (hex)\t\tSOREDI touch systems GmbH',
    '001000-001FFF     (base 16)\t\tSOREDI touch systems GmbH',
    '\t\t\t\tDE',
    '',
    '12-34-56   (hex)\t\tBroken',
    'garbage line',
    '',
  ].join('\r\n');

  it('reads entries with address lines and the country on its own line', () => {
    const { rows, rejects } = collect<OuiRow>((s) => new IeeeTxtParser(s), txt);
    expect(rows).toEqual([
      { prefix: '002272', bits: 24, registry: 'MA-L', vendor: 'American Micro-Fuel Device Corp.', address: '2181 Buchanan Loop, Ferndale WA 98248', country: 'US' },
      { prefix: '100000', bits: 24, registry: 'MA-L', vendor: 'Private', address: null, country: null },
      { prefix: '8C1F64D', bits: 28, registry: 'MA-M', vendor: 'Example Devices GmbH', address: 'Werner-von-Siemens-Str. 13, Olching Bavaria 82140', country: 'DE' },
      { prefix: '70B3D5001', bits: 36, registry: 'MA-S', vendor: 'SOREDI touch systems GmbH', address: null, country: 'DE' },
    ]);
    expect(rejects.map((r) => r[0])).toEqual([25]);
  });

  it('names IAB and CID files from their header', () => {
    const iab = 'IAB Range\n\n00-50-C2   (hex)\t\tAcme\n000000-000FFF     (base 16)\t\tAcme\n\t\t\t\tUS\n';
    expect(collect<OuiRow>((s) => new IeeeTxtParser(s), iab).rows[0]).toMatchObject({ prefix: '0050C2000', registry: 'IAB', bits: 36 });
    const cid = 'CID                Organization\n\nDA-A1-19   (hex)\t\tGoogle\nDAA119     (base 16)\t\tGoogle\n\t\t\t\tUS\n';
    expect(collect<OuiRow>((s) => new IeeeTxtParser(s), cid).rows[0]).toMatchObject({ prefix: 'DAA119', registry: 'CID', bits: 24 });
  });

  it('detects the format from the first bytes', () => {
    expect(detectOuiFormat(txt)).toBe('txt');
    expect(detectOuiFormat('Registry,Assignment,Organization Name,Organization Address\n')).toBe('csv');
    expect(detectOuiFormat('{\n "000000": "X"\n}')).toBe('json');
    expect(detectOuiFormat('1.0.0.0\t24\t13335')).toBeNull();
  });
});

describe('oui-data JSON', () => {
  it('maps country names to codes and keeps IEEE RA parents as rows', () => {
    const rows: OuiRow[] = [];
    const rejects: number[] = [];
    parseOuiDataJson(
      JSON.stringify({
        B827EB: 'Raspberry Pi Foundation\nMitchell Wood House\nCaldecote Cambridgeshire CB23 7NU\nUnited Kingdom',
        '70B3D5': 'IEEE Registration Authority\n445 Hoes Lane\nPiscataway NJ 08554\nUnited States',
        '70B3D5001': 'SOREDI touch systems GmbH\nWerner-von-Siemens-Str. 13\nOlching Bavaria 82140\nGermany',
        '8C1F64D': 'Example\nKorea, Republic of',
        '100000': 'Private',
        XYZ: 'bad key',
      }),
      { row: (r) => rows.push(r), reject: (n) => rejects.push(n) },
    );
    // Object key order puts integer-like keys ("100000") first; compare sorted.
    rows.sort((a, b) => (a.prefix < b.prefix ? -1 : 1));
    expect(rows.map((r) => [r.prefix, r.registry, r.country, r.address])).toEqual([
      ['100000', 'MA-L', null, null],
      ['70B3D5', 'MA-L', 'US', '445 Hoes Lane, Piscataway NJ 08554'],
      ['70B3D5001', 'MA-S', 'DE', 'Werner-von-Siemens-Str. 13, Olching Bavaria 82140'],
      ['8C1F64D', 'MA-M', 'KR', null],
      ['B827EB', 'MA-L', 'GB', 'Mitchell Wood House, Caldecote Cambridgeshire CB23 7NU'],
    ]);
    expect(rejects).toEqual([7]);
  });

  it('rejects broken JSON with a line number', () => {
    try {
      parseOuiDataJson('{\n"000000": "X",\n oops\n}', { row() {}, reject() {} });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(FormatError);
      expect((e as FormatError).lineNo).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('RIR delegated-extended', () => {
  const text = [
    '# comment line',
    '2|arin|1700000000|25000|19700101|20240101|-0500',
    'arin|*|asn|*|3|summary',
    'arin|*|ipv4|*|1|summary',
    'arin|US|asn|13335|1|20100714|assigned|abc123',
    'arin|US|asn|1000|24|19920101|allocated|x',
    'arin||asn|4200|10|00000000|available||',
    'ripencc|DE|asn|3320|1|19930901|allocated|y',
    'apnic|JP|ipv4|1.0.16.0|4096|20110412|allocated|z',
    'arin|US|asn|notanumber|1|20100714|assigned',
    'arin|US|asn|1|1|2010-07-14|assigned',
    'arin|US|asn|1|1',
    'arin|US|asn|7|1|20100714|stolen',
  ].join('\n');

  it('reads ASN rows, skips header/summary/comments/IP rows, rejects malformed rows', () => {
    const { rows, rejects } = collect<RirRow>((s) => new RirParser(s), text);
    expect(rows).toEqual([
      { start: 13335, count: 1, rir: 'ARIN', country: 'US', allocated: '2010-07-14', status: 'assigned' },
      { start: 1000, count: 24, rir: 'ARIN', country: 'US', allocated: '1992-01-01', status: 'allocated' },
      { start: 4200, count: 10, rir: 'ARIN', country: null, allocated: null, status: 'available' },
      { start: 3320, count: 1, rir: 'RIPE NCC', country: 'DE', allocated: '1993-09-01', status: 'allocated' },
    ]);
    expect(rejects.map((r) => r[0])).toEqual([10, 11, 12, 13]);
  });

  it('round-trips generated rows (property)', () => {
    const row = fc.record({
      rir: fc.constantFrom('arin', 'ripencc', 'apnic', 'lacnic', 'afrinic'),
      cc: fc.constantFrom('US', 'DE', 'JP', 'BR', 'ZA', ''),
      start: fc.integer({ min: 0, max: 4_000_000_000 }),
      count: fc.integer({ min: 1, max: 1000 }),
      date: fc.date({ min: new Date('1985-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }),
      status: fc.constantFrom('allocated', 'assigned', 'available', 'reserved'),
    });
    fc.assert(
      fc.property(row, (r) => {
        const ymd = r.date.toISOString().slice(0, 10);
        const line = `${r.rir}|${r.cc}|asn|${r.start}|${r.count}|${ymd.replace(/-/g, '')}|${r.status}|opaque`;
        const { rows, rejects } = collect<RirRow>((s) => new RirParser(s), line);
        return rejects.length === 0 && rows.length === 1 && rows[0]!.start === r.start && rows[0]!.count === r.count && rows[0]!.allocated === ymd && rows[0]!.country === (r.cc || null);
      }),
    );
  });
});

describe('AS names', () => {
  it('splits name, description and country', () => {
    expect(parseAsNameLine('13335 CLOUDFLARENET - Cloudflare, Inc., US')).toEqual({ asn: 13335, name: 'CLOUDFLARENET', description: 'Cloudflare, Inc.', country: 'US' });
    expect(parseAsNameLine('7 DSTL, GB')).toEqual({ asn: 7, name: 'DSTL', description: null, country: 'GB' });
    expect(parseAsNameLine('23456 -Reserved AS-, ZZ')).toEqual({ asn: 23456, name: '-Reserved AS-', description: null, country: null });
    expect(parseAsNameLine('AS64512 PRIVATE')).toEqual({ asn: 64512, name: 'PRIVATE', description: null, country: null });
    expect(typeof parseAsNameLine('not a line')).toBe('string');
    expect(typeof parseAsNameLine('99999999999 TOO-BIG, US')).toBe('string');
  });

  it('reports bad lines by number', () => {
    const { rows, rejects } = collect<AsNameRow>((s) => new AsNamesParser(s), '1 LVLT-1 - Level 3 Parent, LLC, US\n\nbroken\n2 UDEL-DCN - University of Delaware, US');
    expect(rows.map((r) => r.asn)).toEqual([1, 2]);
    expect(rows[0]!.description).toBe('Level 3 Parent, LLC');
    expect(rejects.map((r) => r[0])).toEqual([3]);
  });

  it('round-trips generated lines (property)', () => {
    const word = fc.stringMatching(/^[A-Z][A-Z0-9-]{0,15}$/);
    const desc = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 .,&]{0,30}[A-Za-z.]$/);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4294967295 }), word, desc, fc.constantFrom('US', 'DE', 'FR', 'JP'), (asn, name, d, cc) => {
        const r = parseAsNameLine(`${asn} ${name} - ${d}, ${cc}`);
        return typeof r !== 'string' && r.asn === asn && r.name === name && r.description === d.trim() && r.country === cc;
      }),
    );
  });
});

describe('prefix dumps', () => {
  it('reads pfx2as with multi-origin and AS-set rows, IPv4 and IPv6', () => {
    const text = ['1.0.0.0\t24\t13335', '8.8.8.0\t24\t15169_36040', '10.0.0.0\t8\t64512,64513', '2001:db8::\t32\t{65000,65001}', '1.2.3.0\t33\t1', 'junk', '1.2.3.0\t24\tAS1'].join('\n');
    const { rows, rejects } = collect<PrefixRow>((s) => new PrefixParser(s), text);
    expect(rows.map((r) => [r.family, r.family === 4 ? formatV4(r.start) : formatV6(r.start), r.family === 4 ? formatV4(r.end) : formatV6(r.end), r.asn])).toEqual([
      [4, '1.0.0.0', '1.0.0.255', 13335],
      [4, '8.8.8.0', '8.8.8.255', 15169],
      [4, '10.0.0.0', '10.255.255.255', 64512],
      [6, '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 65000],
    ]);
    expect(rejects.map((r) => r[0])).toEqual([5, 6, 7]);
  });

  it('reads ip2asn TSV and skips "Not routed" (AS 0)', () => {
    const text = ['1.0.0.0\t1.0.0.255\t13335\tUS\tCLOUDFLARENET', '1.0.1.0\t1.0.3.255\t0\tNone\tNot routed', '2001:200::\t2001:200:ffff:ffff:ffff:ffff:ffff:ffff\t2500\tJP\tWIDE-BB WIDE Project', '1.0.5.0\t1.0.4.0\t1\tUS\tbackwards'].join('\n');
    const { rows, rejects } = collect<PrefixRow>((s) => new PrefixParser(s), text);
    expect(rows.map((r) => [r.family, r.asn, r.org])).toEqual([
      [4, 13335, 'CLOUDFLARENET'],
      [6, 2500, 'WIDE-BB WIDE Project'],
    ]);
    expect(rejects).toEqual([[4, 'range end is before its start']]);
  });

  it('reads the ip-location-db CSV with RFC 4180 quoting', () => {
    const text = ['1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."', '5.8.0.0,5.8.7.255,1234,"LLC ""SPUTNIK"""', '2001::,2001::ffff:ffff:ffff:ffff:ffff:ffff,6939,Hurricane Electric LLC', '1.1.1.1,nope,1,x'].join('\n');
    const { rows, rejects } = collect<PrefixRow>((s) => new PrefixParser(s), text);
    expect(rows.map((r) => r.org)).toEqual(['Cloudflare, Inc.', 'LLC "SPUTNIK"', 'Hurricane Electric LLC']);
    expect(rejects.map((r) => r[0])).toEqual([4]);
  });

  it('detects formats and refuses other files', () => {
    expect(detectPrefixFormat('1.0.0.0\t24\t13335')).toBe('pfx2as');
    expect(detectPrefixFormat('1.0.0.0\t1.0.0.255\t13335\tUS\tX')).toBe('ip2asn');
    expect(detectPrefixFormat('1.0.0.0,1.0.0.255,13335,X')).toBe('ip-location-db');
    expect(() => collect<PrefixRow>((s) => new PrefixParser(s), 'Registry,Assignment,Organization Name,Organization Address')).toThrow(FormatError);
  });

  it('parses origins', () => {
    expect(parseOrigin('13335')).toBe(13335);
    expect(parseOrigin('1_2_3')).toBe(1);
    expect(parseOrigin('7,8')).toBe(7);
    expect(parseOrigin('{9,10}')).toBe(9);
    expect(parseOrigin('x')).toBeNull();
    expect(parseOrigin('4294967296')).toBeNull();
  });

  it('round-trips generated pfx2as and CSV lines (property)', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 0, max: 32 }), fc.integer({ min: 1, max: 4294967295 }), fc.string({ maxLength: 20 }), (ip, bits, asn, org) => {
        const pfx = collect<PrefixRow>((s) => new PrefixParser(s), `${ip}\t${bits}\t${asn}`);
        const r = pfx.rows[0];
        if (pfx.rejects.length > 0 || r === undefined || r.asn !== asn || r.family !== 4) return false;
        if (r.end - r.start + 1 !== 2 ** (32 - bits)) return false;
        const clean = org.replace(/[\r\n]/g, ' ').trim();
        const csv = collect<PrefixRow>((s) => new PrefixParser(s), `${ip},${ip},${asn},${csvField(clean)}`);
        return csv.rejects.length === 0 && csv.rows[0]?.org === (clean === '' ? null : clean);
      }),
    );
  });
});

describe('OUI and ip2asn parsers (properties)', () => {
  const registry = fc.constantFrom(['MA-L', 6], ['MA-M', 7], ['MA-S', 9], ['IAB', 9], ['CID', 6]) as fc.Arbitrary<[string, number]>;
  const vendor = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,."&-]{0,30}[A-Za-z0-9.]$/);
  const street = fc.stringMatching(/^[0-9]{1,4} [A-Z][a-z]{2,10} (Street|Road|Loop)$/);
  const city = fc.stringMatching(/^[A-Z][a-z]{2,12}$/);
  const cc = fc.constantFrom('US', 'DE', 'GB', 'JP', 'CN', 'NL', 'FR', 'TW', 'KR');
  const postcode = fc.constantFrom('98248', 'CB23 7NU', '5656 AE', '105-0011', '');

  it('IEEE CSV: registry, assignment, vendor and country survive the round trip', () => {
    fc.assert(
      fc.property(registry, fc.stringMatching(/^[0-9A-F]{9}$/), vendor, street, city, cc, postcode, ([reg, digits], hex, v, st, c, country, pc) => {
        const line = `${reg},${hex.slice(0, digits)},${csvField(v)},${csvField(`${st} ${c} ${country} ${pc}`.trim())}`;
        const { rows, rejects } = collect<OuiRow>((s) => new IeeeCsvParser(s), `Registry,Assignment,Organization Name,Organization Address\n${line}`);
        const r = rows[0];
        return rejects.length === 0 && r !== undefined && r.registry === reg && r.prefix === hex.slice(0, digits) && r.vendor === v.replace(/\s+/g, ' ').trim() && r.country === country;
      }),
    );
  });

  it('IEEE TXT: entries round-trip, country on its own line', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9A-F]{6}$/), vendor, street, city, cc, (hex, v, st, c, country) => {
        const name = v.replace(/\s+/g, ' ').trim();
        const text = [`${hex.slice(0, 2)}-${hex.slice(2, 4)}-${hex.slice(4)}   (hex)\t\t${name}`, `${hex}     (base 16)\t\t${name}`, `\t\t\t\t${st}`, `\t\t\t\t${c}`, `\t\t\t\t${country}`, ''].join('\n');
        const { rows, rejects } = collect<OuiRow>((s) => new IeeeTxtParser(s), text);
        return rejects.length === 0 && rows.length === 1 && rows[0]!.prefix === hex && rows[0]!.vendor === name && rows[0]!.country === country && rows[0]!.address === `${st}, ${c}`;
      }),
    );
  });

  it('oui-data JSON: every well-formed entry becomes a row', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[0-9A-F]{6}$/), fc.tuple(vendor, city), { maxKeys: 20 }), (entries) => {
        const json = Object.fromEntries(Object.entries(entries).map(([k, [v, c]]) => [k, `${v}\n${c}\nGermany`]));
        const rows: OuiRow[] = [];
        parseOuiDataJson(JSON.stringify(json), { row: (r) => rows.push(r), reject: () => rows.push(null as never) });
        return rows.length === Object.keys(json).length && rows.every((r) => r !== null && r.country === 'DE' && r.bits === 24);
      }),
    );
  });

  it('ip2asn TSV: IPv4 and IPv6 ranges round-trip', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), fc.integer({ min: 1, max: 4294967295 }), cc, vendor, (ip, asn, country, desc) => {
        const line = `${ip}\t${ip}\t${asn}\t${country}\t${desc}`;
        const { rows, rejects } = collect<PrefixRow>((s) => new PrefixParser(s, 'ip2asn'), line);
        const r = rows[0];
        return rejects.length === 0 && r !== undefined && r.asn === asn && r.start === r.end && r.org === desc.trim();
      }),
    );
  });
});
