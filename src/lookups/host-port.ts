// host[:port] parsing shared by the probe lookups (ping, ssl): host names (IDN → punycode), IPv4,
// IPv6 bracketed or bare, and an optional port. Pure: no I/O, throws LookupError for bad input.
import { LookupError, isLookupError, quote } from '../http/errors.js';
import { parseDomainName } from './domain-name.js';
import { parseIp, type IpAddress } from './ip-address.js';

export type HostKind = 'name' | 'ipv4' | 'ipv6';

export interface HostPort {
  readonly kind: HostKind;
  /** ASCII form: the punycode host name, or the canonical IP text (IPv6 compressed, lower case, no brackets). */
  readonly host: string;
  /** Unicode form of a host name; the same as `host` for IP literals. */
  readonly unicode: string;
  /** The port given in the input, or null when none was given. */
  readonly port: number | null;
}

export interface HostPortOptions {
  /** Error code for malformed input; ssl reuses this parser with `invalid_domain`. */
  readonly code?: 'invalid_host' | 'invalid_domain';
}

// 253 octets of name, a trailing dot and ":65535"; a bracketed v4-mapped IPv6 with port is shorter.
// Anything longer is rejected before any further work, so huge inputs cost nothing.
const MAX_INPUT = 300;

const ACCEPTED = 'a host name, an IPv4 address or an IPv6 address (bracketed when a port follows), with an optional :port from 1 to 65535';

/**
 * Parses `host`, `host:port`, `1.2.3.4:80`, `[2001:db8::1]:443` or a bare `2001:db8::1`.
 * IP literals are canonicalised (an IPv4-mapped IPv6 address becomes the IPv4 address), so every notation
 * of the same address yields the same result. Throws 400 `invalid_host` (or the given code) otherwise.
 */
export function parseHostPort(input: string, opts: HostPortOptions = {}): HostPort {
  const code = opts.code ?? 'invalid_host';
  const fail = (why: string): never => {
    throw new LookupError(code, `Invalid host: ${quote(input)} ${why}; expected ${ACCEPTED}`);
  };

  if (input.length === 0) fail('is empty');
  if (input.length > MAX_INPUT) fail(`is longer than ${MAX_INPUT} characters`);
  if (/[\s\p{Cc}\p{Cf}]/u.test(input)) fail('contains whitespace or control characters');
  if (input.includes('://')) fail('is a URL');
  if (/[/?#@\\]/.test(input)) fail('contains a character that cannot appear in a host (/ ? # @ \\)');

  if (input.startsWith('[')) {
    const m = /^\[([^[\]]*)\](?::(.*))?$/.exec(input);
    if (m === null) fail('has unbalanced brackets');
    const inner = m![1]!;
    if (inner.includes('%')) fail('carries an IPv6 zone id, which cannot be probed');
    const ip = inner.includes(':') ? parseIp(inner) : null;
    if (ip === null) fail('has brackets around something that is not an IPv6 address');
    return { ...ipLiteral(ip!), port: m![2] === undefined ? null : parsePort(m![2], fail) };
  }

  const colons = input.split(':').length - 1;
  if (colons >= 2) {
    if (input.includes('%')) fail('carries an IPv6 zone id, which cannot be probed');
    const ip = parseIp(input);
    if (ip === null) fail('is not a valid IPv6 address (put an IPv6 address in brackets to add a port: [2001:db8::1]:8080)');
    return { ...ipLiteral(ip!), port: null };
  }

  let hostPart = input;
  let port: number | null = null;
  if (colons === 1) {
    const at = input.lastIndexOf(':');
    hostPart = input.slice(0, at);
    port = parsePort(input.slice(at + 1), fail);
  }
  if (hostPart.length === 0) fail('has no host before the port');

  const v4 = parseIp(hostPart);
  if (v4 !== null) return { ...ipLiteral(v4), port };
  // Resolvers read "127.1", "010.0.0.1" or "0x7f.1" as IPv4 addresses (the WHATWG URL rule: a numeric
  // last label makes the whole host an IPv4 number), so such names are malformed addresses, not names.
  if (/^[0-9.]+$/.test(hostPart) || /(^|\.)(0x[0-9a-f]*|[0-9]+)\.?$/i.test(hostPart)) {
    fail('is not a valid IPv4 address (four decimal numbers 0-255 without leading zeros)');
  }
  return { ...hostName(hostPart, code, input), port };
}

/** `host` or `host:port` as it appears in a URL authority or a Host header (IPv6 in brackets). */
export function formatAuthority(hp: Pick<HostPort, 'kind' | 'host'>, port: number | null): string {
  const host = hp.kind === 'ipv6' ? `[${hp.host}]` : hp.host;
  return port === null ? host : `${host}:${port}`;
}

// parseIp canonicalises (RFC 5952) and turns IPv4-mapped IPv6 into the IPv4 address, as /v1/ip does.
function ipLiteral(ip: IpAddress): Omit<HostPort, 'port'> {
  return { kind: ip.version === 4 ? 'ipv4' : 'ipv6', host: ip.text, unicode: ip.text };
}

function hostName(text: string, code: 'invalid_host' | 'invalid_domain', input: string): Omit<HostPort, 'port'> {
  try {
    const { ascii, unicode } = parseDomainName(text);
    return { kind: 'name', host: ascii, unicode };
  } catch (e) {
    if (!isLookupError(e)) throw e;
    // The domain parser's message already says what is wrong with the name; keep it, under our code.
    throw new LookupError(code, e.code === code ? e.message : `Invalid host: ${quote(input)} is not a valid host name (${e.message})`, {}, { cause: e });
  }
}

function parsePort(text: string, fail: (why: string) => never): number {
  if (!/^[1-9][0-9]{0,4}$/.test(text)) fail('has a port that is not a number from 1 to 65535 (no leading zeros)');
  const n = Number(text);
  if (n > 65535) fail('has a port above 65535');
  return n;
}
