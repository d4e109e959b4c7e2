// The announced-prefix index: every array lives in a SharedArrayBuffer built once on the main thread;
// workers wrap the same memory. Lookups allocate nothing after the first hit on a range.
import type { DatasetMeta, PrefixMatch, PrefixSource } from './types.js';
import { IdMemo } from '../platform/id-memo.js';
import type { PrefixRow } from './parse/prefixes.js';
import { V4_BLOCKS_PER_RANGE, v4BlockBase, v4BlockLen, v4BlockSubKey } from './ip.js';
import {
  findV4,
  findV6,
  flattenV4,
  flattenV6,
  formatV4,
  formatV6,
  parseForLookup,
  readV6Words,
  sharedAlloc,
  toV4Index,
  toV6Index,
  writeV6Words,
  type V4Index,
  type V6Index,
} from './range-index.js';

interface RangeTable {
  /** v4: one word per range; v6: four words per range. */
  readonly start: Uint32Array;
  readonly end: Uint32Array;
  readonly asn: Uint32Array;
  /** Index into the org table, -1 for none. */
  readonly org: Int32Array;
}

export interface PrefixShare {
  readonly meta: DatasetMeta;
  readonly v4: V4Index & { readonly ranges: RangeTable };
  readonly v6: V6Index & { readonly ranges: RangeTable };
  /** UTF-8 organisation names, back to back; name i is bytes orgOffsets[i]..orgOffsets[i+1]. */
  readonly orgBytes: Uint8Array;
  readonly orgOffsets: Uint32Array;
}

/** Collects rows (from SQLite or a parser), then builds the shared index. */
export class PrefixIndexBuilder {
  private readonly s4: number[] = [];
  private readonly e4: number[] = [];
  private readonly a4: number[] = [];
  private readonly o4: number[] = [];
  private readonly s6: bigint[] = [];
  private readonly e6: bigint[] = [];
  private readonly a6: number[] = [];
  private readonly o6: number[] = [];
  private readonly orgIds = new Map<string, number>();
  private readonly orgs: string[] = [];

  private orgId(org: string | null): number {
    if (org === null) return -1;
    let id = this.orgIds.get(org);
    if (id === undefined) {
      id = this.orgs.length;
      this.orgs.push(org);
      this.orgIds.set(org, id);
    }
    return id;
  }

  add(row: PrefixRow): void {
    if (row.family === 4) {
      this.s4.push(row.start);
      this.e4.push(row.end);
      this.a4.push(row.asn);
      this.o4.push(this.orgId(row.org));
    } else {
      this.s6.push(row.start);
      this.e6.push(row.end);
      this.a6.push(row.asn);
      this.o6.push(this.orgId(row.org));
    }
  }

  get size(): number {
    return this.s4.length + this.s6.length;
  }

  build(meta: DatasetMeta, alloc = sharedAlloc): PrefixShare {
    const n4 = this.s4.length;
    const n6 = this.s6.length;
    const r4: RangeTable = {
      start: new Uint32Array(alloc(n4 * 4), 0, n4),
      end: new Uint32Array(alloc(n4 * 4), 0, n4),
      asn: new Uint32Array(alloc(n4 * 4), 0, n4),
      org: new Int32Array(alloc(n4 * 4), 0, n4),
    };
    for (let i = 0; i < n4; i++) {
      r4.start[i] = this.s4[i]!;
      r4.end[i] = this.e4[i]!;
      r4.asn[i] = this.a4[i]!;
      r4.org[i] = this.o4[i]!;
    }
    const r6: RangeTable = {
      start: new Uint32Array(alloc(n6 * 16), 0, n6 * 4),
      end: new Uint32Array(alloc(n6 * 16), 0, n6 * 4),
      asn: new Uint32Array(alloc(n6 * 4), 0, n6),
      org: new Int32Array(alloc(n6 * 4), 0, n6),
    };
    for (let i = 0; i < n6; i++) {
      writeV6Words(this.s6[i]!, r6.start, i * 4);
      writeV6Words(this.e6[i]!, r6.end, i * 4);
      r6.asn[i] = this.a6[i]!;
      r6.org[i] = this.o6[i]!;
    }
    const encoded = this.orgs.map((o) => Buffer.from(o, 'utf8'));
    const total = encoded.reduce((sum, b) => sum + b.length, 0);
    const orgBytes = new Uint8Array(alloc(total), 0, total);
    const orgOffsets = new Uint32Array(alloc((encoded.length + 1) * 4), 0, encoded.length + 1);
    let at = 0;
    encoded.forEach((b, i) => {
      orgOffsets[i] = at;
      orgBytes.set(b, at);
      at += b.length;
    });
    orgOffsets[encoded.length] = at;
    return {
      meta,
      v4: { ...toV4Index(flattenV4(this.s4, this.e4), alloc), ranges: r4 },
      v6: { ...toV6Index(flattenV6(this.s6, this.e6), alloc), ranges: r6 },
      orgBytes,
      orgOffsets,
    };
  }
}

