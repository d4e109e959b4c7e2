// The `/v1/ssl/{domain}` parameter: a host name or IP literal with an optional `:port`. Pure: no I/O.
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { LookupError, quote } from '../../http/errors.js';
import { parseDomainName } from '../domain-name.js';

export interface SslTarget {
  /** Lower-case ASCII (punycode) host name, or the canonical IP literal (IPv6 compressed, no brackets). */
  readonly host: string;
  /** The Unicode form of a name; the same as `host` for ASCII names and IPs. */
  readonly unicode: string;
  readonly port: number;
  readonly isIp: boolean;
}

export const DEFAULT_PORT = 443;

const ACCEPTED = 'host[:port]: a host name, an IPv4 address or an IPv6 address in brackets, optionally followed by ":" and a port from 1 to 65535';

function invalid(input: string, why: string): LookupError {
  return new LookupError('invalid_domain', `Invalid SSL target: ${quote(input)} ${why}; expected ${ACCEPTED}`);
}

/** @throws LookupError `invalid_domain` naming what was wrong. */
export function parseSslTarget(input: string): SslTarget {
  if (input.length === 0) throw invalid(input, 'is empty');
  if (input.length > 300) throw invalid(input, 'is too long');
  if (input.trim() !== input) throw invalid(input, 'has surrounding whitespace');

  // A bare IPv6 address (no brackets) cannot carry a port: every colon belongs to the address.
  if (input.includes(':') && !input.startsWith('[') && input.indexOf(':') !== input.lastIndexOf(':')) {
    return ipTarget(input, input, DEFAULT_PORT);
  }

  let hostPart: string;
  let port = DEFAULT_PORT;
  if (input.startsWith('[')) {
    const close = input.indexOf(']');
    if (close < 0) throw invalid(input, 'opens "[" without closing "]"');
    hostPart = input.slice(1, close);
    const rest = input.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw invalid(input, 'has text after "]" that is not ":port"');
      port = parsePort(input, rest.slice(1));
    }
    if (net.isIP(hostPart) !== 6) throw invalid(input, 'has brackets around something that is not an IPv6 address');
    return ipTarget(input, hostPart, port);
  }

  const colon = input.lastIndexOf(':');
  if (colon >= 0) {
    port = parsePort(input, input.slice(colon + 1));
    hostPart = input.slice(0, colon);
  } else {
    hostPart = input;
  }
  if (hostPart === '') throw invalid(input, 'has no host before the port');
  if (net.isIP(hostPart) === 4) return ipTarget(input, hostPart, port);

  const name = parseDomainName(hostPart);
  const last = name.labels[name.labels.length - 1]!;
  // The system resolver reads "1.2.3" or "0x7f" as IPv4 (inet_aton): refuse names it would not treat as names.
  if (/^(\d+|0x[0-9a-f]*)$/.test(last)) throw invalid(input, 'is neither a valid IPv4 address nor a host name (its last label is numeric)');
  return { host: name.ascii, unicode: name.unicode, port, isIp: false };
}

function parsePort(input: string, text: string): number {
  if (!/^[1-9]\d{0,4}$/.test(text)) throw invalid(input, `has port ${quote(text)}, which is not a whole number from 1 to 65535 without leading zeros`);
  const port = Number(text);
  if (port > 65535) throw invalid(input, `has port ${text}, which is above 65535`);
  return port;
}

function ipTarget(input: string, text: string, port: number): SslTarget {
  // net.isIP accepts zone ids ("fe80::1%eth0"); a zone is meaningless to this daemon's clients.
  if (text.includes('%') || net.isIP(text) === 0) throw invalid(input, 'is not a valid IP address');
  const canonical = ipaddr.process(text).toString();
  return { host: canonical, unicode: canonical, port, isIp: true };
}

/** `host:port` as shown to clients and used as a cache key (IPv6 in brackets). */
export function targetLabel(t: SslTarget): string {
  return `${t.isIp && t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
}
