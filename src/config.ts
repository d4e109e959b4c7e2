// The only reader of process.env. Everything below main.ts receives the slice of Config it needs.
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import cron from 'node-cron';
import { parseCidr, type Cidr } from './platform/cidr.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly publicUrl: string | null;
  readonly docsUrl: string | null;
  readonly logLevel: LogLevel;
  readonly metricsPort: number | null;
  readonly workers: number;
  readonly dohUrls: readonly string[];
  readonly dnsMaxTtl: number;
  readonly dnsTimeoutMs: number;
  readonly extraCa: string | null;
  readonly rdapBootstrap: readonly string[];
  readonly whoisServer: string;
  readonly whoisTtl: number;
  readonly upstreamTimeoutMs: number;
  readonly ctLogList: readonly string[];
  readonly ctSearchUrl: string | null;
  readonly sslCacheTtl: number;
  readonly sslTimeoutMs: number;
  readonly pingTimeoutMs: number;
  readonly probeAllow: readonly Cidr[];
  readonly probeDeny: readonly Cidr[];
  readonly probeConcurrency: number;
  readonly rateLimitLocal: number;
  readonly rateLimitNetwork: number;
  readonly trustedProxies: readonly Cidr[];
  readonly authRequired: boolean;
  /** Slots of the shared free-tier rate-limit table (fixed memory, ~20 bytes each). */
  readonly rateLimitEntries: number;
  /** Daily allowance per key plan; 0 = unlimited. */
  readonly planDaily: { readonly developer: number; readonly pro: number; readonly business: number };
  readonly staleAfter: number;
  readonly refreshSchedule: string;
  readonly refreshTz: string;
  readonly refreshMaxDelay: number;
  readonly refreshTimeoutMs: number;
  readonly refreshMaxBytes: number;
  readonly onDatasetChange: string | null;
  readonly sources: Readonly<Record<SourceName, readonly string[]>>;
  readonly requestTimeoutMs: number;
  readonly drainDelayMs: number;
  readonly networkConcurrency: number;
  readonly importDefaults: boolean;
}

export type SourceName = 'geo' | 'oui' | 'rir' | 'asnames' | 'prefixes';

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

// Real upstream addresses; an air-gapped site points these at an internal mirror or a file path.
export const DEFAULT_SOURCES: Readonly<Record<SourceName, readonly string[]>> = {
  // MaxMind and DB-IP need an account or an attribution choice, so geo has no default upstream.
  geo: [],
  oui: [
    'https://standards-oui.ieee.org/oui/oui.csv',
    'https://standards-oui.ieee.org/oui28/mam.csv',
    'https://standards-oui.ieee.org/oui36/oui36.csv',
    'https://standards-oui.ieee.org/iab/iab.csv',
    'https://standards-oui.ieee.org/cid/cid.csv',
  ],
  rir: [
    'https://ftp.arin.net/pub/stats/arin/delegated-arin-extended-latest',
    'https://ftp.ripe.net/pub/stats/ripencc/delegated-ripencc-extended-latest',
    'https://ftp.apnic.net/stats/apnic/delegated-apnic-extended-latest',
    'https://ftp.lacnic.net/pub/stats/lacnic/delegated-lacnic-extended-latest',
    'https://ftp.afrinic.net/pub/stats/afrinic/delegated-afrinic-extended-latest',
  ],
  asnames: ['https://ftp.ripe.net/ripe/asnames/asn.txt'],
  prefixes: ['https://iptoasn.com/data/ip2asn-combined.tsv.gz'],
};

export const DEFAULT_PROBE_DENY = [
  '127.0.0.0/8', '::1/128', '169.254.0.0/16', 'fe80::/10', '0.0.0.0/8', '::/128',
  '224.0.0.0/4', 'ff00::/8', '255.255.255.255/32',
];

type Env = Readonly<Record<string, string | undefined>>;

