// Strict IP address parsing and canonical text, shared by the ip and asn lookups (and usable by
// others). Hand-written rather than ipaddr.js/net.isIP: ipaddr.js accepts "1.2.3" and "01.2.3.4"
// (DEPENDENCIES.md §8) and net.isIP accepts zone ids ("fe80::1%eth0"), both of which API.md rejects.
// The IPv4 block helpers cidrWithin uses live with the datasets' IPv4 arithmetic (the prefix index keys blocks too).
import { v4BlockBase, v4BlockLen } from '../datasets/ip.js';

export interface IpAddress {
  readonly version: 4 | 6;
  /** Canonical text: dotted quad, or RFC 5952 (lower case, shortest, longest zero run compressed). */
  readonly text: string;
  /**
   * The address as four big-endian 32-bit words (unsigned). IPv4 fills words[0] only, so both
   * families share one matcher; `version` tells them apart.
   */
  readonly words: readonly [number, number, number, number];
}

const MAX_INPUT = 64; // the longest IPv6 text ("ffff:...:255.255.255.255") is 45 characters

/**
 * Parses an IPv4 dotted quad (no leading zeros, exactly four decimal octets) or an IPv6 address in
 * any RFC 4291 form (hex groups, one "::", an embedded dotted quad at the end). IPv4-mapped IPv6
 * (::ffff:a.b.c.d, any notation) is returned as the IPv4 address. Returns null for anything else:
 * hostnames, CIDRs, zone ids, brackets, surrounding whitespace, empty input.
 */
export function parseIp(input: string): IpAddress | null {
  const n = input.length;
  if (n === 0 || n > MAX_INPUT) return null;
  if (input.indexOf(':') === -1) {
    const v4 = parseV4(input, 0, n);
    // The strict grammar admits one spelling per address, so the input is already canonical: reusing
    // it spares building a new string (and the readers downstream re-parse a flat string).
    return v4 < 0 ? null : { version: 4, text: input, words: [v4, 0, 0, 0] };
  }
  return parseV6(input);
}

/**
 * The value of a strict dotted quad (what parseIp accepts as IPv4 without a colon), or -1: for hot
 * paths that answer by value and never need the parsed address object.
 */
export function parseIpv4(input: string): number {
  return input.length > 15 ? -1 : parseV4(input, 0, input.length);
}

/** An IPv4 address from its 32-bit value. */
export function ipv4(value: number): IpAddress {
  const v = value >>> 0;
  return { version: 4, text: v4Text(v), words: [v, 0, 0, 0] };
}

/** An IPv6 address from four words; IPv4-mapped addresses become IPv4. */
export function ipv6(w0: number, w1: number, w2: number, w3: number): IpAddress {
  if (w0 === 0 && w1 === 0 && w2 === 0xffff) return ipv4(w3);
  const words: [number, number, number, number] = [w0 >>> 0, w1 >>> 0, w2 >>> 0, w3 >>> 0];
  return { version: 6, text: v6Text(words), words };
}

export function v4Text(v: number): string {
  return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

/** Dotted quad in s[from, to): the 32-bit value, or -1. */
function parseV4(s: string, from: number, to: number): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      // A leading zero is rejected because some parsers read "010" as octal (8) and others as 10.
      if (digits === 1 && octet === 0) return -1;
      octet = octet * 10 + (c - 48);
      if (++digits > 3 || octet > 255) return -1;
    } else if (c === 46) {
      if (digits === 0 || ++dots > 3) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
    } else {
      return -1;
    }
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + octet;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function parseV6(s: string): IpAddress | null {
  const n = s.length;
  const groups = new Array<number>(8);
  let count = 0;
  let gap = -1; // index in groups where "::" stands
  let i = 0;
  if (s.charCodeAt(0) === 58) {
    if (s.charCodeAt(1) !== 58) return null; // a lone leading ":"
    gap = 0;
    i = 2;
    if (i === n) return ipv6(0, 0, 0, 0);
  }
  while (i < n) {
    // One group: up to 4 hex digits, or a trailing dotted quad that fills two groups.
    let value = 0;
    let digits = 0;
    const start = i;
    while (i < n) {
      const h = hexValue(s.charCodeAt(i));
      if (h < 0) break;
      value = value * 16 + h;
      digits++;
      i++;
    }
    if (i < n && s.charCodeAt(i) === 46) {
      if (count > 6) return null;
      const v4 = parseV4(s, start, n);
      if (v4 < 0) return null;
      groups[count++] = v4 >>> 16;
      groups[count++] = v4 & 0xffff;
      i = n;
      break;
    }
    if (digits === 0 || digits > 4 || count === 8) return null;
    groups[count++] = value;
    if (i === n) break;
    if (s.charCodeAt(i) !== 58) return null;
    i++;
    if (i === n) return null; // trailing single ":"
    if (s.charCodeAt(i) === 58) {
      if (gap >= 0) return null; // a second "::"
      gap = count;
      i++;
    }
  }
  if (gap < 0) {
    if (count !== 8) return null;
  } else {
    // "::" stands for at least one zero group (RFC 4291 2.2), so 8 explicit groups plus "::" is invalid.
    if (count > 7) return null;
    const move = count - gap;
    for (let k = 0; k < move; k++) groups[7 - k] = groups[count - 1 - k]!;
    for (let k = gap; k < 8 - move; k++) groups[k] = 0;
  }
  return ipv6(
    groups[0]! * 65536 + groups[1]!,
    groups[2]! * 65536 + groups[3]!,
    groups[4]! * 65536 + groups[5]!,
    groups[6]! * 65536 + groups[7]!,
  );
}

