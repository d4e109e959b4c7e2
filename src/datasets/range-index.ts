// Range → value index over sorted typed arrays. Ranges may nest or overlap (pfx2as announces a /16 and
// the /24s inside it); build time flattens them into non-overlapping segments, each owned by the most
// specific (smallest) range that covers it, so a lookup is one binary search.
import { formatV4, formatV6, parseV4, parseV6Groups } from './ip.js';

export interface Segments<K> {
  readonly start: K[];
  readonly end: K[];
  /** Index of the winning input range for each segment. */
  readonly range: number[];
}

interface KeyOps<K> {
  cmp(a: K, b: K): number;
  /** k + 1, or null at the top of the address space. */
  succ(k: K): K | null;
  pred(k: K): K;
  size(start: K, end: K): K;
}

const V4_OPS: KeyOps<number> = {
  cmp: (a, b) => a - b,
  succ: (k) => (k >= 0xffffffff ? null : k + 1),
  pred: (k) => k - 1,
  size: (s, e) => e - s,
};

const MAX_V6 = (1n << 128n) - 1n;
const V6_OPS: KeyOps<bigint> = {
  cmp: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  succ: (k) => (k >= MAX_V6 ? null : k + 1n),
  pred: (k) => k - 1n,
  size: (s, e) => e - s,
};

/**
 * Flattens inclusive ranges into sorted, non-overlapping segments. Where ranges overlap, the smallest
 * one wins; between equal sizes, the one given first. Input ranges with start > end are ignored.
 */
export function flatten<K>(starts: readonly K[], ends: readonly K[], ops: KeyOps<K>): Segments<K> {
  const n = starts.length;
  const order: number[] = [];
  for (let i = 0; i < n; i++) if (ops.cmp(starts[i]!, ends[i]!) <= 0) order.push(i);
  order.sort((a, b) => ops.cmp(starts[a]!, starts[b]!) || a - b);

  // Fast path: the common dumps (ip2asn, ip-location-db) are already disjoint.
  let disjoint = true;
  for (let j = 1; j < order.length; j++) {
    if (ops.cmp(starts[order[j]!]!, ends[order[j - 1]!]!) <= 0) {
      disjoint = false;
      break;
    }
  }
  if (disjoint) {
    return { start: order.map((i) => starts[i]!), end: order.map((i) => ends[i]!), range: order };
  }

  // Priority: smaller size first, then input order.
  const byPriority = order.slice().sort((a, b) => ops.cmp(ops.size(starts[a]!, ends[a]!), ops.size(starts[b]!, ends[b]!)) || a - b);
  const rank = new Int32Array(n);
  byPriority.forEach((i, r) => (rank[i] = r));

  // Every point where the winner can change: a start, or the address after an end.
  const points: K[] = [];
  for (const i of order) {
    points.push(starts[i]!);
    const after = ops.succ(ends[i]!);
    if (after !== null) points.push(after);
  }
  points.sort(ops.cmp);

  const heap = new MinHeap(rank);
  const out: Segments<K> = { start: [], end: [], range: [] };
  let next = 0;
  for (let p = 0; p < points.length; p++) {
    const at = points[p]!;
    if (p > 0 && ops.cmp(at, points[p - 1]!) === 0) continue;
    while (next < order.length && ops.cmp(starts[order[next]!]!, at) <= 0) heap.push(order[next++]!);
    while (heap.size > 0 && ops.cmp(ends[heap.peek()]!, at) < 0) heap.pop();
    if (heap.size === 0) continue;
    const winner = heap.peek();
    // The segment runs to just before the next distinct point, but never past the winner's end.
    let q = p + 1;
    while (q < points.length && ops.cmp(points[q]!, at) === 0) q++;
    const limit = q < points.length ? ops.pred(points[q]!) : ends[winner]!;
    const segEnd = ops.cmp(limit, ends[winner]!) < 0 ? limit : ends[winner]!;
    const last = out.range.length - 1;
    if (last >= 0 && out.range[last] === winner && ops.succ(out.end[last]!) !== null && ops.cmp(ops.succ(out.end[last]!)!, at) === 0) {
      out.end[last] = segEnd;
    } else {
      out.start.push(at);
      out.end.push(segEnd);
      out.range.push(winner);
    }
  }
  return out;
}

class MinHeap {
  private readonly items: number[] = [];
  constructor(private readonly rank: Int32Array) {}
  get size(): number {
    return this.items.length;
  }
  peek(): number {
    return this.items[0]!;
  }
  push(v: number): void {
    const a = this.items;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.rank[a[parent]!]! <= this.rank[v]!) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = v;
  }
  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && this.rank[a[r]!]! < this.rank[a[l]!]! ? r : l;
        if (this.rank[a[c]!]! >= this.rank[last]!) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

export function flattenV4(starts: readonly number[], ends: readonly number[]): Segments<number> {
  return flatten(starts, ends, V4_OPS);
}

export function flattenV6(starts: readonly bigint[], ends: readonly bigint[]): Segments<bigint> {
  return flatten(starts, ends, V6_OPS);
}

// ---- Typed-array indexes (the form shared between threads) ----

/** IPv4 segments: three parallel arrays, plus a first-level table by the top 16 bits. */
export interface V4Index {
  readonly segStart: Uint32Array;
  readonly segEnd: Uint32Array;
  readonly segRange: Int32Array;
  /** bucket[h] = number of segments starting below h << 16 (65537 entries): narrows each search to one /16. */
  readonly bucket: Uint32Array;
}

