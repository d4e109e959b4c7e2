// DnsService against real resolvers on loopback (no daemon): caching, single-flight, failover and
// failure mapping. The cache clock is injected, so TTL expiry is driven, never slept through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { DnsService } from '../../../../src/lookups/dns/index.js';
import { DnsResolver } from '../../../../src/lookups/dns/resolver.js';
import { parseResolverUrl } from '../../../../src/lookups/dns/resolver-url.js';
import { createTransport } from '../../../../src/lookups/dns/transports.js';
import { parseDomainName } from '../../../../src/lookups/domain-name.js';
import { LookupError } from '../../../../src/http/errors.js';
import { Metrics } from '../../../../src/platform/metrics.js';
import type { QueryType } from '../../../../src/lookups/dns/types.js';
import { ZONE, deadUdpUrl, startBadUdpServer, startDohServer, startZoneServer, type DohServer, type RawUdpServer, type ZoneServer } from '../../../helpers/dns-servers.js';

let zone: ZoneServer;
let doh: DohServer;
const bad: Record<string, RawUdpServer> = {};
const agent = new Agent();

beforeAll(async () => {
  zone = await startZoneServer();
  doh = await startDohServer({ authenticated: true });
  for (const b of ['servfail', 'silent', 'garbage', 'wrong-id', 'wrong-question', 'truncated-body'] as const) bad[b] = await startBadUdpServer(b);
});
afterAll(async () => {
  await zone.close();
  await doh.close();
  for (const b of Object.values(bad)) await b.close();
  await agent.close();
});

function service(urls: string[], opts: { timeoutMs?: number; maxTtl?: number; now?: () => number } = {}) {
  const metrics = new Metrics({ defaultMetrics: false });
  const timeoutMs = opts.timeoutMs ?? 2000;
  const transports = urls.map((u) => createTransport(parseResolverUrl(u), () => agent, timeoutMs));
  const svc = new DnsService({
    resolver: new DnsResolver(transports, { timeoutMs, metrics }),
    metrics,
    maxTtl: opts.maxTtl ?? 3600,
    flightTimeoutMs: timeoutMs * urls.length + 250,
    ...(opts.now ? { now: opts.now } : {}),
  });
  const run = (name: string, type: QueryType = 'A', signal: AbortSignal = AbortSignal.timeout(10_000)) => svc.lookup(parseDomainName(name), type, signal);
  return { svc, metrics, run };
}

async function failure(p: Promise<unknown>): Promise<LookupError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(LookupError);
    return e as LookupError;
  }
  throw new Error('expected a failure');
}

describe('answers over each transport', () => {
  it('UDP, TCP and DoH give the same records', async () => {
    const bodies = [];
    for (const url of [zone.udp, zone.tcp, doh.url]) {
      const { run } = service([url]);
      bodies.push((await run(ZONE, 'MX')).body);
    }
    for (const b of bodies) expect(b['records']).toEqual(bodies[0]!['records']);
    expect(bodies.map((b) => b['resolver'])).toEqual([zone.udp, zone.tcp, doh.url]);
    expect(bodies.map((b) => (b['source'] as { dns: { protocol: string } }).dns.protocol)).toEqual(['udp', 'tcp', 'doh']);
    expect(bodies[2]!['authenticated']).toBe(true);
    expect(bodies[0]!['authenticated']).toBe(false);
  });

  it('sends DoH URL credentials as Basic auth and never shows them', async () => {
    const withCreds = doh.url.replace('http://', 'http://reader:s3cret@');
    const { body } = await service([withCreds]).run(ZONE, 'NS');
    expect(body['resolver']).toBe(doh.url);
    expect(JSON.stringify(body)).not.toContain('s3cret');
    expect(doh.headers.at(-1)?.['authorization']).toBe(`Basic ${Buffer.from('reader:s3cret').toString('base64')}`);
  });

  it('sends EDNS0 with AD=1 and RD=1', async () => {
    await service([zone.udp]).run(`host.${ZONE}`, 'AAAA');
    expect(zone.log.last).toEqual({ ad: 1, rd: 1, edns: true, ednsSize: 1232 });
  });

  it('retries a truncated UDP answer over TCP', async () => {
    const before = zone.log.seen.length;
    const { body } = await service([zone.udp], { timeoutMs: 10_000 }).run(`big.${ZONE}`, 'TXT');
    expect(body['records']).toHaveLength(40);
    // On a loaded machine the UDP retransmission may fire too, hence "UDP first, then TCP".
    const seen = zone.log.seen.slice(before);
    expect(seen[0]).toBe(`big.${ZONE} 16 udp`);
    expect(seen.at(-1)).toBe(`big.${ZONE} 16 tcp`);
  });

  it('shows the domain in ASCII and Unicode form', async () => {
    const { body } = await service([zone.udp]).run(`bücher.${ZONE}`);
    expect(body).toMatchObject({ domain: `xn--bcher-kva.${ZONE}`, unicode_domain: `bücher.${ZONE}`, status: 'NOERROR' });
    expect(body['records']).toMatchObject([{ address: '192.0.2.20' }]);
  });
});

