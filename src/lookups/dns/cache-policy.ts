// How long a DNS answer may be reused, and how a reused answer looks. Pure: no I/O.
import type { DnsAnswer, DnsRecord } from './types.js';

const NOERROR = 0;
const NXDOMAIN = 3;

/**
 * Seconds an answer may be cached, or null when it must not be (resolver errors such as SERVFAIL,
 * truncated answers):
 * - data: the smallest TTL in the answer section (a CNAME chain included);
 * - NXDOMAIN or NODATA: min(SOA TTL, SOA MINIMUM) of the authority SOA (RFC 2308 §5); without an SOA
 *   the negative answer is not cached (0);
 * always capped by `maxTtl`.
 */
export function cacheTtl(answer: DnsAnswer, maxTtl: number): number | null {
  if (answer.truncated || (answer.rcode !== NOERROR && answer.rcode !== NXDOMAIN)) return null;
  let ttl: number;
  if (answer.rcode === NOERROR && answer.answers.length > 0) {
    ttl = Math.min(...answer.answers.map((r) => r.ttl));
  } else {
    const soa = answer.authority.find((r) => r.type === 'SOA');
    const minimum = soa?.['minimum'];
    ttl = soa === undefined || typeof minimum !== 'number' ? 0 : Math.min(soa.ttl, minimum);
  }
  return Math.max(0, Math.min(ttl, maxTtl));
}

/** The records as a cache hit shows them: TTLs counted down by the seconds since they were fetched. */
export function ageRecords(records: readonly DnsRecord[], elapsedSeconds: number): DnsRecord[] {
  if (elapsedSeconds <= 0) return [...records];
  return records.map((r) => ({ ...r, ttl: Math.max(0, r.ttl - elapsedSeconds) }));
}
