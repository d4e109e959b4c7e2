// Port-43 WHOIS answers → Registration, referrals and "does not exist". Pure.
//
// There is no WHOIS grammar, only habits. Handled here: the ICANN/Verisign "Key: value" layout,
// RIPE-style lower-case keys (DENIC `Nserver:`/`Changed:`, .ru `created:`/`paid-till:`/`nserver:`),
// and Nominet-style blocks where a heading line ("Name servers:") is followed by indented values.
// Keys are matched exactly (after normalisation) so that legal footers cannot leak into fields.
import { parseRegistryDate } from './dates.js';
import { isRedactionPlaceholder } from './rdap-parse.js';
import { eppToRdapStatus, type Registrant, type Registrar, type Registration } from './types.js';

export interface WhoisParse {
  /** The server says the domain does not exist. */
  readonly notFound: boolean;
  /** The answer carries registration data (dates, name servers, status, registrar or the domain itself). */
  readonly hasData: boolean;
  readonly registration: Registration;
  /** The next server to ask (`host` or `host:port`), from `refer:`, `whois:` or `Registrar WHOIS Server:`. */
  readonly referral: string | null;
}

const MAX_LINES = 20_000;
const MAX_VALUES_PER_KEY = 64;

const KEYS = {
  registered: ['creation date', 'created', 'created on', 'created date', 'registered on', 'registration date', 'registration time',
    'domain registration date', 'domain name commencement date', 'record created', 'registered date', 'domain created', 'create date',
    'commencement date', 'registered'],
  expires: ['registry expiry date', 'expiry date', 'expiration date', 'registrar registration expiration date', 'expires', 'expires on',
    'expire date', 'paid-till', 'expiration time', 'renewal date', 'valid until', 'domain expiration date', 'record expires', 'expiry'],
  updated: ['updated date', 'last updated', 'changed', 'last modified', 'modified', 'last update', 'last-update', 'updated',
    'last updated on', 'last-modified', 'modified date'],
  nameservers: ['name server', 'nserver', 'nameserver', 'nameservers', 'name servers', 'dns', 'domain nameservers', 'name server(s)'],
  status: ['domain status', 'status', 'state'],
  dnssec: ['dnssec', 'dnssec status', 'signing key', 'dnskey', 'ds-rdata'],
  registrarName: ['registrar', 'sponsoring registrar', 'registrar name', 'registrar organization'],
  ianaId: ['registrar iana id', 'sponsoring registrar iana id', 'registrar iana'],
  registrarUrl: ['registrar url', 'referral url', 'registrar website', 'registrar url (registration services)'],
  abuseEmail: ['registrar abuse contact email', 'abuse contact email', 'registrar abuse email'],
  abusePhone: ['registrar abuse contact phone', 'abuse contact phone', 'registrar abuse phone'],
  registrantName: ['registrant name', 'registrant', 'registrant contact name'],
  registrantOrg: ['registrant organization', 'registrant organisation', 'registrant org', 'org'],
  registrantCountry: ['registrant country', 'registrant country code', 'registrant country/economy'],
  registrantEmail: ['registrant email', 'registrant e-mail', 'registrant contact email'],
  referral: ['refer', 'whois', 'registrar whois server', 'whois server', 'referralserver'],
  domain: ['domain name', 'domain'],
} as const;

// Only consulted when the answer has no dates and no name servers, so legal text cannot trigger it.
const NOT_FOUND = [
  /\bno match(?:es)?\b/i,
  /\bnot found\b/i,
  /\bno data found\b/i,
  /\bno entries found\b/i,
  /\bno object found\b/i,
  /\bno such domain\b/i,
  /\bobject does not exist\b/i,
  /\bhas not been registered\b/i,
  /\bno records? (?:matching|found)\b/i,
  /\bnothing found\b/i,
  /\bis available for (?:registration|purchase)\b/i,
  // [ \t] rather than \s: with the m flag, \s* would run across blank lines from every line start.
  /^[ \t]*status:[ \t]*(?:free|available|not registered|no object found)[ \t]*$/im,
];

/** Splits an answer into normalised key → values, following indented Nominet-style blocks. */
export function whoisFields(text: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  const add = (key: string, value: string): void => {
    const v = value.trim();
    if (key === '' || v === '') return;
    const arr = fields.get(key);
    if (arr === undefined) fields.set(key, [v]);
    else if (arr.length < MAX_VALUES_PER_KEY) arr.push(v);
  };
  let block: { key: string; indent: number } | null = null;
  const lines = text.split(/\r?\n|\r/, MAX_LINES);
  for (const line of lines) {
    if (line.trim() === '') {
      block = null;
      continue;
    }
    const trimmedStart = line.trimStart();
    if (trimmedStart.startsWith('%') || trimmedStart.startsWith('#') || trimmedStart.startsWith('>>>')) continue;
    const indent = line.length - trimmedStart.length;
    if (block !== null && indent <= block.indent) block = null;
    const kv = /^([^:]{1,80}?)\s*:(?:\s+(.*)|\s*)$/.exec(trimmedStart) ?? /^([^:]{1,80}?)\s*:(?!\/\/)(.*)$/.exec(trimmedStart);
    if (kv !== null) {
      const key = normaliseKey(kv[1]!);
      const value = (kv[2] ?? '').trim();
      if (value === '') {
        block = { key, indent };
      } else {
        add(key, value);
        // Inside a block, "URL:" under "Registrar:" also reads as "registrar url".
        if (block !== null) add(`${block.key} ${key}`, value);
      }
      continue;
    }
    if (block !== null) add(block.key, trimmedStart);
  }
  return fields;
}