describe('cache', () => {
  it('serves hits until the smallest TTL runs out, counting TTLs down', async () => {
    let t = 5_000_000;
    const { run, metrics } = service([zone.udp], { now: () => t });
    const first = await run(ZONE, 'A');
    expect(first.maxAge).toBe(120);
    expect(first.body['cached']).toBe(false);
    const n = zone.log.count(ZONE, 1);
    t += 50_000;
    const hit = await run(ZONE, 'A');
    expect(hit.body['cached']).toBe(true);
    expect(hit.maxAge).toBe(70);
    expect((hit.body['records'] as { ttl: number }[]).map((r) => r.ttl)).toEqual([250, 70]);
    expect(zone.log.count(ZONE, 1)).toBe(n);
    t += 70_000;
    const again = await run(ZONE, 'A');
    expect(again.body['cached']).toBe(false);
    expect(zone.log.count(ZONE, 1)).toBe(n + 1);
    const text = await metrics.registry.getSingleMetricAsString('netintel_cache_requests_total');
    expect(text).toContain('cache="dns",result="hit"} 1');
    expect(text).toContain('cache="dns",result="miss"} 2');
  });

  it('caps the lifetime at maxTtl', async () => {
    const { run } = service([zone.udp], { maxTtl: 30 });
    expect((await run(ZONE, 'NS')).maxAge).toBe(30);
  });

  it('caches NXDOMAIN and NODATA for min(SOA TTL, SOA minimum)', async () => {
    let t = 0;
    const { run } = service([zone.udp], { now: () => t });
    const nx = await run(`missing.${ZONE}`, 'A');
    expect(nx.body).toMatchObject({ status: 'NXDOMAIN', records: [], cached: false });
    expect(nx.body['authority']).toMatchObject([{ type: 'SOA', minimum: 300 }]);
    expect(nx.maxAge).toBe(300);
    const nodata = await run(`host.${ZONE}`, 'MX');
    expect(nodata.body).toMatchObject({ status: 'NOERROR', records: [] });
    expect(nodata.maxAge).toBe(300);
    t += 299_000;
    const n = zone.log.count(`missing.${ZONE}`, 1);
    expect((await run(`missing.${ZONE}`, 'A')).body['cached']).toBe(true);
    expect(zone.log.count(`missing.${ZONE}`, 1)).toBe(n);
    t += 1000;
    expect((await run(`missing.${ZONE}`, 'A')).body['cached']).toBe(false);
  });

  it('does not cache a TTL of 0', async () => {
    const { run } = service([zone.udp]);
    const n = zone.log.count(`zero.${ZONE}`, 1);
    expect((await run(`zero.${ZONE}`)).maxAge).toBe(0);
    expect((await run(`zero.${ZONE}`)).body['cached']).toBe(false);
    expect(zone.log.count(`zero.${ZONE}`, 1)).toBe(n + 2);
  });

  it('asks upstream once for 50 concurrent identical misses', async () => {
    const { run } = service([zone.udp]);
    const name = `_sip._tcp.${ZONE}`;
    const n = zone.log.count(name, 33);
    const results = await Promise.all(Array.from({ length: 50 }, () => run(name, 'SRV')));
    expect(zone.log.count(name, 33)).toBe(n + 1);
    for (const r of results) expect(r.body['records']).toEqual(results[0]!.body['records']);
  });

  it('keys by type: A and AAAA of one name are separate entries', async () => {
    const { run } = service([zone.udp]);
    expect((await run(`${ZONE}.`, 'AAAA')).body['records']).toMatchObject([{ type: 'AAAA' }]);
    expect((await run(ZONE, 'A')).body['records']).toMatchObject([{ type: 'A' }, { type: 'A' }]);
  });
});

