// The /v1/whois response body (API.md "GET /v1/whois/{domain}"). Pure.
import { LookupError, quote } from '../../http/errors.js';
import type { WhoisOutcome } from './service.js';
import { isoSeconds } from './types.js';

/** `?raw=`: true/1/yes or false/0/no (or absent). */
export function parseRawFlag(value: string | undefined): boolean {
  if (value === undefined || value === '') return false;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  throw new LookupError('invalid_parameter', `Invalid raw parameter: ${quote(value)}; expected true or false`);
}

export function whoisBody(o: WhoisOutcome, includeRaw: boolean): Record<string, unknown> {
  const r = o.record;
  const reg = r.registration;
  const fetchedAt = isoSeconds(r.fetched_at_ms);
  const source: Record<string, unknown> =
    r.source_type === 'rdap'
      ? {
          rdap: { server: r.servers.rdap, related: r.servers.related, fetched_at: fetchedAt },
          ...(r.bootstrap === null ? {} : { rdap_bootstrap: { dataset: r.bootstrap.dataset, built_at: r.bootstrap.built_at } }),
        }
      : { whois: { server: r.servers.whois, related: r.servers.related, fetched_at: fetchedAt } };
  const body: Record<string, unknown> = {
    domain: r.domain,
    unicode_domain: r.unicode_domain,
    registered: reg !== null,
    source_type: r.source_type,
    registrar: reg?.registrar ?? null,
    registered_at: reg?.registered_at ?? null,
    expires_at: reg?.expires_at ?? null,
    updated_at: reg?.updated_at ?? null,
    status: reg?.status ?? null,
    nameservers: reg?.nameservers ?? null,
    dnssec: reg?.dnssec ?? null,
    registrant: reg?.registrant ?? null,
    servers: { rdap: r.servers.rdap, whois: r.servers.whois },
    cached: o.cached,
    stale: o.stale,
    fetched_at: fetchedAt,
    source,
  };
  if (includeRaw) {
    body['raw'] = r.raw;
    body['raw_related'] = r.raw_related;
  }
  return body;
}
