// GET /v1/whois through the built daemon, against loopback RDAP and WHOIS servers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CLI, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';
import { startUpstreams, type Upstreams } from '../helpers/rdap-whois-servers.js';

let up: Upstreams;
let daemon: Daemon;
let env: Record<string, string>;

beforeAll(async () => {
  up = await startUpstreams(tempDir('whois-upstreams-'));
  env = {
    NETINTEL_RDAP_BOOTSTRAP: up.bootstrapFile,
    NETINTEL_WHOIS_SERVER: up.root.address,
    NETINTEL_UPSTREAM_TIMEOUT_MS: '2000',
    NETINTEL_RATE_LIMIT_NETWORK: '0',
    NETINTEL_RATE_LIMIT_LOCAL: '0',
  };
  daemon = await startDaemon({ env });
});
afterAll(async () => {
  await daemon?.stop();
  await up?.close();
});

async function get(path: string): Promise<{ status: number; body: Record<string, any>; headers: Headers }> {
  const res = await fetch(daemon.url + path);
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

describe('GET /v1/whois (RDAP)', () => {
  it('answers a full RDAP record exactly as API.md shapes it, then serves it from the store', async () => {
    const first = await get('/v1/whois/full.com');
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=86400');
    const b = first.body;
    expect(Object.keys(b)).toEqual([
      'domain', 'unicode_domain', 'registered', 'source_type', 'registrar', 'registered_at', 'expires_at', 'updated_at', 'status',
      'nameservers', 'dnssec', 'registrant', 'servers', 'cached', 'stale', 'fetched_at', 'source',
    ]);
    expect(b).toMatchObject({
      domain: 'full.com',
      unicode_domain: 'full.com',
      registered: true,
      source_type: 'rdap',
      registrar: { name: 'Example Registrar, Inc.', iana_id: '376', url: 'https://registrar.example', abuse_email: 'abuse@registrar.example', abuse_phone: '+1.5555550100' },
      registered_at: '1995-08-14T04:00:00Z',
      expires_at: '2026-08-13T04:00:00Z',
      updated_at: '2025-08-14T07:01:39Z',
      status: ['client delete prohibited', 'client transfer prohibited', 'client update prohibited'],
      nameservers: ['a.iana-servers.net', 'b.iana-servers.net'],
      dnssec: true,
      registrant: { name: 'Jane Doe', organization: 'Example Org', country: 'US', email: 'jane@example.org', redacted: false },
      servers: { rdap: up.rdap.url, whois: null },
      cached: false,
      stale: false,
      source: { rdap: { server: up.rdap.url, related: null }, rdap_bootstrap: { dataset: 'rdap-dns 2026-11-20T20:00:02Z', built_at: '2026-11-20T20:00:02Z' } },
    });
    expect(b['fetched_at']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    const second = await get('/v1/whois/www.full.com?raw=true');
    expect(second.body).toMatchObject({ domain: 'full.com', cached: true, stale: false, fetched_at: b['fetched_at'] });
    expect(second.body['raw']).toMatchObject({ objectClassName: 'domain', ldhName: 'FULL.COM' });
    expect(second.body['raw_related']).toBeNull();
    expect(Number(/max-age=(\d+)/.exec(second.headers.get('cache-control') ?? '')?.[1])).toBeLessThanOrEqual(86400);
    expect(up.rdap.hits.get('/domain/full.com')).toBe(1);
  });

  it('redacted registrants', async () => {
    const { body } = await get('/v1/whois/redacted.com');
    expect(body['registrant']).toEqual({ name: null, organization: 'Example Org', country: 'US', email: null, redacted: true });
  });

  it('malformed-but-usable records (numbers as strings, missing dates)', async () => {
    const { status, body } = await get('/v1/whois/quirky.com');
    expect(status).toBe(200);
    expect(body).toMatchObject({ registrar: { iana_id: '9999' }, registered_at: '2010-05-06T07:08:09Z', expires_at: null, dnssec: true });
  });

  it('follows the registrar link', async () => {
    const { body } = await get('/v1/whois/linked.com?raw=1');
    expect(body['registrant']).toMatchObject({ name: 'Link Holder', country: 'FR' });
    expect(body['source']['rdap']['related']).toBe(`${up.rdap.url}registrar/domain/linked.com`);
    expect(body['raw_related']).toMatchObject({ ldhName: 'linked.com' });
  });

  it('RDAP 404: registered false, everything else null', async () => {
    const { status, body } = await get('/v1/whois/nothing.com');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      domain: 'nothing.com', registered: false, source_type: 'rdap', registrar: null, registered_at: null, expires_at: null,
      updated_at: null, status: null, nameservers: null, dnssec: null, registrant: null,
    });
  });

  it.each(['broken.com', 'notjson.com', 'wrongclass.com'])('RDAP failure (%s) falls back to WHOIS', async (domain) => {
    const { status, body } = await get(`/v1/whois/${domain}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      source_type: 'whois',
      registered: true,
      servers: { rdap: null, whois: up.registry.address },
      registrar: { iana_id: '376' },
      registrant: { name: 'Jane Doe', country: 'US' },
      source: { whois: { server: up.registry.address, related: up.registrar.address } },
    });
  });

  it('an unreachable RDAP server (.org) falls back to WHOIS', async () => {
    const { body } = await get('/v1/whois/example.org');
    expect(body).toMatchObject({ source_type: 'whois', registered: true });
  });
});

describe('GET /v1/whois (WHOIS)', () => {
  it('root → registry → registrar for a TLD without RDAP', async () => {
    const { body } = await get('/v1/whois/chain.net?raw=true');
    expect(body).toMatchObject({
      domain: 'chain.net', source_type: 'whois', registered: true, expires_at: '2025-08-13T04:00:00Z',
      status: ['client delete prohibited', 'client transfer prohibited'], dnssec: true,
      registrant: { organization: 'Example Org', redacted: false },
    });
    expect(body['raw']).toContain('Registry Expiry Date');
    expect(body['raw_related']).toContain('Registrant Name: Jane Doe');
  });

  it('"No match" → registered false', async () => {
    const { status, body } = await get('/v1/whois/nomatch.net');
    expect(status).toBe(200);
    expect(body).toMatchObject({ registered: false, source_type: 'whois', registrar: null, nameservers: null });
  });

  it('IDN input is looked up as punycode (DENIC-style answer)', async () => {
    const { status, body } = await get(`/v1/whois/${encodeURIComponent('www.bücher.de')}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ domain: 'xn--bcher-kva.de', unicode_domain: 'bücher.de', registered: true, nameservers: ['ns1.denic.example', 'ns2.denic.example'], dnssec: true });
    expect(up.de.queries).toContain('xn--bcher-kva.de');
    expect((await get('/v1/whois/frei.de')).body['registered']).toBe(false);
  });

  it('a huge answer is capped and still parsed', async () => {
    const { status, body } = await get('/v1/whois/huge.net');
    expect(status).toBe(200);
    expect(body['nameservers']).toEqual(['a.iana-servers.net', 'b.iana-servers.net']);
  });

  it('a server that never closes is cut off at the timeout', async () => {
    const { status, body } = await get('/v1/whois/open.hang');
    expect(status).toBe(200);
    expect(body['registered_at']).toBe('1995-08-14T04:00:00Z');
  });
});

