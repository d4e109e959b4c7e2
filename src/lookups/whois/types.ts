// The normalised registration record shared by the RDAP and WHOIS parsers, the store and the route.

export interface Registrar {
  readonly name: string | null;
  /** IANA Registrar ID, as a string (registries publish it as a number or a string). */
  readonly iana_id: string | null;
  readonly url: string | null;
  readonly abuse_email: string | null;
  readonly abuse_phone: string | null;
}

export interface Registrant {
  readonly name: string | null;
  readonly organization: string | null;
  /** ISO 3166-1 alpha-2 when the source gives one, otherwise the source's text. */
  readonly country: string | null;
  readonly email: string | null;
  /** The registry or registrar withheld registrant data (RFC 9537 `redacted`, privacy placeholders). */
  readonly redacted: boolean;
}

/** What one parser extracts from one answer. Timestamps are ISO 8601 UTC without fractions. */
export interface Registration {
  readonly registrar: Registrar;
  readonly registered_at: string | null;
  readonly expires_at: string | null;
  readonly updated_at: string | null;
  /** RDAP status strings (RFC 8056 spelling, e.g. "client delete prohibited"). */
  readonly status: readonly string[];
  /** Lower-case host names without the trailing dot. */
  readonly nameservers: readonly string[];
  readonly dnssec: boolean | null;
  readonly registrant: Registrant;
}

export type SourceType = 'rdap' | 'whois';

/** A finished upstream lookup, before the cache fields are added. */
export interface FetchedRecord {
  readonly domain: string;
  readonly unicode_domain: string;
  readonly source_type: SourceType;
  /** null when the registry says the domain does not exist. */
  readonly registration: Registration | null;
  /** `related`: the registrar's RDAP URL or WHOIS server, when one was followed. */
  readonly servers: { readonly rdap: string | null; readonly whois: string | null; readonly related: string | null };
  /** The registry's answer: RDAP JSON (parsed) or WHOIS text. */
  readonly raw: unknown;
  /** The registrar's answer when one was followed (RDAP `related` link or WHOIS referral), else null. */
  readonly raw_related: unknown;
  /** Unix milliseconds. */
  readonly fetched_at_ms: number;
  /** The bootstrap version used for an RDAP answer. */
  readonly bootstrap: { readonly dataset: string; readonly built_at: string | null } | null;
}

export const EMPTY_REGISTRAR: Registrar = Object.freeze({ name: null, iana_id: null, url: null, abuse_email: null, abuse_phone: null });
export const EMPTY_REGISTRANT: Registrant = Object.freeze({ name: null, organization: null, country: null, email: null, redacted: false });

/** Formats a time as API.md wants it: `2026-08-13T04:00:00Z` (no fractional seconds). */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

/** RFC 8056 maps EPP status values to RDAP status strings; "ok" is the one irregular name. */
export function eppToRdapStatus(value: string): string {
  const v = value.trim();
  if (v === '') return '';
  if (/^ok$/i.test(v)) return 'active';
  // camelCase EPP codes (clientDeleteProhibited) become space-separated lower-case words.
  if (/^[a-z]+(?:[A-Z][a-z]*)+$/.test(v)) return v.replace(/([A-Z])/g, ' $1').toLowerCase();
  return v.toLowerCase().replace(/\s+/g, ' ');
}

/**
 * Merges the registry's parse (`primary`) with the registrar's (`secondary`): the registry wins
 * field by field and the registrar fills the gaps, except for the registrant, which registrars hold
 * in the thin and post-GDPR models: when the registrar names one, its registrant wins.
 */
export function mergeRegistration(primary: Registration, secondary: Registration): Registration {
  const pick = <T>(a: T | null, b: T | null): T | null => (a !== null ? a : b);
  const secondaryHasRegistrant = hasRegistrantData(secondary.registrant);
  const pr = secondaryHasRegistrant ? secondary.registrant : primary.registrant;
  const sr = secondaryHasRegistrant ? primary.registrant : secondary.registrant;
  return {
    registrar: {
      name: pick(primary.registrar.name, secondary.registrar.name),
      iana_id: pick(primary.registrar.iana_id, secondary.registrar.iana_id),
      url: pick(primary.registrar.url, secondary.registrar.url),
      abuse_email: pick(primary.registrar.abuse_email, secondary.registrar.abuse_email),
      abuse_phone: pick(primary.registrar.abuse_phone, secondary.registrar.abuse_phone),
    },
    registered_at: pick(primary.registered_at, secondary.registered_at),
    expires_at: pick(primary.expires_at, secondary.expires_at),
    updated_at: pick(primary.updated_at, secondary.updated_at),
    status: primary.status.length > 0 ? primary.status : secondary.status,
    nameservers: primary.nameservers.length > 0 ? primary.nameservers : secondary.nameservers,
    dnssec: pick(primary.dnssec, secondary.dnssec),
    registrant: {
      name: pick(pr.name, sr.name),
      organization: pick(pr.organization, sr.organization),
      country: pick(pr.country, sr.country),
      email: pick(pr.email, sr.email),
      // Redacted describes the registrant we show: a registrar that disclosed it overrides a registry that withheld it.
      redacted: secondaryHasRegistrant ? pr.redacted : pr.redacted || sr.redacted,
    },
  };
}

export function hasRegistrantData(r: Registrant): boolean {
  return r.name !== null || r.organization !== null || r.country !== null || r.email !== null;
}
