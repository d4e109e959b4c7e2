// Who is the client: the socket peer, or the first untrusted hop of X-Forwarded-For when the peer is a
// trusted proxy (API.md "Authentication and limits"). Pure functions; the gate feeds them req.ip and the header.
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { cidrContains, type Cidr } from '../platform/cidr.js';
import type { SubjectKey } from './rate-limit.js';

/** X-Forwarded-For hops examined at most: a longer chain is cut there (the client is then the last trusted hop). */
export const MAX_FORWARDED_HOPS = 32;

/** Normalises an address as uWS gives it (IPv6 uncompressed, v4-mapped) to its canonical text; null when not an IP. */
export function normaliseAddress(raw: string): string | null {
  if (net.isIPv4(raw)) return raw;
  if (!net.isIPv6(raw)) return null;
  try {
    return ipaddr.process(raw).toString();
  } catch {
    return null;
  }
}

/** One X-Forwarded-For entry: "1.2.3.4", "1.2.3.4:80", "::1", "[::1]" or "[::1]:80". Null when malformed. */
export function parseForwardedEntry(entry: string): string | null {
  const s = entry.trim();
  if (s.length === 0 || s.length > 64) return null;
  let addr = s;
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(s);
  if (bracketed !== null) addr = bracketed[1]!;
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}$/.test(s)) addr = s.slice(0, s.lastIndexOf(':'));
  if (addr.includes('%')) return null; // zone ids name an interface, not a client
  return normaliseAddress(addr);
}

/**
 * The client address. The peer is believed as is; X-Forwarded-For only when the peer is in `trusted`,
 * walking from the right past trusted proxies to the first untrusted hop. A malformed entry stops the
 * walk at the hop that reported it, so forged garbage can never make a request look like another client.
 */
export function clientAddress(peer: string, forwardedFor: string | undefined, trusted: readonly Cidr[]): string | null {
  const peerAddr = normaliseAddress(peer);
  if (peerAddr === null || forwardedFor === undefined || trusted.length === 0 || !cidrContains(trusted, peerAddr)) return peerAddr;
  const hops = forwardedFor.split(',');
  let current = peerAddr;
  for (let i = hops.length - 1, seen = 0; i >= 0 && seen < MAX_FORWARDED_HOPS; i--, seen++) {
    const hop = parseForwardedEntry(hops[i]!);
    if (hop === null) return current;
    if (!cidrContains(trusted, hop)) return hop;
    current = hop;
  }
  return current;
}

const FAMILY_V4 = 4 << 8;
const FAMILY_V6 = 6 << 8;
const FAMILY_UNKNOWN = 0xff << 8;

/**
 * The rate-limit subject of an address: IPv4 by address, IPv6 by its /64 (one customer network gets
 * one allowance, as an ISP hands out at least a /64). `tag` (1..255) separates limit classes.
 */
export function subjectOf(address: string | null, tag: number): SubjectKey {
  if (address === null) return { k0: 0, k1: 0, k2: FAMILY_UNKNOWN | tag };
  if (net.isIPv4(address)) {
    const p = address.split('.');
    return { k0: ((Number(p[0]) << 24) | (Number(p[1]) << 16) | (Number(p[2]) << 8) | Number(p[3])) | 0, k1: 0, k2: FAMILY_V4 | tag };
  }
  const parts = ipaddr.IPv6.parse(address).parts;
  return { k0: ((parts[0]! << 16) | parts[1]!) | 0, k1: ((parts[2]! << 16) | parts[3]!) | 0, k2: FAMILY_V6 | tag };
}

