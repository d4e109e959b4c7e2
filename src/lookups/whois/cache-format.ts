// The JSON-lines interchange format of `netintel whois-cache export|import`, version 1. Pure.
//
// One object per line:
//   {"format": "netintel-whois-cache/1", "domain": "example.com", "unicode_domain": "example.com",
//    "source_type": "rdap", "fetched_at": "2026-11-20T02:00:00.123Z", "registration": {...} | null,
//    "servers": {"rdap": ..., "whois": ...}, "bootstrap": {...} | null, "raw": ..., "raw_related": ...}
// `registration` null means "the registry said the domain does not exist".
import { parseDomainName } from '../domain-name.js';
import type { FetchedRecord, Registrant, Registrar, Registration } from './types.js';

export const CACHE_FORMAT = 'netintel-whois-cache/1';

export class CacheFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CacheFormatError';
  }
}

export function toExportLine(r: FetchedRecord): string {
  return JSON.stringify({
    format: CACHE_FORMAT,
    domain: r.domain,
    unicode_domain: r.unicode_domain,
    source_type: r.source_type,
    fetched_at: new Date(r.fetched_at_ms).toISOString(),
    registration: r.registration,
    servers: r.servers,
    bootstrap: r.bootstrap,
    raw: r.raw,
    raw_related: r.raw_related,
  });
}

/** Validates one line; throws CacheFormatError naming the first problem. */
export function parseExportLine(line: string): FetchedRecord {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new CacheFormatError('not JSON');
  }
  const o = obj(v, 'the line');
  if (o['format'] !== CACHE_FORMAT) throw new CacheFormatError(`"format" is not ${JSON.stringify(CACHE_FORMAT)}`);
  const domain = strField(o, 'domain');
  let parsed;
  try {
    parsed = parseDomainName(domain);
  } catch {
    throw new CacheFormatError('"domain" is not a valid domain name');
  }
  if (parsed.ascii !== domain) throw new CacheFormatError('"domain" must be the lower-case ASCII form');
  const sourceType = o['source_type'];
  if (sourceType !== 'rdap' && sourceType !== 'whois') throw new CacheFormatError('"source_type" must be "rdap" or "whois"');
  const fetched = Date.parse(strField(o, 'fetched_at'));
  if (!Number.isFinite(fetched) || !/^\d{4}-\d{2}-\d{2}T/.test(String(o['fetched_at']))) throw new CacheFormatError('"fetched_at" is not an ISO 8601 time');
  const servers = obj(o['servers'], '"servers"');
  const bootstrap = o['bootstrap'] === null || o['bootstrap'] === undefined ? null : obj(o['bootstrap'], '"bootstrap"');
  return {
    domain,
    unicode_domain: typeof o['unicode_domain'] === 'string' && o['unicode_domain'] !== '' ? o['unicode_domain'] : parsed.unicode,
    source_type: sourceType,
    registration: o['registration'] === null ? null : registration(o['registration']),
    servers: {
      rdap: nullableStr(servers, 'rdap', '"servers.rdap"'),
      whois: nullableStr(servers, 'whois', '"servers.whois"'),
      related: nullableStr(servers, 'related', '"servers.related"'),
    },
    raw: o['raw'] ?? null,
    raw_related: o['raw_related'] ?? null,
    fetched_at_ms: fetched,
    bootstrap: bootstrap === null ? null : { dataset: strField(bootstrap, 'dataset'), built_at: nullableStr(bootstrap, 'built_at', '"bootstrap.built_at"') },
  };
}

function registration(v: unknown): Registration {
  const o = obj(v, '"registration"');
  const r = obj(o['registrar'], '"registration.registrar"');
  const p = obj(o['registrant'], '"registration.registrant"');
  const registrar: Registrar = {
    name: nullableStr(r, 'name', 'registrar.name'),
    iana_id: nullableStr(r, 'iana_id', 'registrar.iana_id'),
    url: nullableStr(r, 'url', 'registrar.url'),
    abuse_email: nullableStr(r, 'abuse_email', 'registrar.abuse_email'),
    abuse_phone: nullableStr(r, 'abuse_phone', 'registrar.abuse_phone'),
  };
  if (typeof p['redacted'] !== 'boolean') throw new CacheFormatError('"registrant.redacted" must be a boolean');
  const registrant: Registrant = {
    name: nullableStr(p, 'name', 'registrant.name'),
    organization: nullableStr(p, 'organization', 'registrant.organization'),
    country: nullableStr(p, 'country', 'registrant.country'),
    email: nullableStr(p, 'email', 'registrant.email'),
    redacted: p['redacted'],
  };
  const dnssec = o['dnssec'];
  if (dnssec !== null && typeof dnssec !== 'boolean') throw new CacheFormatError('"dnssec" must be a boolean or null');
  return {
    registrar,
    registered_at: time(o, 'registered_at'),
    expires_at: time(o, 'expires_at'),
    updated_at: time(o, 'updated_at'),
    status: strings(o['status'], 'status'),
    nameservers: strings(o['nameservers'], 'nameservers'),
    dnssec,
    registrant,
  };
}

function time(o: Record<string, unknown>, key: string): string | null {
  const v = nullableStr(o, key, key);
  if (v !== null && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(v)) throw new CacheFormatError(`"${key}" is not an ISO 8601 UTC time`);
  return v;
}

function strings(v: unknown, name: string): string[] {
  if (!Array.isArray(v) || v.length > 1000 || !v.every((x) => typeof x === 'string')) throw new CacheFormatError(`"${name}" must be an array of strings`);
  return v as string[];
}

function obj(v: unknown, name: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new CacheFormatError(`${name} is not an object`);
  return v as Record<string, unknown>;
}

function strField(o: Record<string, unknown>, key: string): string {
  const v = o[key];
  if (typeof v !== 'string' || v === '') throw new CacheFormatError(`"${key}" must be a non-empty string`);
  return v;
}

function nullableStr(o: Record<string, unknown>, key: string, name: string): string | null {
  const v = o[key];
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') throw new CacheFormatError(`${name} must be a string or null`);
  return v;
}