function normaliseKey(k: string): string {
  return k
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.{2,}$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Parses one WHOIS answer. Never throws: unknown text yields empty fields. */
export function parseWhois(text: string): WhoisParse {
  const f = whoisFields(typeof text === 'string' ? text : '');
  const values = (keys: readonly string[]): string[] => keys.flatMap((k) => f.get(k) ?? []);
  const first = (keys: readonly string[]): string | null => values(keys)[0] ?? null;
  const firstDate = (keys: readonly string[]): string | null => {
    for (const v of values(keys)) {
      const d = parseRegistryDate(v);
      if (d !== null) return d;
    }
    return null;
  };

  let redacted = false;
  const personal = (keys: readonly string[]): string | null => {
    const v = clean(first(keys));
    if (v !== null && isRedactionPlaceholder(v)) {
      redacted = true;
      return null;
    }
    return v;
  };

  const registrar: Registrar = {
    name: clean(first(KEYS.registrarName)?.replace(/\s*\[tag\s*=[^\]]*\]\s*$/i, '') ?? null),
    iana_id: clean(first(KEYS.ianaId)),
    url: clean(first(KEYS.registrarUrl)),
    abuse_email: clean(first(KEYS.abuseEmail)),
    abuse_phone: clean(first(KEYS.abusePhone)),
  };
  const country = personal(KEYS.registrantCountry);
  const registrant: Registrant = {
    name: personal(KEYS.registrantName),
    organization: personal(KEYS.registrantOrg),
    country: country !== null && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : country,
    email: personal(KEYS.registrantEmail),
    redacted: false,
  };

  const nameservers = unique(values(KEYS.nameservers).map(nameserverOf).filter((n): n is string => n !== null));
  const status = unique(values(KEYS.status).flatMap(statusValues));
  const registration: Registration = {
    registrar,
    registered_at: firstDate(KEYS.registered),
    expires_at: firstDate(KEYS.expires),
    updated_at: firstDate(KEYS.updated),
    status,
    nameservers,
    dnssec: dnssecOf(f),
    registrant: { ...registrant, redacted },
  };

  const strongData = registration.registered_at !== null || registration.expires_at !== null || nameservers.length > 0;
  const notFound = !strongData && NOT_FOUND.some((re) => re.test(text));
  const hasData = strongData || registrar.name !== null || status.length > 0 || first(KEYS.domain) !== null;
  return { notFound, hasData: hasData && !notFound, registration, referral: extractReferral(f) };
}

/** The first usable referral in an answer (`refer:`, `whois:`, `Registrar WHOIS Server:`, ...). */
export function extractReferral(input: string | Map<string, string[]>): string | null {
  const f = typeof input === 'string' ? whoisFields(input) : input;
  for (const key of KEYS.referral) {
    for (const v of f.get(key) ?? []) {
      const server = normaliseWhoisServer(v);
      if (server !== null) return server;
    }
  }
  return null;
}

/**
 * `whois.example.net`, `whois://whois.example.net/`, `127.0.0.1:4343`, `[::1]:43` → `host[:port]`
 * in lower case; anything else (a web URL, "N/A", a bare word) → null.
 */
export function normaliseWhoisServer(value: string): string | null {
  let v = value.trim().toLowerCase();
  const scheme = /^([a-z]+):\/\//.exec(v);
  if (scheme !== null) {
    if (scheme[1] !== 'whois' && scheme[1] !== 'rwhois') return null;
    v = v.slice(scheme[0].length);
  }
  v = v.replace(/\/+$/, '');
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9_])?)(?::(\d{1,5}))?$/.exec(v);
  if (m === null) return null;
  const host = m[1]!;
  if (!host.startsWith('[') && !host.includes('.')) return null;
  if (m[2] !== undefined) {
    const port = Number(m[2]);
    if (port < 1 || port > 65535) return null;
    return port === 43 ? host : `${host}:${port}`;
  }
  return host;
}

function nameserverOf(v: string): string | null {
  // "ns1.example.de 192.0.2.1" (DENIC glue) and "NS1.EXAMPLE.COM." both reduce to the host name.
  const token = v.trim().split(/\s+/)[0]?.toLowerCase().replace(/\.$/, '') ?? '';
  return /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)+$/.test(token) && token.length <= 253 ? token : null;
}

function statusValues(v: string): string[] {
  // "clientDeleteProhibited https://icann.org/epp#clientDeleteProhibited" → the code without its URL.
  const withoutUrls = v.replace(/\(?https?:\/\/\S*\)?/gi, ' ').trim();
  return withoutUrls
    .split(',')
    .map((s) => eppToRdapStatus(s.replace(/\s+/g, ' ')))
    .filter((s) => s !== '' && s.length <= 64);
}

function dnssecOf(f: Map<string, string[]>): boolean | null {
  const v = f.get('dnssec')?.[0] ?? f.get('dnssec status')?.[0];
  if (v !== undefined) {
    if (/^(unsigned|no|false|inactive|not signed|unsigned delegation)/i.test(v.trim())) return false;
    if (/signed|yes|true|active/i.test(v)) return true;
  }
  // DENIC and RIPE-style registries list key material instead of a flag.
  if (f.has('dnskey') || f.has('ds-rdata') || f.has('signing key')) return true;
  return null;
}

function clean(s: string | null): string | null {
  if (s === null) return null;
  const t = s.replace(/\s+/g, ' ').trim();
  return t === '' ? null : t;
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
