// GET /v1/dns over real HTTP against the built daemon, with real resolvers on loopback: DoH over
// HTTPS (test CA via NETINTEL_EXTRA_CA), classic UDP/TCP, and resolvers that fail on purpose.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';
import {
  LONG_TXT, ZONE, deadUdpUrl, makeTestCa, startBadUdpServer, startDohServer, startZoneServer,
  type DohServer, type RawUdpServer, type TestCa, type ZoneServer,
} from '../helpers/dns-servers.js';

let ca: TestCa;
let zone: ZoneServer;
let doh: DohServer;
let silent: RawUdpServer;
let garbage: RawUdpServer;
let servfail: RawUdpServer;
const d: Record<'doh' | 'failover' | 'untrusted' | 'silent' | 'garbage' | 'servfail', Daemon> = {} as never;

const base = { NETINTEL_RATE_LIMIT_NETWORK: '0' };

beforeAll(async () => {
  ca = makeTestCa(tempDir('netintel-dns-ca-'));
  zone = await startZoneServer();
  doh = await startDohServer({ tls: { key: ca.key, cert: ca.cert }, authenticated: true });
  silent = await startBadUdpServer('silent');
  garbage = await startBadUdpServer('garbage');
  servfail = await startBadUdpServer('servfail');
  const dead = await deadUdpUrl();
  const settled = await Promise.allSettled([
    startDaemon({ env: { ...base, NETINTEL_DOH_URL: doh.url, NETINTEL_EXTRA_CA: ca.caFile } }),
    startDaemon({ env: { ...base, NETINTEL_DOH_URL: `${dead},${zone.udp}`, NETINTEL_DNS_MAX_TTL: '60' } }),
    startDaemon({ env: { ...base, NETINTEL_DOH_URL: doh.url } }),
    startDaemon({ env: { ...base, NETINTEL_DOH_URL: silent.url, NETINTEL_DNS_TIMEOUT_MS: '300' } }),
    startDaemon({ env: { ...base, NETINTEL_DOH_URL: garbage.url } }),
    startDaemon({ env: { ...base, NETINTEL_DOH_URL: servfail.url } }),
  ]);
  // Stop the daemons that did start when another did not, so a failed set-up leaves no orphans.
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(settled.map((r) => (r.status === 'fulfilled' ? r.value.stop() : null)));
    throw failed.reason;
  }
  const started = settled.map((r) => (r as PromiseFulfilledResult<Daemon>).value);
  [d.doh, d.failover, d.untrusted, d.silent, d.garbage, d.servfail] = started as [Daemon, Daemon, Daemon, Daemon, Daemon, Daemon];
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(d).map((x) => x?.stop()));
  await Promise.all([zone?.close(), doh?.close(), silent?.close(), garbage?.close(), servfail?.close()]);
});

async function get(daemon: Daemon, path: string): Promise<{ status: number; body: Record<string, unknown>; cacheControl: string | null }> {
  const res = await fetch(`${daemon.url}${path}`);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, cacheControl: res.headers.get('cache-control') };
}

const records = (b: Record<string, unknown>): Record<string, unknown>[] => b['records'] as Record<string, unknown>[];