/** Parses and validates the environment; throws ConfigError with one line per bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const r = new Reader(env, problems);

  const config: Config = {
    host: r.host('NETINTEL_HOST', '0.0.0.0'),
    port: r.int('NETINTEL_PORT', 8080, 0, 65535),
    dataDir: path.resolve(r.str('NETINTEL_DATA_DIR', './data')),
    publicUrl: r.url('NETINTEL_PUBLIC_URL', ['http:', 'https:']),
    docsUrl: r.url('NETINTEL_DOCS_URL', ['http:', 'https:']),
    logLevel: r.oneOf('NETINTEL_LOG_LEVEL', LOG_LEVELS, 'info'),
    metricsPort: r.optionalInt('NETINTEL_METRICS_PORT', 1, 65535),
    workers: r.int('NETINTEL_WORKERS', Math.max(1, os.availableParallelism()), 1, 64),
    dohUrls: r.urlList('NETINTEL_DOH_URL', ['https://cloudflare-dns.com/dns-query'], ['https:', 'http:', 'udp:', 'tcp:']),
    dnsMaxTtl: r.int('NETINTEL_DNS_MAX_TTL', 3600, 0, 604800),
    dnsTimeoutMs: r.int('NETINTEL_DNS_TIMEOUT_MS', 3000, 50, 60000),
    extraCa: r.optionalStr('NETINTEL_EXTRA_CA'),
    rdapBootstrap: r.sourceList('NETINTEL_RDAP_BOOTSTRAP', ['https://data.iana.org/rdap/dns.json']),
    whoisServer: r.hostPort('NETINTEL_WHOIS_SERVER', 'whois.iana.org:43'),
    whoisTtl: r.int('NETINTEL_WHOIS_TTL', 86400, 0, 31536000),
    upstreamTimeoutMs: r.int('NETINTEL_UPSTREAM_TIMEOUT_MS', 5000, 50, 60000),
    ctLogList: r.sourceList('NETINTEL_CT_LOG_LIST', ['https://www.gstatic.com/ct/log_list/v3/log_list.json']),
    ctSearchUrl: r.url('NETINTEL_CT_SEARCH_URL', ['http:', 'https:']),
    sslCacheTtl: r.int('NETINTEL_SSL_CACHE_TTL', 300, 0, 86400),
    sslTimeoutMs: r.int('NETINTEL_SSL_TIMEOUT_MS', 5000, 50, 60000),
    pingTimeoutMs: r.int('NETINTEL_PING_TIMEOUT_MS', 2000, 10, 60000),
    probeAllow: r.cidrList('NETINTEL_PROBE_ALLOW', []),
    probeDeny: r.cidrList('NETINTEL_PROBE_DENY', DEFAULT_PROBE_DENY),
    probeConcurrency: r.int('NETINTEL_PROBE_CONCURRENCY', 32, 1, 10000),
    rateLimitLocal: r.int('NETINTEL_RATE_LIMIT_LOCAL', 1200, 0, 100_000_000),
    rateLimitNetwork: r.int('NETINTEL_RATE_LIMIT_NETWORK', 60, 0, 100_000_000),
    trustedProxies: r.cidrList('NETINTEL_TRUSTED_PROXIES', []),
    authRequired: r.bool('NETINTEL_AUTH_REQUIRED', false),
    rateLimitEntries: r.int('NETINTEL_RATE_LIMIT_ENTRIES', 131_072, 64, 16_777_216),
    planDaily: {
      developer: r.int('NETINTEL_PLAN_DEVELOPER_DAILY', 10_000, 0, 1_000_000_000),
      pro: r.int('NETINTEL_PLAN_PRO_DAILY', 100_000, 0, 1_000_000_000),
      business: r.int('NETINTEL_PLAN_BUSINESS_DAILY', 0, 0, 1_000_000_000),
    },
    staleAfter: r.int('NETINTEL_STALE_AFTER', 604800, 1, 10 * 365 * 86400),
    refreshSchedule: r.cron('NETINTEL_REFRESH_SCHEDULE', '30 3 * * *'),
    refreshTz: r.timezone('NETINTEL_REFRESH_TZ', 'UTC'),
    refreshMaxDelay: r.int('NETINTEL_REFRESH_MAX_DELAY', 1800, 0, 86400),
    refreshTimeoutMs: r.int('NETINTEL_REFRESH_TIMEOUT_MS', 600_000, 100, 86_400_000),
    refreshMaxBytes: r.int('NETINTEL_REFRESH_MAX_BYTES', 1024 * 1024 * 1024, 1024, Number.MAX_SAFE_INTEGER),
    onDatasetChange: r.optionalStr('NETINTEL_ON_DATASET_CHANGE'),
    sources: {
      geo: r.sourceList('NETINTEL_SOURCE_GEO', DEFAULT_SOURCES.geo),
      oui: r.sourceList('NETINTEL_SOURCE_OUI', DEFAULT_SOURCES.oui),
      rir: r.sourceList('NETINTEL_SOURCE_RIR', DEFAULT_SOURCES.rir),
      asnames: r.sourceList('NETINTEL_SOURCE_ASNAMES', DEFAULT_SOURCES.asnames),
      prefixes: r.sourceList('NETINTEL_SOURCE_PREFIXES', DEFAULT_SOURCES.prefixes),
    },
    requestTimeoutMs: r.int('NETINTEL_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    drainDelayMs: r.int('NETINTEL_DRAIN_DELAY_MS', 1000, 0, 5000),
    networkConcurrency: r.int('NETINTEL_NETWORK_CONCURRENCY', 256, 1, 100_000),
    importDefaults: r.bool('NETINTEL_IMPORT_DEFAULTS', true),
  };

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

class Reader {
  constructor(private readonly env: Env, private readonly problems: string[]) {}

  private raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }

  private bad(name: string, value: string, accepted: string): void {
    this.problems.push(`${name}=${JSON.stringify(value)} is invalid: expected ${accepted}`);
  }

  str(name: string, def: string): string {
    return this.raw(name) ?? def;
  }

  optionalStr(name: string): string | null {
    return this.raw(name) ?? null;
  }

  int(name: string, def: number, min: number, max: number): number {
    const v = this.raw(name);
    if (v === undefined) return def;
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      this.bad(name, v, `a whole number from ${min} to ${max}`);
      return def;
    }
    return n;
  }

  optionalInt(name: string, min: number, max: number): number | null {
    return this.raw(name) === undefined ? null : this.int(name, min, min, max);
  }

  bool(name: string, def: boolean): boolean {
    const v = this.raw(name);
    if (v === undefined) return def;
    const lower = v.toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(lower)) return true;
    if (['false', '0', 'no', 'off'].includes(lower)) return false;
    this.bad(name, v, 'true or false');
    return def;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], def: T): T {
    const v = this.raw(name);
    if (v === undefined) return def;
    if ((allowed as readonly string[]).includes(v)) return v as T;
    this.bad(name, v, `one of ${allowed.join(', ')}`);
    return def;
  }

  host(name: string, def: string): string {
    const v = this.raw(name);
    if (v === undefined) return def;
    const h = v.replace(/^\[(.*)\]$/, '$1');
    if (net.isIP(h) || /^[A-Za-z0-9.-]{1,253}$/.test(h)) return h;
    this.bad(name, v, 'an IP address or host name to listen on');
    return def;
  }

  hostPort(name: string, def: string): string {
    const v = this.raw(name);
    if (v === undefined) return def;
    if (/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(:\d{1,5})?$/.test(v)) return v;
    this.bad(name, v, 'host[:port]');
    return def;
  }

  url(name: string, protocols: readonly string[]): string | null {
    const v = this.raw(name);
    if (v === undefined) return null;
    if (isUrl(v, protocols)) return v.replace(/\/+$/, '');
    this.bad(name, v, `a URL starting with ${protocols.map((p) => p + '//').join(' or ')}`);
    return null;
  }

  urlList(name: string, def: readonly string[], protocols: readonly string[]): readonly string[] {
    const v = this.raw(name);
    if (v === undefined) return def;
    const items = splitList(v);
    const badItem = items.find((i) => !isUrl(i, protocols));
    if (items.length === 0 || badItem !== undefined) {
      this.bad(name, v, `a comma-separated list of URLs (${protocols.map((p) => p + '//').join(', ')})`);
      return def;
    }
    return items;
  }

  /** A list of sources: http(s) URLs or file paths. "none" empties the list. */
  sourceList(name: string, def: readonly string[]): readonly string[] {
    const v = this.raw(name);
    if (v === undefined) return def;
    if (v.toLowerCase() === 'none') return [];
    const items = splitList(v);
    const badItem = items.find((i) => /^[a-z][a-z0-9+.-]*:\/\//i.test(i) && !isUrl(i, ['http:', 'https:', 'file:']));
    if (badItem !== undefined) {
      this.bad(name, v, 'a comma-separated list of http(s):// URLs or file paths, or "none"');
      return def;
    }
    return items;
  }

  cidrList(name: string, def: readonly string[]): readonly Cidr[] {
    const v = this.raw(name);
    const items = v === undefined ? def : v.toLowerCase() === 'none' ? [] : splitList(v);
    const parsed: Cidr[] = [];
    for (const item of items) {
      const c = parseCidr(item);
      if (c === null) {
        this.bad(name, v ?? '', `a comma-separated list of CIDR blocks or addresses (bad entry ${JSON.stringify(item)})`);
        return [];
      }
      parsed.push(c);
    }
    return parsed;
  }

  cron(name: string, def: string): string {
    const v = this.raw(name);
    if (v === undefined) return def;
    if (cron.validate(v)) return v;
    this.bad(name, v, 'a cron expression such as "30 3 * * *"');
    return def;
  }

  timezone(name: string, def: string): string {
    const v = this.raw(name);
    if (v === undefined) return def;
    try {
      new Intl.DateTimeFormat('en', { timeZone: v });
      return v;
    } catch {
      this.bad(name, v, 'an IANA time zone such as UTC or Europe/Berlin');
      return def;
    }
  }
}

function splitList(v: string): string[] {
  return v.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

function isUrl(v: string, protocols: readonly string[]): boolean {
  try {
    const u = new URL(v);
    return protocols.includes(u.protocol) && (u.protocol === 'file:' || u.hostname !== '');
  } catch {
    return false;
  }
}
