import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ConfigError, DEFAULT_SOURCES, loadConfig } from '../../src/config.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return [...(e as ConfigError).problems];
  }
}

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const c = loadConfig({});
    expect(c.host).toBe('0.0.0.0');
    expect(c.port).toBe(8080);
    expect(c.dataDir.endsWith('/data')).toBe(true);
    expect(c.logLevel).toBe('info');
    expect(c.metricsPort).toBeNull();
    expect(c.workers).toBeGreaterThanOrEqual(1);
    expect(c.whoisServer).toBe('whois.iana.org:43');
    expect(c.whoisTtl).toBe(86400);
    expect(c.pingTimeoutMs).toBe(2000);
    expect(c.rateLimitLocal).toBe(1200);
    expect(c.rateLimitNetwork).toBe(60);
    expect(c.authRequired).toBe(false);
    expect(c.staleAfter).toBe(604800);
    expect(c.refreshSchedule).toBe('30 3 * * *');
    expect(c.refreshTz).toBe('UTC');
    expect(c.sources).toEqual(DEFAULT_SOURCES);
    expect(c.probeDeny.map((d) => d.text)).toContain('127.0.0.0/8');
    expect(c.probeAllow).toEqual([]);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads every documented variable', () => {
    const c = loadConfig({
      NETINTEL_HOST: '127.0.0.1',
      NETINTEL_PORT: '0',
      NETINTEL_DATA_DIR: '/var/lib/netintel',
      NETINTEL_PUBLIC_URL: 'https://netintel.internal/',
      NETINTEL_DOCS_URL: 'https://docs.internal/netintel',
      NETINTEL_LOG_LEVEL: 'debug',
      NETINTEL_METRICS_PORT: '9100',
      NETINTEL_WORKERS: '3',
      NETINTEL_DOH_URL: 'https://resolver.internal/dns-query, udp://10.0.0.53:53',
      NETINTEL_WHOIS_SERVER: 'whois.internal:4343',
      NETINTEL_PROBE_ALLOW: '10.0.0.0/8,fd00::/8',
      NETINTEL_PROBE_DENY: 'none',
      NETINTEL_TRUSTED_PROXIES: '192.168.1.1',
      NETINTEL_AUTH_REQUIRED: 'true',
      NETINTEL_RATE_LIMIT_NETWORK: '0',
      NETINTEL_REFRESH_SCHEDULE: '0 4 * * 1',
      NETINTEL_REFRESH_TZ: 'Europe/Berlin',
      NETINTEL_SOURCE_OUI: '/srv/mirror/oui.csv,https://mirror.internal/mam.csv',
      NETINTEL_SOURCE_GEO: 'none',
    });
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(0);
    expect(c.dataDir).toBe('/var/lib/netintel');
    expect(c.publicUrl).toBe('https://netintel.internal');
    expect(c.docsUrl).toBe('https://docs.internal/netintel');
    expect(c.logLevel).toBe('debug');
    expect(c.metricsPort).toBe(9100);
    expect(c.workers).toBe(3);
    expect(c.dohUrls).toEqual(['https://resolver.internal/dns-query', 'udp://10.0.0.53:53']);
    expect(c.whoisServer).toBe('whois.internal:4343');
    expect(c.probeAllow.map((x) => x.text)).toEqual(['10.0.0.0/8', 'fd00::/8']);
    expect(c.probeDeny).toEqual([]);
    expect(c.trustedProxies.map((x) => x.text)).toEqual(['192.168.1.1/32']);
    expect(c.authRequired).toBe(true);
    expect(c.rateLimitNetwork).toBe(0);
    expect(c.refreshSchedule).toBe('0 4 * * 1');
    expect(c.refreshTz).toBe('Europe/Berlin');
    expect(c.sources.oui).toEqual(['/srv/mirror/oui.csv', 'https://mirror.internal/mam.csv']);
    expect(c.sources.geo).toEqual([]);
  });

  it.each([
    ['NETINTEL_PORT', '70000'],
    ['NETINTEL_PORT', '-1'],
    ['NETINTEL_PORT', '80a'],
    ['NETINTEL_WORKERS', '0'],
    ['NETINTEL_LOG_LEVEL', 'verbose'],
    ['NETINTEL_AUTH_REQUIRED', 'maybe'],
    ['NETINTEL_DOH_URL', 'ftp://x/'],
    ['NETINTEL_PROBE_DENY', '10.0.0.0/33'],
    ['NETINTEL_TRUSTED_PROXIES', 'proxy.internal'],
    ['NETINTEL_REFRESH_SCHEDULE', 'every night'],
    ['NETINTEL_REFRESH_TZ', 'Mars/Olympus'],
    ['NETINTEL_PUBLIC_URL', 'netintel.internal'],
    ['NETINTEL_SOURCE_RIR', 'ftp://ftp.example/delegated'],
    ['NETINTEL_WHOIS_SERVER', 'who is:43'],
  ])('rejects %s=%s with one line naming the variable', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(name);
    expect(problems[0]).toContain('expected');
  });

  it('reports every bad variable at once', () => {
    expect(problemsOf({ NETINTEL_PORT: 'x', NETINTEL_LOG_LEVEL: 'loud', NETINTEL_WORKERS: '-2' })).toHaveLength(3);
  });

  it('never throws anything but ConfigError on arbitrary values', () => {
    const names = ['NETINTEL_PORT', 'NETINTEL_HOST', 'NETINTEL_DOH_URL', 'NETINTEL_PROBE_ALLOW', 'NETINTEL_REFRESH_SCHEDULE', 'NETINTEL_SOURCE_GEO', 'NETINTEL_AUTH_REQUIRED'];
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.string({ maxLength: 80 }), (name, value) => {
        try {
          loadConfig({ [name]: value });
        } catch (e) {
          expect(e).toBeInstanceOf(ConfigError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
