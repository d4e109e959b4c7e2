// Probe policy for ping and ssl targets (DESIGN.md §5): resolve once, check every address, then connect
// to a checked address only, so a DNS answer cannot change between the check and the connection.
import dns from 'node:dns/promises';
import net from 'node:net';
import { cidrContains, type Cidr } from './cidr.js';
import { LookupError, quote } from '../http/errors.js';

export interface ProbePolicy {
  readonly allow: readonly Cidr[];
  readonly deny: readonly Cidr[];
}

export interface ResolvedTarget {
  /** Host as given (punycode for names). */
  readonly host: string;
  /** Every address the name resolved to, all of them permitted. */
  readonly addresses: readonly string[];
}

/** ALLOW wins over DENY; anything in neither list is permitted (internal lookups are the point). */
export function isPermitted(policy: ProbePolicy, address: string): boolean {
  if (cidrContains(policy.allow, address)) return true;
  return !cidrContains(policy.deny, address);
}

export type Resolve = (host: string) => Promise<string[]>;

export const systemResolve: Resolve = async (host) => {
  const records = await dns.lookup(host, { all: true, verbatim: true });
  return records.map((r) => r.address);
};

export class HostNotFoundError extends Error {
  constructor(readonly host: string, options?: { cause?: unknown }) {
    super(`host not found: ${host}`, options);
    this.name = 'HostNotFoundError';
  }
}

/**
 * Resolves a host (or takes an IP literal) and checks every address against the policy.
 * Throws HostNotFoundError when the name does not resolve and 403 target_forbidden when any address is denied.
 */
export async function resolveTarget(host: string, policy: ProbePolicy, resolve: Resolve = systemResolve): Promise<ResolvedTarget> {
  let addresses: string[];
  if (net.isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch (e) {
      throw new HostNotFoundError(host, { cause: e });
    }
    if (addresses.length === 0) throw new HostNotFoundError(host);
  }
  const denied = addresses.find((a) => !isPermitted(policy, a));
  if (denied !== undefined) {
    throw new LookupError('target_forbidden', `Target forbidden: ${quote(host)} resolves to ${denied}, which the probe policy denies (NETINTEL_PROBE_DENY / NETINTEL_PROBE_ALLOW)`);
  }
  return { host, addresses };
}

/** The policy from config: the configured lists, plus the daemon's own listen address in DENY. */
export function probePolicyFrom(config: { probeAllow: readonly Cidr[]; probeDeny: readonly Cidr[]; host: string }, parse: (s: string) => Cidr | null): ProbePolicy {
  const own = config.host === '0.0.0.0' || config.host === '::' ? null : parse(config.host);
  return { allow: config.probeAllow, deny: own === null ? config.probeDeny : [...config.probeDeny, own] };
}
