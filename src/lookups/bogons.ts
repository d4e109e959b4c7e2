// Special-purpose addresses: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890
// and the RFCs that updated them), plus the blocks the IANA address-space registries keep reserved.
// API.md makes every one of them a bogon (`bogon: true`, geo and AS fields null). The table is
// data; `bogonReason` is a precomputed matcher over it (no parsing per request).
import { parseIp, type IpAddress } from './ip-address.js';

/** [CIDR, reason]. Nested entries are fine: the most specific one wins. */
export const SPECIAL_PURPOSE: readonly (readonly [string, string])[] = [
  // IPv4 (iana.org/assignments/iana-ipv4-special-registry)
  ['0.0.0.0/8', 'this network (RFC 791)'],
  ['0.0.0.0/32', 'this host on this network (RFC 1122)'],
  ['10.0.0.0/8', 'private-use (RFC 1918)'],
  ['100.64.0.0/10', 'shared address space, CGNAT (RFC 6598)'],
  ['127.0.0.0/8', 'loopback (RFC 1122)'],
  ['169.254.0.0/16', 'link-local (RFC 3927)'],
  ['172.16.0.0/12', 'private-use (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'],
  ['192.0.0.0/29', 'IPv4 service continuity prefix, DS-Lite (RFC 7335)'],
  ['192.0.0.8/32', 'IPv4 dummy address (RFC 7600)'],
  ['192.0.0.9/32', 'port control protocol anycast (RFC 7723)'],
  ['192.0.0.10/32', 'traversal using relays around NAT anycast (RFC 8155)'],
  ['192.0.0.170/31', 'NAT64/DNS64 discovery (RFC 8880)'],
  ['192.0.2.0/24', 'documentation, TEST-NET-1 (RFC 5737)'],
  ['192.31.196.0/24', 'AS112-v4 (RFC 7535)'],
  ['192.52.193.0/24', 'automatic multicast tunneling (RFC 7450)'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast (RFC 7526)'],
  ['192.168.0.0/16', 'private-use (RFC 1918)'],
  ['192.175.48.0/24', 'direct delegation AS112 service (RFC 7534)'],
  ['198.18.0.0/15', 'benchmarking (RFC 2544)'],
  ['198.51.100.0/24', 'documentation, TEST-NET-2 (RFC 5737)'],
  ['203.0.113.0/24', 'documentation, TEST-NET-3 (RFC 5737)'],
  ['224.0.0.0/4', 'multicast (RFC 5771)'],
  ['240.0.0.0/4', 'reserved (RFC 1112)'],
  ['255.255.255.255/32', 'limited broadcast (RFC 919)'],

  // IPv6 (iana.org/assignments/iana-ipv6-special-registry). ::ffff:0:0/96 (IPv4-mapped) is absent
  // on purpose: parseIp turns those addresses into IPv4, which the table above then classifies.
  ['::/128', 'unspecified address (RFC 4291)'],
  ['::1/128', 'loopback (RFC 4291)'],
  ['::/96', 'deprecated IPv4-compatible address (RFC 4291)'],
  ['64:ff9b::/96', 'IPv4-IPv6 translation (RFC 6052)'],
  ['64:ff9b:1::/48', 'local-use IPv4-IPv6 translation (RFC 8215)'],
  ['100::/64', 'discard-only (RFC 6666)'],
  ['2001::/23', 'IETF protocol assignments (RFC 2928)'],
  ['2001::/32', 'Teredo (RFC 4380)'],
  ['2001:1::1/128', 'port control protocol anycast (RFC 7723)'],
  ['2001:1::2/128', 'traversal using relays around NAT anycast (RFC 8155)'],
  ['2001:1::3/128', 'DNS-SD service registration protocol anycast (RFC 9665)'],
  ['2001:2::/48', 'benchmarking (RFC 5180)'],
  ['2001:3::/32', 'automatic multicast tunneling (RFC 7450)'],
  ['2001:4:112::/48', 'AS112-v6 (RFC 7535)'],
  ['2001:10::/28', 'deprecated ORCHID (RFC 4843)'],
  ['2001:20::/28', 'ORCHIDv2 (RFC 7343)'],
  ['2001:30::/28', 'drone remote ID protocol entity tags (RFC 9374)'],
  ['2001:db8::/32', 'documentation (RFC 3849)'],
  ['2002::/16', '6to4 (RFC 3056)'],
  ['2620:4f:8000::/48', 'direct delegation AS112 service (RFC 7534)'],
  ['3fff::/20', 'documentation (RFC 9637)'],
  ['5f00::/16', 'segment routing SIDs (RFC 9602)'],
  ['fc00::/7', 'unique local (RFC 4193)'],
  ['fe80::/10', 'link-local (RFC 4291)'],
  ['ff00::/8', 'multicast (RFC 4291)'],

  // IPv6 space the IANA IPv6 Address Space registry keeps "Reserved by IETF" (outside 2000::/3,
  // fc00::/7, fe80::/10 and ff00::/8): never valid on the public internet.
  ['::/8', 'reserved by IETF (RFC 4291)'],
  ['100::/8', 'reserved by IETF (RFC 4291)'],
  ['200::/7', 'reserved by IETF (RFC 4048)'],
  ['400::/6', 'reserved by IETF (RFC 4291)'],
  ['800::/5', 'reserved by IETF (RFC 4291)'],
  ['1000::/4', 'reserved by IETF (RFC 4291)'],
  ['4000::/3', 'reserved by IETF (RFC 4291)'],
  ['6000::/3', 'reserved by IETF (RFC 4291)'],
  ['8000::/3', 'reserved by IETF (RFC 4291)'],
  ['a000::/3', 'reserved by IETF (RFC 4291)'],
  ['c000::/3', 'reserved by IETF (RFC 4291)'],
  ['e000::/4', 'reserved by IETF (RFC 4291)'],
  ['f000::/5', 'reserved by IETF (RFC 4291)'],
  ['f800::/6', 'reserved by IETF (RFC 4291)'],
  ['fe00::/9', 'reserved by IETF (RFC 4291)'],
  ['fec0::/10', 'deprecated site-local (RFC 3879)'],
];

interface Entry {
  readonly net0: number; readonly net1: number; readonly net2: number; readonly net3: number;
  readonly m0: number; readonly m1: number; readonly m2: number; readonly m3: number;
  readonly len: number;
  readonly reason: string;
}

function mask(len: number, k: number): number {
  const bits = len - k * 32;
  if (bits <= 0) return 0;
  if (bits >= 32) return -1;
  return -1 << (32 - bits);
}

/** Matcher for one family: entries bucketed by first octet, each bucket most specific first. */
class FamilyMatcher {
  private readonly buckets: (readonly Entry[])[];

  constructor(entries: readonly Entry[]) {
    const buckets: Entry[][] = Array.from({ length: 256 }, () => []);
    for (const e of entries) {
      // An entry shorter than /8 covers several first-octet buckets.
      const first = (e.net0 >>> 24) & 255;
      const span = e.len >= 8 ? 1 : 1 << (8 - e.len);
      for (let b = first; b < first + span; b++) buckets[b]!.push(e);
    }
    for (const b of buckets) b.sort((x, y) => y.len - x.len);
    this.buckets = buckets;
  }

  /** IPv4 only: the entries' words 1–3 and their masks are all zero. */
  matchV4(v4: number): string | null {
    const list = this.buckets[v4 >>> 24]!;
    for (let k = 0; k < list.length; k++) {
      const e = list[k]!;
      if ((v4 & e.m0) === e.net0) return e.reason;
    }
    return null;
  }

  match(w: readonly number[]): string | null {
    const list = this.buckets[w[0]! >>> 24]!;
    for (let k = 0; k < list.length; k++) {
      const e = list[k]!;
      // Signed 32-bit on both sides: `&` yields int32 and the stored network words are int32 too.
      if ((w[0]! & e.m0) === e.net0 && (w[1]! & e.m1) === e.net1 && (w[2]! & e.m2) === e.net2 && (w[3]! & e.m3) === e.net3) {
        return e.reason;
      }
    }
    return null;
  }
}

function compile(table: readonly (readonly [string, string])[]): { v4: FamilyMatcher; v6: FamilyMatcher } {
  const v4: Entry[] = [];
  const v6: Entry[] = [];
  for (const [cidr, reason] of table) {
    const [addr, bits] = cidr.split('/');
    const ip = parseIp(addr!);
    const len = Number(bits);
    if (ip === null || !(len >= 0 && len <= (ip.version === 4 ? 32 : 128))) throw new Error(`bad special-purpose entry ${cidr}`);
    // An IPv4-mapped table entry would silently turn into IPv4; the table must not contain one.
    if (ip.version === 4 && addr!.includes(':')) throw new Error(`IPv4-mapped entry ${cidr} is not allowed`);
    const w = ip.words;
    const m = [mask(len, 0), mask(len, 1), mask(len, 2), mask(len, 3)];
    const entry: Entry = {
      net0: w[0] & m[0]!, net1: w[1] & m[1]!, net2: w[2] & m[2]!, net3: w[3] & m[3]!,
      m0: m[0]!, m1: m[1]!, m2: m[2]!, m3: m[3]!,
      len, reason,
    };
    if (entry.net0 !== (w[0] | 0) || entry.net1 !== (w[1] | 0) || entry.net2 !== (w[2] | 0) || entry.net3 !== (w[3] | 0)) {
      throw new Error(`special-purpose entry ${cidr} has host bits set`);
    }
    (ip.version === 4 ? v4 : v6).push(entry);
  }
  return { v4: new FamilyMatcher(v4), v6: new FamilyMatcher(v6) };
}

const MATCHERS = compile(SPECIAL_PURPOSE);

/** The registry's name for the most specific special-purpose block holding `ip`, or null for a public address. */
export function bogonReason(ip: IpAddress): string | null {
  return (ip.version === 4 ? MATCHERS.v4 : MATCHERS.v6).match(ip.words);
}

/** bogonReason() of the IPv4 address with this 32-bit value. */
export function bogonReasonV4(v4: number): string | null {
  return MATCHERS.v4.matchV4(v4);
}
