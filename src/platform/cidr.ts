// CIDR lists used by the probe policy and trusted proxies.
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export interface Cidr {
  readonly text: string;
  readonly range: [ipaddr.IPv4 | ipaddr.IPv6, number];
}

/** Parses "10.0.0.0/8", "fe80::/10" or a bare address (a /32 or /128). Returns null when malformed. */
export function parseCidr(input: string): Cidr | null {
  const [addr, bits, ...rest] = input.split('/');
  if (addr === undefined || rest.length > 0 || net.isIP(addr) === 0) return null;
  const parsed = ipaddr.parse(addr);
  const max = parsed.kind() === 'ipv4' ? 32 : 128;
  const len = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!(len >= 0 && len <= max)) return null;
  return { text: `${parsed.toString()}/${len}`, range: [parsed, len] };
}

/** True when the address (any notation; v4-mapped v6 is treated as v4) falls in one of the blocks. */
export function cidrContains(list: readonly Cidr[], address: string): boolean {
  if (list.length === 0 || net.isIP(address) === 0) return false;
  const ip = ipaddr.process(address);
  for (const c of list) {
    const [base, len] = c.range;
    if (base.kind() === ip.kind() && ip.match(base as never, len)) return true;
  }
  return false;
}