describe('GET /v1/dns over DoH (HTTPS, test CA)', () => {
  it('answers MX in the documented shape', async () => {
    const { status, body, cacheControl } = await get(d.doh, `/v1/dns/${ZONE}?type=MX`);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['authenticated', 'authority', 'cached', 'domain', 'query_time_ms', 'records', 'resolver', 'source', 'status', 'type', 'unicode_domain'].sort());
    expect(body).toMatchObject({ domain: ZONE, unicode_domain: ZONE, type: 'MX', status: 'NOERROR', authenticated: true, authority: [], resolver: doh.url, cached: false });
    expect(typeof body['query_time_ms']).toBe('number');
    expect(body['source']).toMatchObject({ dns: { resolver: doh.url, protocol: 'doh' } });
    expect(records(body)).toEqual([
      { name: ZONE, type: 'MX', ttl: 1800, data: `10 mx1.${ZONE}.`, priority: 10, exchange: `mx1.${ZONE}` },
      { name: ZONE, type: 'MX', ttl: 1800, data: `20 mx2.${ZONE}.`, priority: 20, exchange: `mx2.${ZONE}` },
    ]);
    expect(cacheControl).toBe('public, max-age=1800');
    expect(doh.headers.at(-1)).toMatchObject({ 'content-type': 'application/dns-message', accept: 'application/dns-message' });
  });

  it.each([
    ['A', [{ data: '192.0.2.1', address: '192.0.2.1' }, { data: '192.0.2.2' }]],
    ['aaaa', [{ type: 'AAAA', address: '2001:db8::1' }]],
    ['NS', [{ data: `ns1.${ZONE}.`, host: `ns1.${ZONE}` }, { host: `ns2.${ZONE}` }]],
    ['SOA', [{ mname: `ns1.${ZONE}`, rname: `hostmaster.${ZONE}`, serial: 2026112201, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 }]],
    ['caa', [{ data: '0 issue "letsencrypt.org"', flags: 0, tag: 'issue', value: 'letsencrypt.org' }, { data: `128 iodef "mailto:security@${ZONE}"`, flags: 128, tag: 'iodef' }]],
  ])('type=%s', async (type, expected) => {
    const { status, body } = await get(d.doh, `/v1/dns/${ZONE}?type=${type}`);
    expect(status).toBe(200);
    expect(body['type']).toBe(type.toUpperCase());
    expect(records(body)).toMatchObject(expected);
  });

  it('TXT: multi-string and a value over 255 octets', async () => {
    const txt = records((await get(d.doh, `/v1/dns/${ZONE}?type=TXT`)).body);
    expect(txt[0]).toMatchObject({ data: '"v=spf1 -all"', text: 'v=spf1 -all', strings: ['v=spf1 -all'] });
    expect(txt[1]).toMatchObject({ data: '"first part " "second \\"quoted\\" part"', text: 'first part second "quoted" part' });
    expect(txt[2]).toMatchObject({ text: LONG_TXT });
    expect((txt[2]!['strings'] as string[]).map((s) => s.length)).toEqual([255, 45]);
  });

  it('SRV', async () => {
    const { body } = await get(d.doh, `/v1/dns/_sip._tcp.${ZONE}?type=SRV`);
    expect(records(body)[0]).toEqual({ name: `_sip._tcp.${ZONE}`, type: 'SRV', ttl: 300, data: `10 5 5060 sip.${ZONE}.`, priority: 10, weight: 5, port: 5060, target: `sip.${ZONE}` });
  });

  it('a CNAME chain first, then the target', async () => {
    const { body, cacheControl } = await get(d.doh, `/v1/dns/www.${ZONE}`);
    expect(records(body).map((r) => [r['type'], r['name'], r['data']])).toEqual([
      ['CNAME', `www.${ZONE}`, `web.${ZONE}.`], ['CNAME', `web.${ZONE}`, `host.${ZONE}.`], ['A', `host.${ZONE}`, '192.0.2.10'],
    ]);
    expect(cacheControl).toBe('public, max-age=60');
  });

  it('NXDOMAIN is a 200 with the SOA in authority, negatively cached', async () => {
    const n = doh.log.count(`nowhere.${ZONE}`, 1);
    const first = await get(d.doh, `/v1/dns/nowhere.${ZONE}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'NXDOMAIN', records: [], cached: false });
    expect(first.body['authority']).toMatchObject([{ type: 'SOA', name: ZONE, minimum: 300 }]);
    expect(first.cacheControl).toBe('public, max-age=300');
    const second = await get(d.doh, `/v1/dns/nowhere.${ZONE}`);
    expect(second.body['cached']).toBe(true);
    expect(doh.log.count(`nowhere.${ZONE}`, 1)).toBe(n + 1);
  });

  it('an IDN is asked in punycode and shown both ways', async () => {
    const { body } = await get(d.doh, `/v1/dns/${encodeURIComponent(`bücher.${ZONE}`)}`);
    expect(body).toMatchObject({ domain: `xn--bcher-kva.${ZONE}`, unicode_domain: `bücher.${ZONE}` });
    expect(records(body)).toMatchObject([{ address: '192.0.2.20' }]);
  });

  it('serves repeats from the cache with cached: true and one upstream query for 50 concurrent requests', async () => {
    const name = `host.${ZONE}`;
    const before = doh.log.count(name, 28);
    const all = await Promise.all(Array.from({ length: 50 }, () => get(d.doh, `/v1/dns/${name}?type=AAAA`)));
    expect(all.every((r) => r.status === 200)).toBe(true);
    expect(doh.log.count(name, 28)).toBe(before + 1);
    const again = await get(d.doh, `/v1/dns/${name.toUpperCase()}.?type=aaaa`);
    expect(again.body).toMatchObject({ cached: true, status: 'NOERROR', domain: name });
    expect(doh.log.count(name, 28)).toBe(before + 1);
  });

  it.each([
    ['/v1/dns/exa mple.com', 'invalid_domain'],
    ['/v1/dns/%20example.com', 'invalid_domain'],
    ['/v1/dns/-bad-.example', 'invalid_domain'],
    ['/v1/dns/a..b', 'invalid_domain'],
    [`/v1/dns/${'a'.repeat(64)}.example`, 'invalid_domain'],
    ['/v1/dns/example.com%', 'invalid_domain'],
    ['/v1/dns/example.com?type=ANY', 'invalid_type'],
    ['/v1/dns/example.com?type=', 'invalid_type'],
    ['/v1/dns/example.com?type=PTR', 'invalid_type'],
  ])('%s → 400 %s', async (path, code) => {
    const { status, body, cacheControl } = await get(d.doh, path);
    expect(status).toBe(400);
    expect(body['code']).toBe(code);
    expect(cacheControl).toBe('no-store');
    if (code === 'invalid_type') expect(body['error']).toContain('A, AAAA, MX, TXT, NS, CNAME, SOA, CAA, SRV');
  });

  it('random path parameters and types give JSON 200 or 400, never a 5xx', async () => {
    const fc = (await import('fast-check')).default;
    const samples = fc.sample(fc.tuple(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.domain()), fc.option(fc.string({ maxLength: 8 }))), 60);
    for (const [param, type] of samples) {
      if (param === '') continue;
      const q = type === null ? '' : `?type=${encodeURIComponent(type)}`;
      const res = await fetch(`${d.doh.url}/v1/dns/${encodeURIComponent(param)}${q}`);
      const body = (await res.json()) as Record<string, unknown>;
      expect([200, 400], `${JSON.stringify(param)} ${JSON.stringify(type)} → ${res.status} ${JSON.stringify(body)}`).toContain(res.status);
      if (res.status === 400) expect(['invalid_domain', 'invalid_type']).toContain(body['code']);
    }
  });

  it('exports the dns metrics', async () => {
    const text = await (await fetch(`${d.doh.url}/metrics`)).text();
    expect(text).toMatch(/netintel_upstream_requests_total\{upstream="dns",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/netintel_cache_requests_total\{cache="dns",result="hit"\} [1-9]/);
    expect(text).toMatch(/netintel_upstream_duration_seconds_count\{upstream="dns"\} [1-9]/);
  });
});

describe('GET /v1/dns over classic DNS with failover', () => {
  it('skips a dead first resolver and answers from the second, max-age capped by NETINTEL_DNS_MAX_TTL', async () => {
    const { status, body, cacheControl } = await get(d.failover, `/v1/dns/${ZONE}?type=NS`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ resolver: zone.udp, authenticated: false, source: { dns: { protocol: 'udp' } } });
    expect(cacheControl).toBe('public, max-age=60');
  });

  it('retries a truncated UDP answer over TCP', async () => {
    const { body } = await get(d.failover, `/v1/dns/big.${ZONE}?type=TXT`);
    expect(records(body)).toHaveLength(40);
    const seen = zone.log.seen.filter((s) => s.startsWith(`big.${ZONE} 16`));
    expect(seen[0]).toBe(`big.${ZONE} 16 udp`);
    expect(seen.at(-1)).toBe(`big.${ZONE} 16 tcp`);
  });
});

describe('GET /v1/dns when resolvers fail', () => {
  it('an HTTPS resolver whose CA is not trusted → 502', async () => {
    const { status, body } = await get(d.untrusted, `/v1/dns/${ZONE}`);
    expect(status).toBe(502);
    expect(body['code']).toBe('upstream_error');
  });

  it('a resolver that never answers → 504 within the timeout', async () => {
    const t = performance.now();
    const { status, body, cacheControl } = await get(d.silent, `/v1/dns/${ZONE}`);
    expect(status).toBe(504);
    expect(body['code']).toBe('upstream_timeout');
    expect(cacheControl).toBe('no-store');
    expect(performance.now() - t).toBeLessThan(10_000);
  });

  it('a resolver that sends garbage → 502', async () => {
    const { status, body } = await get(d.garbage, `/v1/dns/${ZONE}?type=MX`);
    expect(status).toBe(502);
    expect(body['code']).toBe('upstream_error');
    expect(String(body['error'])).toContain('invalid response');
  });

  it('a resolver that answers SERVFAIL → 200 status SERVFAIL, not cached', async () => {
    const { status, body, cacheControl } = await get(d.servfail, `/v1/dns/${ZONE}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'SERVFAIL', records: [], authority: [], cached: false, resolver: servfail.url });
    expect(cacheControl).toBe('no-store');
  });
});

describe('netintel lookup dns', () => {
  // Asynchronous on purpose: the resolver runs in this process, so a blocking spawn would starve it.
  it('prints the same JSON and exits', async () => {
    const r = await promisify(execFile)(process.execPath, [CLI, 'lookup', 'dns', ZONE, '--type', 'MX'], {
      env: { PATH: process.env['PATH'] ?? '', NETINTEL_DATA_DIR: tempDir(), NETINTEL_DOH_URL: zone.tcp, NETINTEL_IMPORT_DEFAULTS: 'false' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    const body = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(body).toMatchObject({ domain: ZONE, type: 'MX', status: 'NOERROR', resolver: zone.tcp });
    expect(records(body)).toHaveLength(2);
  });
});
