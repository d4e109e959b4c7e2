// RDAP domain objects (RFC 9083, RFC 9537 redaction, the ICANN gTLD profile) → Registration. Pure.
//
// Registries differ in the details, so every accessor is tolerant: numbers may arrive as strings,
// vCards may lack the "vcard" header or use upper-case property names, events may lack dates,
// and contacts may be redacted by omission, by RFC 9537 `redacted` members or by placeholder text.
import { domainToASCII } from 'node:url';
import { parseRegistryDate } from './dates.js';
import { EMPTY_REGISTRANT, EMPTY_REGISTRAR, eppToRdapStatus, type Registrant, type Registrar, type Registration } from './types.js';

export class RdapFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RdapFormatError';
  }
}

type Obj = Record<string, unknown>;

const MAX_ENTITY_DEPTH = 4;
const MAX_LIST = 256;

// Placeholder values registries and registrars put where they withhold personal data.
const REDACTION_TEXT =
  /redacted|withheld|not disclosed|non-public|data protected|gdpr|statutory masking|please query the (?:rdds|registrar)|contact the registrar|not available from registry/i;

export function isRedactionPlaceholder(value: string): boolean {
  return REDACTION_TEXT.test(value);
}

/** Whether an RDAP answer is an error object saying the domain does not exist (some servers answer 200). */
export function isRdapNotFound(json: unknown): boolean {
  const o = asObj(json);
  return o !== null && num(o['errorCode']) === 404;
}

/**
 * Reads a domain object. Throws RdapFormatError when `json` is not a domain object at all
 * (a different object class, an error object, a non-object).
 */
export function parseRdapDomain(json: unknown): Registration {
  const o = asObj(json);
  if (o === null) throw new RdapFormatError('the RDAP answer is not a JSON object');
  if (o['errorCode'] !== undefined) throw new RdapFormatError(`the RDAP server answered with error ${str(o['errorCode']) ?? '?'}`);
  const cls = str(o['objectClassName']);
  if (cls !== null ? cls.toLowerCase() !== 'domain' : str(o['ldhName']) === null && str(o['unicodeName']) === null) {
    throw new RdapFormatError('the RDAP answer is not a domain object');
  }

  const entities = flattenEntities(o['entities']);
  const registrarEntity = entities.find((e) => e.roles.includes('registrar')) ?? null;
  const registrantEntity = entities.find((e) => e.roles.includes('registrant')) ?? null;

  return {
    registrar: registrarEntity === null ? EMPTY_REGISTRAR : readRegistrar(registrarEntity, entities),
    registered_at: eventDate(o, ['registration']),
    expires_at: eventDate(o, ['expiration']),
    updated_at: eventDate(o, ['last changed']),
    status: unique(list(o['status']).map((s) => str(s)).filter((s): s is string => s !== null).map(eppToRdapStatus).filter((s) => s !== '')),
    nameservers: unique(
      list(o['nameservers'])
        .map((ns) => asObj(ns))
        .map((ns) => (ns === null ? null : hostName(str(ns['ldhName']) ?? str(ns['unicodeName']))))
        .filter((h): h is string => h !== null),
    ),
    dnssec: bool(asObj(o['secureDNS'])?.['delegationSigned']),
    registrant: readRegistrant(registrantEntity, o),
  };
}

/**
 * `related` links to the registrar's copy of the domain object (ICANN gTLD profile), absolute
 * http(s) URLs only, excluding the answer's own address.
 */
