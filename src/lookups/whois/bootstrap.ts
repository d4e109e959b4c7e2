// The RDAP bootstrap registry for domains (RFC 9224, IANA `dns.json`): parsing and matching. Pure.
import { parseRegistryDate } from './dates.js';

export class BootstrapFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BootstrapFormatError';
  }
}

export interface RdapBootstrap {
  /** The file's `version` member (IANA publishes "1.0"). */
  readonly version: string | null;
  /** The file's `publication` time, ISO 8601 UTC. */
  readonly publication: string | null;
  /** Lower-case label suffix ("com", "co.uk", "xn--p1ai") → base URLs ending in "/", preferred first. */
  readonly services: ReadonlyMap<string, readonly string[]>;
}

const MAX_SERVICES = 100_000;
const MAX_LABELS = 253;

/**
 * Parses a `dns.json` document. Entries that are not [[labels], [urls]] pairs are skipped; a file
 * without a single usable entry is refused, because activating it would switch RDAP off.
 */
export function parseRdapBootstrap(text: string): RdapBootstrap {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new BootstrapFormatError('the RDAP bootstrap file is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new BootstrapFormatError('the RDAP bootstrap file is not a JSON object');
  const o = doc as Record<string, unknown>;
  if (!Array.isArray(o['services'])) throw new BootstrapFormatError('the RDAP bootstrap file has no "services" array (RFC 9224)');
  const services = new Map<string, string[]>();
  for (const entry of o['services'].slice(0, MAX_SERVICES)) {
    if (!Array.isArray(entry) || entry.length < 2 || !Array.isArray(entry[0]) || !Array.isArray(entry[1])) continue;
    const urls = preferHttps((entry[1] as unknown[]).map(baseUrl).filter((u): u is string => u !== null));
    if (urls.length === 0) continue;
    for (const label of (entry[0] as unknown[]).slice(0, MAX_LABELS)) {
      if (typeof label !== 'string') continue;
      const key = label.trim().toLowerCase().replace(/^\.+|\.+$/g, '');
      if (!/^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/.test(key)) continue;
      // RFC 9224 keeps the first entry for a label seen twice.
      if (!services.has(key)) services.set(key, urls);
    }
  }
  if (services.size === 0) throw new BootstrapFormatError('the RDAP bootstrap file lists no usable service');
  const publication = typeof o['publication'] === 'string' ? parseRegistryDate(o['publication']) : null;
  return {
    version: typeof o['version'] === 'string' && o['version'].length <= 64 ? o['version'] : null,
    publication,
    services,
  };
}

/** Longest label-suffix match (RFC 9224 section 4): `a.example.co.uk` tries the whole name, then `example.co.uk`, `co.uk`, `uk`. */
export function matchRdapBase(bootstrap: RdapBootstrap, domain: string): string | null {
  const labels = domain.toLowerCase().replace(/\.$/, '').split('.');
  for (let i = 0; i < labels.length; i++) {
    const urls = bootstrap.services.get(labels.slice(i).join('.'));
    if (urls !== undefined && urls.length > 0) return urls[0]!;
  }
  return null;
}

/** The label the health resource and `source` show for a bootstrap version. */
export function bootstrapLabel(b: Pick<RdapBootstrap, 'publication'>, sha256: string): string {
  return `rdap-dns ${b.publication ?? sha256.slice(0, 12)}`;
}

function baseUrl(u: unknown): string | null {
  if (typeof u !== 'string') return null;
  let url: URL;
  try {
    url = new URL(u.trim());
  } catch {
    return null;
  }
  // http:// is kept (after https://) because internal mirrors and test servers use it.
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '' || url.username !== '' || url.password !== '') return null;
  url.search = '';
  url.hash = '';
  const href = url.href;
  return href.endsWith('/') ? href : `${href}/`;
}

function preferHttps(urls: readonly string[]): string[] {
  const unique = [...new Set(urls)];
  return [...unique.filter((u) => u.startsWith('https:')), ...unique.filter((u) => !u.startsWith('https:'))];
}