describe('GET /v1/whois (errors)', () => {
  it('422 unsupported_tld when neither RDAP nor WHOIS knows the TLD', async () => {
    const { status, body } = await get('/v1/whois/example.zz');
    expect(status).toBe(422);
    expect(body).toMatchObject({ code: 'unsupported_tld' });
    expect(body['error']).toContain('.zz');
  });

  it.each(['%20full.com', 'com', 'co.uk', '1.2.3.4', 'exa_mple..com', 'a'.repeat(64) + '.com'])('400 invalid_domain for %j', async (p) => {
    const { status, body } = await get(`/v1/whois/${p}`);
    expect(status).toBe(400);
    expect(body['code']).toBe('invalid_domain');
  });

  it('400 for a bad raw flag', async () => {
    const { status, body } = await get('/v1/whois/full.com?raw=maybe');
    expect(status).toBe(400);
    expect(body['code']).toBe('invalid_parameter');
  });

  it('502 for a referral loop without data, 504 for a silent server', async () => {
    const loop = await get('/v1/whois/pure.loop');
    expect(loop.status).toBe(502);
    expect(loop.body['code']).toBe('upstream_error');
    expect(loop.headers.get('cache-control')).toBe('no-store');
    const silent = await get('/v1/whois/silent.hang');
    expect(silent.status).toBe(504);
    expect(silent.body['code']).toBe('upstream_timeout');
  });
});

describe('health, metrics and the CLI', () => {
  it('health shows the RDAP bootstrap dataset', async () => {
    await get('/v1/whois/full.com');
    const { body } = await get('/');
    expect(body['datasets']['rdap_bootstrap']).toMatchObject({ loaded: true, records: 3, dataset: 'rdap-dns 2026-11-20T20:00:02Z', built_at: '2026-11-20T20:00:02Z' });
  });

  it('metrics count upstream calls and cache results', async () => {
    const text = await (await fetch(`${daemon.url}/metrics`)).text();
    expect(text).toMatch(/netintel_cache_requests_total\{cache="whois",result="hit"\} [1-9]/);
    expect(text).toMatch(/netintel_cache_requests_total\{cache="whois",result="miss"\} [1-9]/);
    expect(text).toMatch(/netintel_upstream_requests_total\{upstream="rdap",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/netintel_upstream_requests_total\{upstream="whois",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/netintel_upstream_requests_total\{upstream="whois",outcome="upstream_timeout"\} [1-9]/);
  });

  it('netintel lookup whois prints the same JSON', { timeout: 60_000 }, async () => {
    // Asynchronous: the upstream servers live in this process and must keep answering.
    const r = await promisify(execFile)(process.execPath, [CLI, 'lookup', 'whois', 'full.com', '--raw'], {
      env: { PATH: process.env['PATH'] ?? '', NETINTEL_DATA_DIR: tempDir(), NETINTEL_IMPORT_DEFAULTS: 'false', ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    const body = JSON.parse(r.stdout) as Record<string, any>;
    expect(body).toMatchObject({ domain: 'full.com', registered: true, source_type: 'rdap', cached: false });
    expect(body['raw']).toMatchObject({ objectClassName: 'domain' });
  });
});
