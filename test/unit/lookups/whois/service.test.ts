import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { LookupError } from '../../../../src/http/errors.js';
import { Metrics } from '../../../../src/platform/metrics.js';
import { openDatabase, type Db } from '../../../../src/platform/sqlite.js';
import { parseRdapBootstrap } from '../../../../src/lookups/whois/bootstrap.js';
import { WhoisService } from '../../../../src/lookups/whois/service.js';
import { WhoisStore } from '../../../../src/lookups/whois/store.js';
import { whoisTarget } from '../../../../src/lookups/whois/target.js';
import { parseRdapDomain } from '../../../../src/lookups/whois/rdap-parse.js';
import { parseWhois } from '../../../../src/lookups/whois/whois-parse.js';
import type { RdapResult } from '../../../../src/lookups/whois/rdap-client.js';
import type { WhoisChainResult } from '../../../../src/lookups/whois/whois-client.js';
import { rdapFull, verisignAnswer } from '../../../helpers/rdap-whois-servers.js';

const bootstrap = parseRdapBootstrap(JSON.stringify({ services: [[['com'], ['https://rdap.example/']]] }));

interface Fakes {
  rdapCalls: number;
  whoisCalls: number;
  rdap: (domain: string) => Promise<RdapResult>;
  whois: (domain: string) => Promise<WhoisChainResult>;
}

function found(domain: string): RdapResult {
  return { kind: 'found', url: `https://rdap.example/domain/${domain}`, raw: rdapFull(domain), related: null, registration: parseRdapDomain(rdapFull(domain)) };
}

function whoisAnswer(domain: string): WhoisChainResult {
  const text = verisignAnswer(domain, null);
  const parsed = parseWhois(text);
  const hop = { server: 'whois.registry.example', answer: { text, truncated: false, cutOff: false }, parsed };
  return { kind: 'answer', registry: hop, registrar: null, notFound: false, registration: parsed.registration };
}

describe('WhoisService', () => {
  let db: Db;
  let now: number;
  let fakes: Fakes;
  let metrics: Metrics;
  let service: WhoisService;

  beforeEach(() => {
    db = openDatabase(':memory:');
    now = Date.parse('2026-11-20T02:00:00Z');
    metrics = new Metrics({ defaultMetrics: false });
    fakes = {
      rdapCalls: 0,
      whoisCalls: 0,
      rdap: async (d) => found(d),
      whois: async (d) => whoisAnswer(d),
    };
    service = new WhoisService({
      store: new WhoisStore(db),
      bootstrap: { current: async () => ({ bootstrap, dataset: 'rdap-dns test', built_at: null }) },
      rdap: { domain: (_base, d) => (fakes.rdapCalls++, fakes.rdap(d)) },
      whois: { lookup: (d) => (fakes.whoisCalls++, fakes.whois(d)) },
      metrics,
      log: pino({ level: 'silent' }),
      ttlSeconds: 3600,
      concurrency: 4,
      now: () => now,
    });
  });
  afterEach(() => db.close());

  const cacheCount = async (result: string): Promise<number> => {
    const m = (await metrics.cacheRequests.get()).values.find((v) => v.labels['result'] === result && v.labels['cache'] === 'whois');
    return m?.value ?? 0;
  };

  it('fetches once, then serves the fresh record from the store with the remaining freshness', async () => {
    const first = await service.lookup(whoisTarget('www.example.com'));
    expect(first).toMatchObject({ cached: false, stale: false, maxAge: 3600 });
    expect(first.record.domain).toBe('example.com');
    now += 600_000;
    const second = await service.lookup(whoisTarget('example.com'));
    expect(second).toMatchObject({ cached: true, stale: false, maxAge: 3000 });
    expect(fakes.rdapCalls).toBe(1);
    expect(await cacheCount('hit')).toBe(1);
    expect(await cacheCount('miss')).toBe(1);
  });

  it('refetches an expired record', async () => {
    await service.lookup(whoisTarget('example.com'));
    now += 3600_000;
    const again = await service.lookup(whoisTarget('example.com'));
    expect(again.cached).toBe(false);
    expect(fakes.rdapCalls).toBe(2);
  });

  it('serves a stale record when every upstream fails, and errors when there is none', async () => {
    await service.lookup(whoisTarget('example.com'));
    now += 7200_000;
    fakes.rdap = async () => {
      throw new LookupError('upstream_error', 'RDAP down');
    };
    fakes.whois = async () => {
      throw new LookupError('upstream_timeout', 'WHOIS slow');
    };
    const stale = await service.lookup(whoisTarget('example.com'));
    expect(stale).toMatchObject({ cached: true, stale: true, maxAge: 0 });
    expect(await cacheCount('stale')).toBe(1);
    await expect(service.lookup(whoisTarget('other.com'))).rejects.toMatchObject({ code: 'upstream_error' });
  });

  it('reports 504 only when both protocols timed out', async () => {
    fakes.rdap = async () => {
      throw new LookupError('upstream_timeout', 'RDAP slow');
    };
    fakes.whois = async () => {
      throw new LookupError('upstream_timeout', 'WHOIS slow');
    };
    await expect(service.lookup(whoisTarget('example.com'))).rejects.toMatchObject({ code: 'upstream_timeout' });
  });

  it('falls back to WHOIS when RDAP fails, and uses WHOIS alone when no RDAP server is known', async () => {
    fakes.rdap = async () => {
      throw new LookupError('upstream_error', 'RDAP 500');
    };
    const viaWhois = await service.lookup(whoisTarget('example.com'));
    expect(viaWhois.record.source_type).toBe('whois');
    expect(viaWhois.record.servers).toEqual({ rdap: null, whois: 'whois.registry.example', related: null });
    const net = await service.lookup(whoisTarget('example.net'));
    expect(net.record.source_type).toBe('whois');
    expect(fakes.rdapCalls).toBe(1);
  });

  it('422 when neither RDAP nor WHOIS knows the TLD', async () => {
    fakes.whois = async () => ({ kind: 'unsupported', root: 'whois.iana.org' });
    await expect(service.lookup(whoisTarget('example.zz'))).rejects.toMatchObject({ code: 'unsupported_tld', status: 422 });
  });

  it('keeps "does not exist" answers (registration null)', async () => {
    fakes.rdap = async (d) => ({ kind: 'not_found', url: `https://rdap.example/domain/${d}`, raw: { errorCode: 404 } });
    const r = await service.lookup(whoisTarget('nothing.com'));
    expect(r.record.registration).toBeNull();
    expect((await service.lookup(whoisTarget('nothing.com'))).cached).toBe(true);
  });

  it('coalesces concurrent lookups of one domain into one upstream exchange', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fakes.rdap = async (d) => {
      await gate;
      return found(d);
    };
    const all = Promise.all(Array.from({ length: 10 }, () => service.lookup(whoisTarget('example.com'))));
    await new Promise((r) => setImmediate(r));
    release();
    const results = await all;
    expect(fakes.rdapCalls).toBe(1);
    expect(new Set(results.map((r) => r.record.fetched_at_ms)).size).toBe(1);
  });

  it('lets bugs through as bugs (not as upstream errors)', async () => {
    fakes.rdap = async () => {
      throw new TypeError('bug');
    };
    await expect(service.lookup(whoisTarget('example.com'))).rejects.toBeInstanceOf(TypeError);
  });
});
