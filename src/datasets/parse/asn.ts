// RIR delegated-extended statistics (ASN rows) and AS-name lists (asn.txt).
import { isCountryCode } from './countries.js';
import type { LineParser, Sink } from './sink.js';

export interface RirRow {
  readonly start: number;
  /** How many consecutive AS numbers the row covers (the `value` column). */
  readonly count: number;
  readonly rir: string;
  readonly country: string | null;
  /** YYYY-MM-DD */
  readonly allocated: string | null;
  readonly status: string;
}

const RIR_NAMES: Record<string, string> = {
  arin: 'ARIN',
  ripencc: 'RIPE NCC',
  ripe: 'RIPE NCC',
  apnic: 'APNIC',
  lacnic: 'LACNIC',
  afrinic: 'AFRINIC',
  iana: 'IANA',
};
const STATUSES = new Set(['allocated', 'assigned', 'available', 'reserved']);
const MAX_ASN = 4294967295;

function isoDate(d: string): string | null | undefined {
  if (d === '' || /^0+$/.test(d)) return null;
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(d);
  if (m === null) return undefined;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/**
 * `registry|cc|type|start|value|date|status[|opaque-id|extensions]`. The version line
 * (`2|apnic|20240101|…`), summary lines (`apnic|*|asn|*|123|summary`) and `#` comments are skipped,
 * as are the ipv4/ipv6 rows (the prefix data covers addresses).
 */
export class RirParser implements LineParser {
  constructor(private readonly sink: Sink<RirRow>) {}

  push(line: string, lineNo: number): void {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) return;
    const f = t.split('|');
    if (/^\d+(\.\d+)?$/.test(f[0]!)) return; // version line
    if (f[1] === '*' || f[f.length - 1] === 'summary') return;
    if (f.length < 7) return this.sink.reject(lineNo, `expected at least 7 "|"-separated fields, found ${f.length}`);
    const rir = RIR_NAMES[f[0]!.toLowerCase()];
    if (rir === undefined) return this.sink.reject(lineNo, `unknown registry ${JSON.stringify(f[0])}`);
    const type = f[2]!.toLowerCase();
    if (type === 'ipv4' || type === 'ipv6') return;
    if (type !== 'asn') return this.sink.reject(lineNo, `unknown type ${JSON.stringify(f[2])} (expected asn, ipv4 or ipv6)`);
    if (!/^\d{1,10}$/.test(f[3]!) || !/^\d{1,10}$/.test(f[4]!)) return this.sink.reject(lineNo, 'start and value must be whole numbers');
    const start = Number(f[3]);
    const count = Number(f[4]);
    if (count < 1 || start + count - 1 > MAX_ASN) return this.sink.reject(lineNo, `AS block ${start}+${count} is outside 0–${MAX_ASN}`);
    const allocated = isoDate(f[5]!);
    if (allocated === undefined) return this.sink.reject(lineNo, `date ${JSON.stringify(f[5])} is not YYYYMMDD`);
    const status = f[6]!.toLowerCase();
    if (!STATUSES.has(status)) return this.sink.reject(lineNo, `unknown status ${JSON.stringify(f[6])}`);
    const cc = f[1]!.toUpperCase();
    this.sink.row({ start, count, rir, country: isCountryCode(cc) ? cc : null, allocated, status }, lineNo);
  }

  end(): void {}
}

export interface AsNameRow {
  readonly asn: number;
  readonly name: string;
  readonly description: string | null;
  readonly country: string | null;
}

/** Parses `13335 CLOUDFLARENET - Cloudflare, Inc., US` (the description and the country are optional). */
export function parseAsNameLine(line: string): AsNameRow | string {
  const m = /^\s*(?:AS)?(\d{1,10})\s+(.+?)\s*$/i.exec(line);
  if (m === null) return 'expected "<number> <name>[ - <description>], <country>"';
  const asn = Number(m[1]);
  if (asn > MAX_ASN) return `AS number ${m[1]} is out of range`;
  let rest = m[2]!;
  let country: string | null = null;
  const cc = /,\s*([A-Za-z]{2})$/.exec(rest);
  if (cc !== null) {
    rest = rest.slice(0, cc.index).trimEnd();
    const code = cc[1]!.toUpperCase();
    country = isCountryCode(code) ? code : null;
  }
  const dash = rest.indexOf(' - ');
  const name = (dash < 0 ? rest : rest.slice(0, dash)).trim();
  const description = dash < 0 ? null : rest.slice(dash + 3).trim() || null;
  if (name === '') return 'empty AS name';
  return { asn, name, description, country };
}

export class AsNamesParser implements LineParser {
  constructor(private readonly sink: Sink<AsNameRow>) {}

  push(line: string, lineNo: number): void {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const r = parseAsNameLine(line);
    if (typeof r === 'string') this.sink.reject(lineNo, r);
    else this.sink.row(r, lineNo);
  }

  end(): void {}
}
