// Address ↔ number conversions for the range indexes. Pure and allocation-light: these run on every lookup.

/** IPv4 dotted quad → unsigned 32-bit integer, or -1. Strict: four decimal octets, no leading zeros. */
export function parseV4(s: string): number {
  const len = s.length;
  if (len < 7 || len > 15) return -1;
  let value = 0;
  let octet = 0;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || parts === 3) return -1;
      value = value * 256 + octet;
      parts++;
      octet = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && octet === 0) return -1; // leading zero
      octet = octet * 10 + (c - 48);
      if (octet > 255) return -1;
      digits++;
    } else {
      return -1;
    }
  }
  if (digits === 0 || parts !== 3) return -1;
  return value * 256 + octet;
}

export function formatV4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/**
 * IPv6 text (any RFC 4291 form, including an embedded IPv4 tail) → eight 16-bit groups in `out`.
 * Returns false when malformed. Zone ids are rejected.
 */
export function parseV6Groups(s: string, out: Uint16Array): boolean {
  const len = s.length;
  if (len < 2 || len > 45) return false;
  let gap = -1; // index in out where "::" sits
  let n = 0;
  let i = 0;
  if (s.charCodeAt(0) === 58) {
    if (s.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
    if (i === len) {
      out.fill(0);
      return true;
    }
  }
  while (i < len) {
    if (n === 8) return false;
    // Read one group (or an IPv4 tail).
    let v = 0;
    let digits = 0;
    const startI = i;
    while (i < len) {
      const c = s.charCodeAt(i);
      let d: number;
      if (c >= 48 && c <= 57) d = c - 48;
      else if (c >= 97 && c <= 102) d = c - 87;
      else if (c >= 65 && c <= 70) d = c - 55;
      else break;
      v = v * 16 + d;
      digits++;
      i++;
    }
    if (i < len && s.charCodeAt(i) === 46) {
      // Embedded IPv4 in the last 32 bits.
      if (n > 6) return false;
      const v4 = parseV4(s.slice(startI));
      if (v4 < 0) return false;
      out[n++] = v4 >>> 16;
      out[n++] = v4 & 0xffff;
      i = len;
      break;
    }
    if (digits === 0 || digits > 4) return false;
    out[n++] = v;
    if (i === len) break;
    if (s.charCodeAt(i) !== 58) return false;
    i++;
    if (i < len && s.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = n;
      i++;
      if (i === len) break;
    } else if (i === len) {
      return false; // trailing single colon
    }
  }
  if (gap < 0) return n === 8;
  if (n === 8) return false; // "::" must stand for at least one group
  const tail = n - gap;
  for (let k = 7; k >= 8 - tail; k--) out[k] = out[k - (8 - n)]!;
  for (let k = gap; k < 8 - tail; k++) out[k] = 0;
  return true;
}

const scratch16 = new Uint16Array(8);

/** IPv6 text → 128-bit BigInt, or null. */
export function parseV6(s: string): bigint | null {
  if (!parseV6Groups(s, scratch16)) return null;
  let v = 0n;
  for (let k = 0; k < 8; k++) v = (v << 16n) | BigInt(scratch16[k]!);
  return v;
}

/** 128-bit value → RFC 5952 text (lower case, longest zero run compressed, first on a tie). */
export function formatV6(v: bigint): string {
  const g: number[] = [];
  for (let k = 7; k >= 0; k--) g.push(Number((v >> BigInt(k * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 1;
  for (let k = 0; k < 8; ) {
    if (g[k] !== 0) {
      k++;
      continue;
    }
    let e = k;
    while (e < 8 && g[e] === 0) e++;
    if (e - k > bestLen) {
      bestStart = k;
      bestLen = e - k;
    }
    k = e;
  }
  const hex = (a: number, b: number): string => g.slice(a, b).map((x) => x.toString(16)).join(':');
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLen, 8)}`;
}

export function v6ToBytes(v: bigint): Buffer {
  const b = Buffer.allocUnsafe(16);
  b.writeBigUInt64BE(v >> 64n, 0);
  b.writeBigUInt64BE(v & 0xffffffffffffffffn, 8);
  return b;
}

export function v6FromBytes(b: Uint8Array): bigint {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  return (buf.readBigUInt64BE(0) << 64n) | buf.readBigUInt64BE(8);
}

/** First and last address of a CIDR block. */
export function cidrRangeV4(base: number, bits: number): [number, number] {
  const size = 2 ** (32 - bits);
  const start = base - (base % size);
  return [start, start + size - 1];
}

export function cidrRangeV6(base: bigint, bits: number): [bigint, bigint] {
  const hostBits = BigInt(128 - bits);
  const mask = (1n << hostBits) - 1n;
  const start = base & ~mask & ((1n << 128n) - 1n);
  return [start, start | mask];
}

/**
 * IPv4 fast path of cidrWithin on plain numbers (start ≤ a ≤ end): the prefix length of the largest
 * aligned block that holds `a` inside [start, end]. That block is one of the range's canonical CIDR
 * blocks, so its base identifies it among every address of the range.
 */
export function v4BlockLen(a: number, start: number, end: number): number {
  const width = end - start + 1;
  if (width >= 0x100000000) return 0;
  // No block larger than the range fits: start at the longest length whose size ≤ width.
  for (let len = 1 + Math.clz32(width); len < 32; len++) {
    const mask = (-1 << (32 - len)) >>> 0;
    const base = (a & mask) >>> 0;
    if (base >= start && (base | ~mask) >>> 0 <= end) return len;
  }
  return 32;
}

export function v4BlockBase(a: number, len: number): number {
  return len === 0 ? 0 : (a & (-1 << (32 - len))) >>> 0;
}

/**
 * Sub-keys of one range's blocks: a range's canonical CIDR blocks have at most two of each length, and
 * of two equal-sized blocks of length `len` the lower has bit (32 − len) of its base set and the higher
 * has it clear (otherwise the block's parent would fit in the range too, and the block would not be the
 * largest). So 2 · len + that bit (0..65) tells a range's blocks apart.
 */
export const V4_BLOCKS_PER_RANGE = 66;

export function v4BlockSubKey(base: number, len: number): number {
  return 2 * len + (len === 0 ? 0 : (base >>> (32 - len)) & 1);
}