export function relatedRdapLinks(json: unknown, selfUrl: string): string[] {
  const o = asObj(json);
  if (o === null) return [];
  const out: string[] = [];
  for (const l of list(o['links'])) {
    const link = asObj(l);
    if (link === null || str(link['rel'])?.toLowerCase() !== 'related') continue;
    const href = str(link['href']);
    const type = str(link['type'])?.toLowerCase() ?? '';
    if (href === null) continue;
    let url: URL;
    try {
      url = new URL(href, selfUrl);
    } catch {
      continue;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') continue;
    // A related link may also point at a web page; only RDAP domain objects are followed.
    if (!type.includes('rdap') && !/\/domain\/[^/]+\/?$/i.test(url.pathname)) continue;
    if (sameUrl(url.href, selfUrl) || out.includes(url.href)) continue;
    out.push(url.href);
  }
  return out;
}

interface Entity {
  readonly roles: readonly string[];
  readonly obj: Obj;
  readonly vcard: VCard;
  readonly parent: Entity | null;
}

function flattenEntities(value: unknown): Entity[] {
  const out: Entity[] = [];
  const walk = (v: unknown, parent: Entity | null, depth: number): void => {
    if (depth > MAX_ENTITY_DEPTH) return;
    for (const raw of list(v)) {
      const obj = asObj(raw);
      if (obj === null) continue;
      const roles = list(obj['roles']).map((r) => str(r)?.toLowerCase().trim()).filter((r): r is string => r !== undefined && r !== null);
      const e: Entity = { roles, obj, vcard: readVCard(obj), parent };
      out.push(e);
      walk(obj['entities'], e, depth + 1);
    }
  };
  walk(value, null, 0);
  return out;
}

function readRegistrar(e: Entity, all: readonly Entity[]): Registrar {
  const ianaId = list(e.obj['publicIds'])
    .map((p) => asObj(p))
    .find((p) => p !== null && /iana/i.test(str(p['type']) ?? ''));
  // The ICANN profile nests the abuse contact inside the registrar; some servers put it beside.
  const abuse = all.find((x) => x.roles.includes('abuse') && x.parent === e) ?? all.find((x) => x.roles.includes('abuse') && x.parent === null) ?? null;
  return {
    name: clean(e.vcard.fn) ?? clean(e.vcard.org),
    iana_id: ianaId === undefined || ianaId === null ? null : clean(str(ianaId['identifier'])),
    url: clean(e.vcard.url) ?? htmlLink(e.obj),
    abuse_email: abuse === null ? null : clean(abuse.vcard.email),
    abuse_phone: abuse === null ? null : clean(abuse.vcard.tel),
  };
}

function readRegistrant(e: Entity | null, domain: Obj): Registrant {
  let redacted = registrantRedactedByRfc9537(domain);
  if (e === null) return { ...EMPTY_REGISTRANT, redacted };
  const v = e.vcard;
  const keep = (s: string | null): string | null => {
    const c = clean(s);
    if (c !== null && isRedactionPlaceholder(c)) {
      redacted = true;
      return null;
    }
    return c;
  };
  // A vCard of kind "org" carries the organisation in fn; otherwise fn is a person.
  const isOrg = v.kind === 'org';
  const name = isOrg ? null : keep(v.fn);
  const organization = keep(v.org) ?? (isOrg ? keep(v.fn) : null);
  const country = keep(v.country);
  const email = keep(v.email);
  if (remarksSayRedacted(e.obj)) redacted = true;
  return { name, organization, country: normaliseCountry(country), email, redacted };
}

function registrantRedactedByRfc9537(domain: Obj): boolean {
  return list(domain['redacted']).some((r) => {
    const o = asObj(r);
    if (o === null) return false;
    const name = asObj(o['name']);
    const text = [str(name?.['type']), str(name?.['description']), str(o['prePath']), str(o['postPath']), str(o['replacementPath'])]
      .filter((s): s is string => s !== null)
      .join(' ');
    return /registrant/i.test(text);
  });
}

function remarksSayRedacted(o: Obj): boolean {
  return list(o['remarks']).some((r) => {
    const rem = asObj(r);
    if (rem === null) return false;
    const text = [str(rem['title']), ...list(rem['description']).map((d) => str(d))].filter((s): s is string => s !== null).join(' ');
    return /redact/i.test(text);
  });
}

function htmlLink(o: Obj): string | null {
  for (const l of list(o['links'])) {
    const link = asObj(l);
    if (link === null) continue;
    const rel = str(link['rel'])?.toLowerCase();
    const type = str(link['type'])?.toLowerCase() ?? '';
    const href = str(link['href']);
    if (href !== null && rel === 'about' && type.includes('html') && /^https?:\/\//i.test(href)) return href;
  }
  return null;
}

interface VCard {
  fn: string | null;
  org: string | null;
  kind: string | null;
  email: string | null;
  tel: string | null;
  url: string | null;
  country: string | null;
}

// jCard (RFC 7095): ["vcard", [[name, params, type, value, ...], ...]]. Also accepts the property
// list without the header, and the JSContact `jscard` member some servers add during the transition.
function readVCard(entity: Obj): VCard {
  const card: VCard = { fn: null, org: null, kind: null, email: null, tel: null, url: null, country: null };
  const arr = list(entity['vcardArray']);
  const props = typeof arr[0] === 'string' ? list(arr[1]) : Array.isArray(arr[0]) && Array.isArray((arr[0] as unknown[])[0]) ? list(arr[0]) : arr;
  let voice: string | null = null;
  let anyTel: string | null = null;
  for (const p of props.slice(0, MAX_LIST)) {
    if (!Array.isArray(p) || p.length < 4) continue;
    const name = str(p[0])?.toLowerCase();
    const params = asObj(p[1]) ?? {};
    const value = p.length > 4 ? p.slice(3) : p[3];
    switch (name) {
      case 'fn':
        card.fn ??= text(value);
        break;
      case 'org':
        card.org ??= text(value, ', ');
        break;
      case 'kind':
        card.kind ??= text(value)?.toLowerCase() ?? null;
        break;
      case 'email':
        card.email ??= stripScheme(text(value), 'mailto:');
        break;
      case 'url':
        card.url ??= text(value);
        break;
      case 'tel': {
        const t = stripScheme(text(value), 'tel:');
        const types = list(params['type']).concat(params['type'] === undefined ? [] : [params['type']]).map((x) => String(x).toLowerCase());
        if (types.includes('fax')) break;
        anyTel ??= t;
        if (types.includes('voice')) voice ??= t;
        break;
      }
      case 'adr': {
        const cc = str(params['cc']);
        const parts = Array.isArray(value) ? value : [];
        // RFC 9083 / RFC 6350 adr: pobox, ext, street, locality, region, code, country.
        const countryName = parts.length >= 7 ? text(parts[6]) : null;
        card.country ??= cc ?? countryName;
        break;
      }
      default:
        break;
    }
  }
  card.tel = voice ?? anyTel;
  const js = asObj(entity['jscard']);
  if (js !== null) {
    card.fn ??= str(asObj(js['name'])?.['full']);
    card.org ??= firstOf(js['organizations'], 'name');
    card.email ??= firstOf(js['emails'], 'address');
    card.tel ??= stripScheme(firstOf(js['phones'], 'number'), 'tel:');
    card.country ??= firstOf(js['addresses'], 'countryCode');
    card.kind ??= str(js['kind'])?.toLowerCase() ?? null;
  }
  return card;
}

function firstOf(map: unknown, key: string): string | null {
  const o = asObj(map);
  if (o === null) return null;
  for (const v of Object.values(o).slice(0, MAX_LIST)) {
    const s = str(asObj(v)?.[key]);
    if (s !== null) return s;
  }
  return null;
}

function eventDate(o: Obj, actions: readonly string[]): string | null {
  for (const ev of list(o['events'])) {
    const e = asObj(ev);
    if (e === null) continue;
    const action = str(e['eventAction'])?.toLowerCase().trim();
    if (action === undefined || action === null || !actions.includes(action)) continue;
    const date = parseRegistryDate(str(e['eventDate']));
    if (date !== null) return date;
  }
  return null;
}

function normaliseCountry(c: string | null): string | null {
  if (c === null) return null;
  return /^[A-Za-z]{2}$/.test(c) ? c.toUpperCase() : c;
}

const HOST = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)+$/;

function hostName(h: string | null): string | null {
  if (h === null) return null;
  let s = h.trim().toLowerCase().replace(/\.$/, '');
  // unicodeName holds the IDN form; name servers are reported in their ASCII form.
  if (/[^\x00-\x7f]/.test(s)) s = domainToASCII(s);
  return s.length <= 253 && HOST.test(s) ? s : null;
}

function stripScheme(s: string | null, scheme: string): string | null {
  if (s === null) return null;
  return s.toLowerCase().startsWith(scheme) ? s.slice(scheme.length) : s;
}

function text(v: unknown, joiner = ' '): string | null {
  if (Array.isArray(v)) {
    const parts = v.slice(0, MAX_LIST).map((x) => text(x, joiner)).filter((x): x is string => x !== null);
    return parts.length === 0 ? null : parts.join(joiner);
  }
  return str(v);
}

function clean(s: string | null | undefined): string | null {
  if (s === null || s === undefined) return null;
  const t = s.replace(/\s+/g, ' ').trim();
  return t === '' ? null : t;
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

function sameUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '').toLowerCase() === b.replace(/\/+$/, '').toLowerCase();
}

function asObj(v: unknown): Obj | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v.slice(0, MAX_LIST) : [];
}

function str(v: unknown): string | null {
  if (typeof v === 'string') return v.trim() === '' ? null : v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) return Number(v.trim());
  return null;
}

function bool(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    if (/^(true|yes|1)$/i.test(v.trim())) return true;
    if (/^(false|no|0)$/i.test(v.trim())) return false;
  }
  return null;
}
