// BGP prefix → origin AS dumps: RouteViews pfx2as, iptoasn ip2asn TSV, ip-location-db ASN CSV.
import { cidrRangeV4, cidrRangeV6, parseV4, parseV6 } from '../ip.js';
import { CsvRecords } from './csv.js';
import { FormatError, type LineParser, type Sink } from './sink.js';

export type PrefixRow =
  | { readonly family: 4; readonly start: number; readonly end: number; readonly asn: number; readonly org: string | null }
  | { readonly family: 6; readonly start: bigint; readonly end: bigint; readonly asn: number; readonly org: string | null };

export type PrefixFormat = 'pfx2as' | 'ip2asn' | 'ip-location-db';

const MAX_ASN = 4294967295;

/** pfx2as origins: `13335`, multi-origin `a_b`, AS-set `a,b` (or `{a,b}`). The first origin is kept. */
export function parseOrigin(field: string): number | null {
  const t = field.trim();
  if (!/^\{?\d{1,10}\}?(?:[_,]\{?\d{1,10}\}?)*$/.test(t)) return null;
  const asn = Number(/\d+/.exec(t)![0]);
  return asn <= MAX_ASN ? asn : null;
}

function parseAsn(field: string): number | null {
  const t = field.trim().replace(/^AS/i, '');
  if (!/^\d{1,10}$/.test(t)) return null;
  const n = Number(t);
  return n <= MAX_ASN ? n : null;
}

type Range = { family: 4; start: number; end: number } | { family: 6; start: bigint; end: bigint };

function parseRange(a: string, b: string): Range | string {
  const s4 = parseV4(a);
  if (s4 >= 0) {
    const e4 = parseV4(b);
    if (e4 < 0) return `end ${JSON.stringify(b)} is not an IPv4 address`;
    if (e4 < s4) return 'range end is before its start';
    return { family: 4, start: s4, end: e4 };
  }
  const s6 = parseV6(a);
  if (s6 === null) return `start ${JSON.stringify(a)} is not an IP address`;
  const e6 = parseV6(b);
  if (e6 === null) return `end ${JSON.stringify(b)} is not an IPv6 address`;
  if (e6 < s6) return 'range end is before its start';
  return { family: 6, start: s6, end: e6 };
}

/** Picks the format from the first data line. */
export function detectPrefixFormat(line: string): PrefixFormat | null {
  if (line.includes('\t')) {
    const f = line.split('\t');
    if (f.length === 3 && /^\d{1,3}$/.test(f[1]!.trim())) return 'pfx2as';
    if (f.length >= 3 && (parseV4(f[1]!.trim()) >= 0 || parseV6(f[1]!.trim()) !== null)) return 'ip2asn';
    return null;
  }
  const f = line.split(',');
  if (f.length >= 3 && (parseV4(f[0]!) >= 0 || parseV6(f[0]!) !== null)) return 'ip-location-db';
  return null;
}

/** Detects the format on the first data line, then parses every line with it. */
export class PrefixParser implements LineParser {
  private format: PrefixFormat | null = null;
  private csv: CsvRecords | null = null;

  constructor(private readonly sink: Sink<PrefixRow>, format: PrefixFormat | null = null) {
    this.format = format;
  }

  get detected(): PrefixFormat | null {
    return this.format;
  }

  push(line: string, lineNo: number): void {
    if (this.format === null) {
      const t = line.trim();
      if (t === '' || t.startsWith('#')) return;
      this.format = detectPrefixFormat(line);
      if (this.format === null) {
        throw new FormatError(lineNo, 'not a prefix file: expected pfx2as ("prefix<TAB>length<TAB>asn"), ip2asn ("start<TAB>end<TAB>asn<TAB>cc<TAB>description") or CSV ("start,end,asn,org")');
      }
    }
    switch (this.format) {
      case 'pfx2as':
        return this.pfx2as(line, lineNo);
      case 'ip2asn':
        return this.ip2asn(line, lineNo);
      case 'ip-location-db':
        this.csv ??= new CsvRecords((f, n) => this.locationDb(f, n), (n, r) => this.sink.reject(n, r));
        if (line.trim() === '') return;
        return this.csv.push(line, lineNo);
    }
  }

  end(): void {
    this.csv?.end();
  }

  private pfx2as(line: string, lineNo: number): void {
    if (line.trim() === '' || line.startsWith('#')) return;
    const f = line.split('\t');
    if (f.length !== 3) return this.sink.reject(lineNo, `expected 3 tab-separated fields (prefix, length, origin), found ${f.length}`);
    const base = f[0]!.trim();
    const bitsText = f[1]!.trim();
    if (!/^\d{1,3}$/.test(bitsText)) return this.sink.reject(lineNo, `prefix length ${JSON.stringify(bitsText)} is not a number`);
    const bits = Number(bitsText);
    const asn = parseOrigin(f[2]!);
    if (asn === null) return this.sink.reject(lineNo, `origin ${JSON.stringify(f[2])} is not an AS number, a_b list or AS-set`);
    const v4 = parseV4(base);
    if (v4 >= 0) {
      if (bits > 32) return this.sink.reject(lineNo, `IPv4 prefix length ${bits} is over 32`);
      const [start, end] = cidrRangeV4(v4, bits);
      return this.sink.row({ family: 4, start, end, asn, org: null }, lineNo);
    }
    const v6 = parseV6(base);
    if (v6 === null) return this.sink.reject(lineNo, `prefix ${JSON.stringify(base)} is not an IP address`);
    if (bits > 128) return this.sink.reject(lineNo, `IPv6 prefix length ${bits} is over 128`);
    const [start, end] = cidrRangeV6(v6, bits);
    this.sink.row({ family: 6, start, end, asn, org: null }, lineNo);
  }

  private ip2asn(line: string, lineNo: number): void {
    if (line.trim() === '' || line.startsWith('#')) return;
    const f = line.split('\t');
    if (f.length < 3) return this.sink.reject(lineNo, `expected 5 tab-separated fields (start, end, asn, country, description), found ${f.length}`);
    const range = parseRange(f[0]!.trim(), f[1]!.trim());
    if (typeof range === 'string') return this.sink.reject(lineNo, range);
    const asn = parseAsn(f[2]!);
    if (asn === null) return this.sink.reject(lineNo, `AS number ${JSON.stringify(f[2])} is not a whole number`);
    // iptoasn lists unannounced space as AS 0 "Not routed": that is the absence of a prefix.
    if (asn === 0) return;
    const org = (f[4] ?? '').trim();
    this.sink.row({ ...range, asn, org: org === '' || org === 'Not routed' ? null : org } as PrefixRow, lineNo);
  }

  private locationDb(f: string[], lineNo: number): void {
    if (f.length < 3 || f.length > 4) return this.sink.reject(lineNo, `expected 4 comma-separated fields (start, end, asn, org), found ${f.length}`);
    const range = parseRange(f[0]!.trim(), f[1]!.trim());
    if (typeof range === 'string') return this.sink.reject(lineNo, range);
    const asn = parseAsn(f[2]!);
    if (asn === null) return this.sink.reject(lineNo, `AS number ${JSON.stringify(f[2])} is not a whole number`);
    const org = (f[3] ?? '').trim();
    this.sink.row({ ...range, asn, org: org === '' ? null : org } as PrefixRow, lineNo);
  }
}
