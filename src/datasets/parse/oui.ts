// IEEE Registration Authority files (MA-L, MA-M, MA-S, IAB, CID) in their CSV and TXT forms, and the
// `oui-data` npm JSON. All produce OuiRow; the country is an ISO code split off the address.
import type { OuiRecord, OuiRegistry } from '../types.js';
import { CsvRecords } from './csv.js';
import { countryCodeFromName, isCountryCode } from './countries.js';
import { FormatError, type LineParser, type Sink } from './sink.js';

/** A parsed registry line has exactly the shape the lookups read. */
export type OuiRow = OuiRecord;

const HEX_DIGITS: Record<OuiRegistry, number> = { 'MA-L': 6, CID: 6, 'MA-M': 7, 'MA-S': 9, IAB: 9 };
const BITS_BY_DIGITS: Record<number, 24 | 28 | 36> = { 6: 24, 7: 28, 9: 36 };

function clean(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * Splits the country code off an IEEE CSV address. The CSV folds the TXT lines as
 * "street city state CC postcode", e.g. "2181 Buchanan Loop Ferndale WA US 98248" → US.
 * A state code can also be a country code (CA) and a postcode can end in letters (NL "5656 AE"),
 * so the country is the code followed by a postcode-looking tail (1–2 tokens, the first with a digit),
 * else a code in last position.
 */
export function splitCountry(address: string): { address: string | null; country: string | null } {
  const tokens = clean(address).split(' ').filter((t) => t.length > 0);
  if (tokens.length === 0) return { address: null, country: null };
  const n = tokens.length;
  let at = -1;
  for (let i = n - 2; i >= Math.max(0, n - 3); i--) {
    if (isCountryCode(tokens[i]!) && /\d/.test(tokens[i + 1]!)) {
      at = i;
      break;
    }
  }
  if (at < 0 && isCountryCode(tokens[n - 1]!)) at = n - 1;
  if (at < 0) return { address: tokens.join(' '), country: null };
  const country = tokens[at]!;
  tokens.splice(at, 1);
  return { address: tokens.length > 0 ? tokens.join(' ') : null, country };
}

function makeRow(registry: OuiRegistry, hex: string, vendor: string, address: string | null, country: string | null): OuiRow {
  return { prefix: hex, bits: BITS_BY_DIGITS[hex.length]!, registry, vendor, address, country };
}

const REGISTRIES = new Set<string>(['MA-L', 'MA-M', 'MA-S', 'IAB', 'CID']);

/** `Registry,Assignment,Organization Name,Organization Address` with RFC 4180 quoting. */
export class IeeeCsvParser implements LineParser {
  private header = false;
  private readonly csv: CsvRecords;

  constructor(private readonly sink: Sink<OuiRow>) {
    this.csv = new CsvRecords((f, n) => this.record(f, n), (n, reason) => sink.reject(n, reason));
  }

  push(line: string, lineNo: number): void {
    if (!this.header && line.trim() === '') return;
    this.csv.push(line, lineNo);
  }

  end(): void {
    this.csv.end();
  }

  private record(f: string[], lineNo: number): void {
    if (!this.header) {
      if (f.length < 4 || f[0]!.trim().toLowerCase() !== 'registry' || f[1]!.trim().toLowerCase() !== 'assignment') {
        throw new FormatError(lineNo, 'not an IEEE registry CSV: expected the header "Registry,Assignment,Organization Name,Organization Address"');
      }
      this.header = true;
      return;
    }
    if (f.length === 1 && f[0]!.trim() === '') return;
    if (f.length !== 4) return this.sink.reject(lineNo, `expected 4 fields, found ${f.length}`);
    const registry = f[0]!.trim();
    const hex = f[1]!.trim().toUpperCase();
    const vendor = clean(f[2]!);
    if (!REGISTRIES.has(registry)) return this.sink.reject(lineNo, `unknown registry ${JSON.stringify(registry)} (expected MA-L, MA-M, MA-S, IAB or CID)`);
    const digits = HEX_DIGITS[registry as OuiRegistry];
    if (hex.length !== digits || !/^[0-9A-F]+$/.test(hex)) return this.sink.reject(lineNo, `assignment ${JSON.stringify(hex)} is not ${digits} hex digits`);
    if (vendor === '') return this.sink.reject(lineNo, 'empty organization name');
    const { address, country } = splitCountry(f[3]!);
    this.sink.row(makeRow(registry as OuiRegistry, hex, vendor, address, country), lineNo);
  }
}

const HEX_LINE = /^\s*([0-9A-Fa-f]{2})-([0-9A-Fa-f]{2})-([0-9A-Fa-f]{2})\s+\(hex\)\s*(.*)$/;
const BASE16_LINE = /^\s*([0-9A-Fa-f]{6})(?:-([0-9A-Fa-f]{6}))?\s+\(base 16\)\s*(.*)$/;

/** The IEEE .txt form: a (hex) line, a (base 16) line, indented address lines, the country code last. */
export class IeeeTxtParser implements LineParser {
  private registryHint: 'CID' | 'IAB' | null = null;
  private sawHeader = false;
  private entry: { lineNo: number; base: string; vendor: string; hex: string | null; bits: 24 | 28 | 36 | null; lines: string[] } | null = null;
  private entries = 0;

  constructor(private readonly sink: Sink<OuiRow>) {}

  push(line: string, lineNo: number): void {
    const hex = HEX_LINE.exec(line);
    if (hex !== null) {
      this.flush();
      this.entry = { lineNo, base: (hex[1]! + hex[2]! + hex[3]!).toUpperCase(), vendor: clean(hex[4]!), hex: null, bits: null, lines: [] };
      return;
    }
    if (this.entry === null) {
      // Header lines before the first entry name the registry.
      if (!this.sawHeader && line.trim() !== '') {
        this.sawHeader = true;
        if (/\bCID\b/.test(line)) this.registryHint = 'CID';
        else if (/\bIAB\b/.test(line)) this.registryHint = 'IAB';
      }
      if (this.entries === 0 && lineNo > 20) throw new FormatError(lineNo, 'not an IEEE registry text file: no "XX-XX-XX   (hex)" entry in the first 20 lines');
      return;
    }
    const b16 = BASE16_LINE.exec(line);
    if (b16 !== null && this.entry.hex === null) {
      const from = b16[1]!.toUpperCase();
      const to = (b16[2] ?? '').toUpperCase();
      if (to === '') {
        this.entry.hex = from;
        this.entry.bits = 24;
      } else {
        // The block is the digits that do not vary: "D00000-DFFFFF" under 8C-1F-64 → 8C1F64D (28 bits).
        let fixed = 0;
        while (fixed < 6 && from[fixed] === to[fixed]) fixed++;
        const bits = 24 + fixed * 4;
        if ((bits !== 28 && bits !== 36) || !/^0*$/.test(from.slice(fixed)) || !/^F*$/.test(to.slice(fixed))) {
          this.sink.reject(lineNo, `range ${from}-${to} is not an MA-M or MA-S block`);
          this.entry = null;
          return;
        }
        this.entry.hex = this.entry.base + from.slice(0, fixed);
        this.entry.bits = bits;
      }
      if (b16[3]!.trim() !== '') this.entry.vendor = clean(b16[3]!);
      return;
    }
    if (line.trim() === '') {
      this.flush();
      return;
    }
    if (/^\s/.test(line) && this.entry.hex !== null) {
      this.entry.lines.push(clean(line));
      return;
    }
    this.sink.reject(lineNo, 'expected a (base 16) line or an indented address line');
    this.entry = null;
  }

  end(): void {
    this.flush();
    if (this.entries === 0 && !this.sawHeader) throw new FormatError(1, 'empty file: no IEEE registry entries');
  }

  private flush(): void {
    const e = this.entry;
    this.entry = null;
    if (e === null) return;
    if (e.hex === null || e.bits === null) return this.sink.reject(e.lineNo, 'entry has no (base 16) line');
    if (e.vendor === '') return this.sink.reject(e.lineNo, 'empty organization name');
    const registry: OuiRegistry =
      e.bits === 28 ? 'MA-M' : e.bits === 36 ? (this.registryHint === 'IAB' ? 'IAB' : 'MA-S') : this.registryHint === 'CID' ? 'CID' : 'MA-L';
    const lines = e.lines.slice();
    let country: string | null = null;
    if (lines.length > 0 && isCountryCode(lines[lines.length - 1]!.toUpperCase())) country = lines.pop()!.toUpperCase();
    this.entries++;
    this.sink.row(makeRow(registry, e.hex, e.vendor, lines.length > 0 ? lines.join(', ') : null, country), e.lineNo);
  }
}

/**
 * The `oui-data` JSON object: prefix (6, 7 or 9 hex digits) → "Name\nAddress lines…\nCountry name".
 * The file is a few megabytes, so it is parsed whole; the country name is mapped to its ISO code.
 */
export function parseOuiDataJson(text: string, sink: Sink<OuiRow>): void {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec(String(e));
    const line = m === null ? 1 : text.slice(0, Number(m[1])).split('\n').length;
    throw new FormatError(line, `not valid JSON: ${(e as Error).message}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new FormatError(1, 'expected a JSON object of prefix → "Name\\nAddress\\nCountry"');
  let n = 0;
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    n++;
    // Line numbers: the npm file has one entry per line after the opening brace.
    const lineNo = n + 1;
    const hex = key.toUpperCase();
    const bits = BITS_BY_DIGITS[hex.length];
    if (bits === undefined || !/^[0-9A-F]+$/.test(hex)) {
      sink.reject(lineNo, `key ${JSON.stringify(key)} is not 6, 7 or 9 hex digits`);
      continue;
    }
    if (typeof value !== 'string' || value.trim() === '') {
      sink.reject(lineNo, `value of ${key} is not a non-empty string`);
      continue;
    }
    const lines = value.split('\n').map(clean).filter((l) => l.length > 0);
    const vendor = lines.shift()!;
    let country: string | null = null;
    if (lines.length > 0) {
      country = countryCodeFromName(lines[lines.length - 1]!);
      if (country !== null) lines.pop();
    }
    const registry: OuiRegistry = bits === 24 ? 'MA-L' : bits === 28 ? 'MA-M' : 'MA-S';
    sink.row(makeRow(registry, hex, vendor, lines.length > 0 ? lines.join(', ') : null, country), lineNo);
  }
}

/** Which OUI format a file holds, from its first bytes. */
export function detectOuiFormat(head: string): 'csv' | 'txt' | 'json' | null {
  const t = head.replace(/^\uFEFF/, '').trimStart();
  if (t.startsWith('{')) return 'json';
  if (/^registry\s*,\s*assignment/i.test(t)) return 'csv';
  if (HEX_LINE.test(t.split('\n').find((l) => HEX_LINE.test(l)) ?? '') || /organization/i.test(t.split('\n')[0] ?? '')) return 'txt';
  return null;
}
