// MAC prefix → IEEE assignment: one Map per prefix length, longest match first.
import type { DatasetMeta, OuiRecord, OuiSource } from './types.js';
import { withDerivedSlot } from './derived-slot.js';

/** The IEEE RA holds the MA-L blocks it splits into MA-M/MA-S/IAB: such a parent entry is never an answer. */
export function isRegistrationAuthority(vendor: string): boolean {
  return /^IEEE Registration Authority\b/i.test(vendor.trim());
}

/** The first `digits` hex digits as a number, or -1 when any is not hex. */
function hexPrefix(s: string, digits: number): number {
  let v = 0;
  for (let i = 0; i < digits; i++) {
    const c = s.charCodeAt(i);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 65 && c <= 70) d = c - 55;
    else if (c >= 97 && c <= 102) d = c - 87;
    else return -1;
    v = v * 16 + d;
  }
  return v;
}

/** Keyed by the prefix's numeric value: no substring or string hashing per lookup. Values are record indexes. */
export class OuiSnapshot implements OuiSource {
  private readonly list: OuiRecord[] = [];
  private readonly by9 = new Map<number, number>();
  private readonly by7 = new Map<number, number>();
  private readonly by6 = new Map<number, number>();
  /**
   * One bit per 24-bit prefix: set when an MA-M or MA-S block lies under it. Most addresses fall under
   * an OUI with none, and are answered with one Map probe instead of three.
   */
  private readonly hasBlocks = new Uint8Array(1 << 21);

  constructor(readonly meta: DatasetMeta, records: Iterable<OuiRecord>) {
    for (const r of records) {
      if (isRegistrationAuthority(r.vendor)) continue;
      const n = r.prefix.length;
      const map = n === 9 ? this.by9 : n === 7 ? this.by7 : n === 6 ? this.by6 : null;
      const key = hexPrefix(r.prefix, n);
      if (map === null || key < 0) continue;
      map.set(key, this.list.push(withDerivedSlot(r)) - 1);
      if (n > 6) {
        const oui = hexPrefix(r.prefix, 6);
        this.hasBlocks[oui >>> 3]! |= 1 << (oui & 7);
      }
    }
  }

  get records(): number {
    return this.by9.size + this.by7.size + this.by6.size;
  }

  lookup(hex12: string): OuiRecord | null {
    return this.record(this.keyFor(hex12));
  }

  keyFor(hex12: string): number {
    if (hex12.length < 9) return hex12.length >= 6 ? this.by6.get(hexPrefix(hex12, 6)) ?? -1 : -1;
    const n9 = hexPrefix(hex12, 9);
    if (n9 < 0) return -1;
    const oui = Math.floor(n9 / 4096);
    if ((this.hasBlocks[oui >>> 3]! & (1 << (oui & 7))) === 0) return this.by6.get(oui) ?? -1;
    return this.by9.get(n9) ?? this.by7.get(Math.floor(n9 / 256)) ?? this.by6.get(oui) ?? -1;
  }

  record(key: number): OuiRecord | null {
    return this.list[key] ?? null;
  }
}