/** The PrefixSource over a share. Cheap to construct: only wraps. */
export class PrefixSnapshot implements PrefixSource {
  readonly meta: DatasetMeta;
  private readonly matches4: IdMemo<PrefixMatch>;
  private readonly matches6: IdMemo<PrefixMatch>;
  private readonly orgCache: (string | undefined)[] = [];
  private readonly parsed = new Float64Array(4);
  private counts: Map<number, { ipv4: number; ipv6: number }> | null = null;
  private orgByAsn: Map<number, number> | null = null;
  private readonly orgBuf: Buffer;

  constructor(private readonly share: PrefixShare) {
    this.meta = share.meta;
    this.orgBuf = Buffer.from(share.orgBytes.buffer, share.orgBytes.byteOffset, share.orgBytes.byteLength);
    this.matches4 = new IdMemo(share.v4.ranges.asn.length);
    this.matches6 = new IdMemo(share.v6.ranges.asn.length);
  }

  get records(): number {
    return this.share.v4.ranges.asn.length + this.share.v6.ranges.asn.length;
  }

  lookup(ip: string): PrefixMatch | null {
    const p = this.parsed;
    const family = parseForLookup(ip, p);
    if (family === 4) return this.lookupV4(p[0]!);
    if (family === 6) {
      const r = findV6(this.share.v6, p[0]!, p[1]!, p[2]!, p[3]!);
      if (r < 0) return null;
      return this.matches6.get(r) ?? this.match6(r);
    }
    return null;
  }

  lookupV4(v4: number): PrefixMatch | null {
    const r = findV4(this.share.v4, v4);
    if (r < 0) return null;
    return this.matches4.get(r) ?? this.match4(r);
  }

  blockKeyV4(v4: number): number {
    const r = findV4(this.share.v4, v4);
    if (r < 0) return -1;
    const t = this.share.v4.ranges;
    const len = v4BlockLen(v4, t.start[r]!, t.end[r]!);
    return r * V4_BLOCKS_PER_RANGE + v4BlockSubKey(v4BlockBase(v4, len), len);
  }

  match(id: number): PrefixMatch | null {
    if (!Number.isInteger(id) || id < 0) return null;
    const n4 = this.matches4.size;
    if (id < n4) return this.matches4.get(id) ?? this.match4(id);
    const r = id - n4;
    return r < this.matches6.size ? (this.matches6.get(r) ?? this.match6(r)) : null;
  }

  private match4(r: number): PrefixMatch {
    const t = this.share.v4.ranges;
    const m: PrefixMatch = Object.freeze({ id: r, asn: t.asn[r]!, start: formatV4(t.start[r]!), end: formatV4(t.end[r]!), org: this.org(t.org[r]!) });
    this.matches4.set(r, m);
    return m;
  }

  private match6(r: number): PrefixMatch {
    const t = this.share.v6.ranges;
    const m: PrefixMatch = Object.freeze({
      id: this.matches4.size + r,
      asn: t.asn[r]!,
      start: formatV6(readV6Words(t.start, r * 4)),
      end: formatV6(readV6Words(t.end, r * 4)),
      org: this.org(t.org[r]!),
    });
    this.matches6.set(r, m);
    return m;
  }

  private org(id: number): string | null {
    if (id < 0) return null;
    let s = this.orgCache[id];
    if (s === undefined) {
      s = this.orgBuf.toString('utf8', this.share.orgOffsets[id]!, this.share.orgOffsets[id + 1]!);
      this.orgCache[id] = s;
    }
    return s;
  }

  prefixCounts(asn: number): { ipv4: number; ipv6: number } {
    if (this.counts === null) {
      const counts = new Map<number, { ipv4: number; ipv6: number }>();
      const a4 = this.share.v4.ranges.asn;
      for (let i = 0; i < a4.length; i++) {
        const c = counts.get(a4[i]!);
        if (c === undefined) counts.set(a4[i]!, { ipv4: 1, ipv6: 0 });
        else c.ipv4++;
      }
      const a6 = this.share.v6.ranges.asn;
      for (let i = 0; i < a6.length; i++) {
        const c = counts.get(a6[i]!);
        if (c === undefined) counts.set(a6[i]!, { ipv4: 0, ipv6: 1 });
        else c.ipv6++;
      }
      for (const c of counts.values()) Object.freeze(c);
      this.counts = counts;
    }
    return this.counts.get(asn) ?? ZERO_COUNTS;
  }

  /** The organisation the prefix data names for an AS (its first range carrying one), or null. */
  orgForAsn(asn: number): string | null {
    if (this.orgByAsn === null) {
      const m = new Map<number, number>();
      for (const t of [this.share.v4.ranges, this.share.v6.ranges]) {
        for (let i = 0; i < t.asn.length; i++) if (t.org[i]! >= 0 && !m.has(t.asn[i]!)) m.set(t.asn[i]!, t.org[i]!);
      }
      this.orgByAsn = m;
    }
    const id = this.orgByAsn.get(asn);
    return id === undefined ? null : this.org(id);
  }
}

const ZERO_COUNTS = Object.freeze({ ipv4: 0, ipv6: 0 });