/** RFC 5952 text: lower-case hex without leading zeros; the longest run (≥ 2) of zero groups, first on a tie, as "::". */
export function v6Text(w: readonly [number, number, number, number]): string {
  const g = [
    w[0] >>> 16, w[0] & 0xffff, w[1] >>> 16, w[1] & 0xffff,
    w[2] >>> 16, w[2] & 0xffff, w[3] >>> 16, w[3] & 0xffff,
  ];
  let bestAt = -1;
  let bestLen = 1;
  for (let k = 0; k < 8; ) {
    if (g[k] !== 0) { k++; continue; }
    let e = k;
    while (e < 8 && g[e] === 0) e++;
    if (e - k > bestLen) { bestAt = k; bestLen = e - k; }
    k = e;
  }
  if (bestAt < 0) return g.map((x) => x.toString(16)).join(':');
  const head = g.slice(0, bestAt).map((x) => x.toString(16)).join(':');
  const tail = g.slice(bestAt + bestLen).map((x) => x.toString(16)).join(':');
  return `${head}::${tail}`;
}

/** Compares two addresses of the same family as unsigned 128-bit numbers. */
export function compareWords(a: readonly number[], b: readonly number[]): number {
  for (let k = 0; k < 4; k++) {
    if (a[k] !== b[k]) return a[k]! < b[k]! ? -1 : 1;
  }
  return 0;
}

/** Mask word k of a prefix length `len` counted from the top of a `width`-bit address. */
function maskWord(len: number, k: number): number {
  const bits = len - k * 32;
  if (bits <= 0) return 0;
  if (bits >= 32) return 0xffffffff;
  return (0xffffffff << (32 - bits)) >>> 0;
}

/**
 * The largest CIDR block that lies inside the inclusive range [start, end] and contains `ip`
 * (API.md: a prefix from range data). Null when the range does not contain the address or the
 * families differ. Canonical text, e.g. "8.8.8.0/24".
 */
export function cidrWithin(ip: IpAddress, start: IpAddress, end: IpAddress): string | null {
  if (ip.version !== start.version || ip.version !== end.version) return null;
  const a = ip.words;
  if (compareWords(start.words, a) > 0 || compareWords(a, end.words) > 0) return null;
  if (ip.version === 4) {
    const len = v4BlockLen(a[0], start.words[0], end.words[0]);
    return `${v4Text(v4BlockBase(a[0], len))}/${len}`;
  }
  const width = 128;
  const lo = [0, 0, 0, 0];
  const hi = [0, 0, 0, 0];
  // Shortest length first: the first block that fits inside the range is the largest one.
  for (let len = 0; len <= width; len++) {
    for (let k = 0; k < 4; k++) {
      const m = maskWord(len, k);
      lo[k] = (a[k]! & m) >>> 0;
      hi[k] = (a[k]! | ~m) >>> 0;
    }
    if (compareWords(lo, start.words) >= 0 && compareWords(hi, end.words) <= 0) {
      return `${v6Text(lo as [number, number, number, number])}/${len}`;
    }
  }
  return null; // unreachable: the /width block is the address itself
}