/** IPv6 segments: 128-bit keys as four big-endian 32-bit words, interleaved (4 words per segment). */
export interface V6Index {
  readonly segStart: Uint32Array;
  readonly segEnd: Uint32Array;
  readonly segRange: Int32Array;
}

type Alloc = (bytes: number) => ArrayBufferLike;
export const sharedAlloc: Alloc = (bytes) => new SharedArrayBuffer(Math.max(bytes, 8));

export function toV4Index(seg: Segments<number>, alloc: Alloc = sharedAlloc): V4Index {
  const n = seg.range.length;
  const segStart = new Uint32Array(alloc(n * 4), 0, n);
  const segEnd = new Uint32Array(alloc(n * 4), 0, n);
  const segRange = new Int32Array(alloc(n * 4), 0, n);
  for (let i = 0; i < n; i++) {
    segStart[i] = seg.start[i]!;
    segEnd[i] = seg.end[i]!;
    segRange[i] = seg.range[i]!;
  }
  const bucket = new Uint32Array(alloc(65537 * 4), 0, 65537);
  let k = 0;
  for (let h = 0; h <= 65536; h++) {
    const floor = h * 65536;
    while (k < n && segStart[k]! < floor) k++;
    bucket[h] = k;
  }
  return { segStart, segEnd, segRange, bucket };
}

export function writeV6Words(v: bigint, out: Uint32Array, at: number): void {
  out[at] = Number((v >> 96n) & 0xffffffffn);
  out[at + 1] = Number((v >> 64n) & 0xffffffffn);
  out[at + 2] = Number((v >> 32n) & 0xffffffffn);
  out[at + 3] = Number(v & 0xffffffffn);
}

export function readV6Words(words: Uint32Array, at: number): bigint {
  return (BigInt(words[at]!) << 96n) | (BigInt(words[at + 1]!) << 64n) | (BigInt(words[at + 2]!) << 32n) | BigInt(words[at + 3]!);
}

export function toV6Index(seg: Segments<bigint>, alloc: Alloc = sharedAlloc): V6Index {
  const n = seg.range.length;
  const segStart = new Uint32Array(alloc(n * 16), 0, n * 4);
  const segEnd = new Uint32Array(alloc(n * 16), 0, n * 4);
  const segRange = new Int32Array(alloc(n * 4), 0, n);
  for (let i = 0; i < n; i++) {
    writeV6Words(seg.start[i]!, segStart, i * 4);
    writeV6Words(seg.end[i]!, segEnd, i * 4);
    segRange[i] = seg.range[i]!;
  }
  return { segStart, segEnd, segRange };
}

/** Index of the input range owning `x`, or -1. */
export function findV4(idx: V4Index, x: number): number {
  const s = idx.segStart;
  // The answer is the last segment starting at or below x: among those starting inside x's /16,
  // or else the last one starting before it.
  const h = x >>> 16;
  let lo = idx.bucket[h]! - 1;
  let hi = idx.bucket[h + 1]! - 1;
  if (hi < 0) return -1;
  if (lo < 0) {
    if (x < s[0]!) return -1;
    lo = 0;
  }
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (s[mid]! <= x) lo = mid;
    else hi = mid - 1;
  }
  return x <= idx.segEnd[lo]! ? idx.segRange[lo]! : -1;
}

/** Compares the 128-bit key at words[at..at+3] with (a, b, c, d). */
function cmpWords(words: Uint32Array, at: number, a: number, b: number, c: number, d: number): number {
  let w = words[at]!;
  if (w !== a) return w < a ? -1 : 1;
  w = words[at + 1]!;
  if (w !== b) return w < b ? -1 : 1;
  w = words[at + 2]!;
  if (w !== c) return w < c ? -1 : 1;
  w = words[at + 3]!;
  if (w !== d) return w < d ? -1 : 1;
  return 0;
}

export function findV6(idx: V6Index, a: number, b: number, c: number, d: number): number {
  const s = idx.segStart;
  let lo = 0;
  let hi = idx.segRange.length - 1;
  if (hi < 0 || cmpWords(s, 0, a, b, c, d) > 0) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (cmpWords(s, mid * 4, a, b, c, d) <= 0) lo = mid;
    else hi = mid - 1;
  }
  return cmpWords(idx.segEnd, lo * 4, a, b, c, d) >= 0 ? idx.segRange[lo]! : -1;
}

const groups = new Uint16Array(8);

/**
 * Parses an address for lookup: returns 4 for IPv4 (value in out[0]), 6 for IPv6 (words in out[0..3]),
 * 0 when malformed. An IPv4-mapped IPv6 address is answered as IPv4.
 */
export function parseForLookup(ip: string, out: Float64Array): 0 | 4 | 6 {
  const v4 = parseV4(ip);
  if (v4 >= 0) {
    out[0] = v4;
    return 4;
  }
  if (!parseV6Groups(ip, groups)) return 0;
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    out[0] = groups[6]! * 65536 + groups[7]!;
    return 4;
  }
  out[0] = groups[0]! * 65536 + groups[1]!;
  out[1] = groups[2]! * 65536 + groups[3]!;
  out[2] = groups[4]! * 65536 + groups[5]!;
  out[3] = groups[6]! * 65536 + groups[7]!;
  return 6;
}

export { formatV4, formatV6 };