describe('failover and failures', () => {
  it('moves from a dead first resolver to a live second', async () => {
    const { body } = await service([await deadUdpUrl(), zone.udp]).run(ZONE, 'CAA');
    expect(body['resolver']).toBe(zone.udp);
    expect(body['records']).toHaveLength(2);
  });

  it('moves past SERVFAIL, and reports SERVFAIL (uncached) when nobody does better', async () => {
    expect((await service([bad['servfail']!.url, zone.udp]).run(ZONE, 'SOA')).body['resolver']).toBe(zone.udp);
    const only = await service([bad['servfail']!.url]).run(ZONE, 'SOA');
    expect(only.body).toMatchObject({ status: 'SERVFAIL', records: [], resolver: bad['servfail']!.url });
    expect(only.maxAge).toBeNull();
  });

  // Over UDP a datagram with another id is ignored, as a spoofed or late one would be: the resolver
  // then simply never answered.
  it('a UDP resolver answering only with the wrong id gives 504', async () => {
    expect((await failure(service([bad['wrong-id']!.url], { timeoutMs: 300 }).run(ZONE, 'A'))).code).toBe('upstream_timeout');
  });

  it.each(['garbage', 'wrong-question', 'truncated-body'])('a resolver sending %s gives 502', async (kind) => {
    const e = await failure(service([bad[kind]!.url], { timeoutMs: 5000 }).run(ZONE, 'A'));
    expect(e.code).toBe('upstream_error');
    expect(e.status).toBe(502);
    expect(e.message).toContain(bad[kind]!.url);
  });

  it('a silent resolver gives 504 after the timeout, never a hang', async () => {
    const e = await failure(service([bad['silent']!.url], { timeoutMs: 200 }).run(ZONE, 'A'));
    expect(e.code).toBe('upstream_timeout');
    expect(e.status).toBe(504);
  });

  it('silent then garbage is 502; silent then live answers', async () => {
    expect((await failure(service([bad['silent']!.url, bad['garbage']!.url], { timeoutMs: 1000 }).run(ZONE))).code).toBe('upstream_error');
    expect((await service([bad['silent']!.url, zone.tcp], { timeoutMs: 1000 }).run(ZONE)).body['resolver']).toBe(zone.tcp);
  });

  it.each([['http-500', 'upstream_error'], ['wrong-content-type', 'upstream_error'], ['garbage', 'upstream_error'], ['hang', 'upstream_timeout']] as const)(
    'a DoH server answering %s gives %s',
    async (behaviour, code) => {
      const s = await startDohServer({ behaviour });
      try {
        // Short only where a timeout is the expected outcome; generous elsewhere for loaded machines.
        expect((await failure(service([s.url], { timeoutMs: behaviour === 'hang' ? 300 : 5000 }).run(ZONE))).code).toBe(code);
      } finally {
        await s.close();
      }
    },
  );

  it('stops waiting when the caller gives up', async () => {
    const { run } = service([bad['silent']!.url], { timeoutMs: 5000 });
    const ctl = new AbortController();
    const p = run(ZONE, 'TXT', ctl.signal);
    ctl.abort(new LookupError('upstream_timeout', 'request deadline'));
    expect((await failure(p)).message).toBe('request deadline');
  });

  it('counts upstream outcomes', async () => {
    const { run, metrics } = service([await deadUdpUrl(), bad['servfail']!.url, zone.udp]);
    await run(ZONE, 'TXT');
    const text = await metrics.registry.getSingleMetricAsString('netintel_upstream_requests_total');
    expect(text).toContain('upstream="dns",outcome="error"} 1');
    expect(text).toContain('upstream="dns",outcome="servfail"} 1');
    expect(text).toContain('upstream="dns",outcome="ok"} 1');
  });
});

describe('serialised answers and the synchronous cache path', () => {
  const ORDER = ['domain', 'unicode_domain', 'type', 'status', 'authenticated', 'records', 'authority', 'resolver', 'query_time_ms', 'cached', 'source'];

  it('the text is JSON.stringify of the body, members in API order, on a miss and on a hit', async () => {
    let now = 1_000_000;
    const { svc, run } = service([zone.udp], { now: () => now });
    const name = parseDomainName(ZONE);
    expect(svc.cached(name, 'MX')).toBeNull(); // nothing cached yet: the caller must go upstream
    const miss = await run(ZONE, 'MX');
    now += 2500;
    const hit = svc.cached(name, 'MX');
    expect(hit).not.toBeNull();
    for (const r of [miss, hit!]) {
      expect(r.text).toBe(JSON.stringify(r.body));
      expect(Object.keys(r.body)).toEqual(ORDER);
    }
    expect(miss.body['cached']).toBe(false);
    expect(hit!.body['cached']).toBe(true);
    // Two seconds later the records' TTLs have counted down by two, in the text too.
    const ttls = (r: typeof miss): number[] => (r.body['records'] as { ttl: number }[]).map((x) => x.ttl);
    expect(ttls(hit!)).toEqual(ttls(miss).map((t) => t - 2));
  });

  it('a differently cased query is answered from the same entry', async () => {
    const { svc, run } = service([zone.udp]);
    await run(ZONE, 'A');
    const upper = svc.cached(parseDomainName(ZONE.toUpperCase()), 'A');
    expect(upper?.body['domain']).toBe(ZONE);
    expect(upper?.text).toBe(JSON.stringify(upper?.body));
  });
});
