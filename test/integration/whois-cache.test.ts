// The registration store through the built daemon and CLI: expiry, stale-on-error, single flight,
// and `whois-cache export|import` between two data directories (newer wins).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CLI, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';
import { startRdapServer, startUpstreams, type RdapServer, type Upstreams } from '../helpers/rdap-whois-servers.js';
import { createTlsFixtures, type TlsFixtures } from '../helpers/tls-fixtures.js';

let up: Upstreams;
let tls: TlsFixtures;
let secureRdap: RdapServer;
let daemon: Daemon;
let env: Record<string, string>;

beforeAll(async () => {
  tls = await createTlsFixtures();
  secureRdap = await startRdapServer({ tls: { key: tls.leaves.valid.keyPem, cert: tls.chain(tls.leaves.valid) } });
  // .io is served over HTTPS by a server whose CA only NETINTEL_EXTRA_CA vouches for.
  up = await startUpstreams(tempDir('whois-cache-upstreams-'), { extraServices: [[['io'], [secureRdap.url]]] });
  env = {
    NETINTEL_EXTRA_CA: tls.caFile,
    NETINTEL_RDAP_BOOTSTRAP: up.bootstrapFile,
    NETINTEL_WHOIS_SERVER: up.root.address,
    // Nothing here waits for a timeout; a generous one keeps a loaded machine from failing TLS set-up.
    NETINTEL_UPSTREAM_TIMEOUT_MS: '5000',
    NETINTEL_RATE_LIMIT_NETWORK: '0',
    // Every record is stale at once: each request goes upstream, so expiry needs no waiting.
    NETINTEL_WHOIS_TTL: '0',
  };
  daemon = await startDaemon({ env });
});
afterAll(async () => {
  await daemon?.stop();
  await up?.close();
  await secureRdap?.close();
});

async function get(p: string): Promise<{ status: number; body: Record<string, any>; cacheControl: string | null }> {
  const res = await fetch(daemon.url + p);
  return { status: res.status, body: (await res.json()) as Record<string, any>, cacheControl: res.headers.get('cache-control') };
}

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

// Asynchronous on purpose: the upstream servers run in this process and must keep answering.
async function cli(args: string[], extraEnv: Record<string, string>): Promise<CliResult> {
  try {
    const r = await promisify(execFile)(process.execPath, [CLI, ...args], {
      env: { PATH: process.env['PATH'] ?? '', NETINTEL_IMPORT_DEFAULTS: 'false', ...extraEnv },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

function json(r: CliResult): Record<string, any> {
  try {
    return JSON.parse(r.stdout) as Record<string, any>;
  } catch {
    throw new Error(`CLI exited ${r.code} without JSON: ${r.stdout}${r.stderr}`);
  }
}

describe('store freshness', () => {
  it('an expired record is fetched again (max-age 0 at TTL 0)', async () => {
    const a = await get('/v1/whois/full.com');
    const b = await get('/v1/whois/full.com');
    expect(a.body['cached']).toBe(false);
    expect(b.body['cached']).toBe(false);
    expect(b.cacheControl).toBe('public, max-age=0');
    expect(up.rdap.hits.get('/domain/full.com')).toBe(2);
  });

  it('serves the stale record when RDAP and WHOIS both fail', async () => {
    await get('/v1/whois/redacted.com');
    up.rdap.set('redacted.com', '500');
    up.registry.set('redacted.com', { kind: 'reset' });
    const { status, body, cacheControl } = await get('/v1/whois/redacted.com');
    expect(status).toBe(200);
    expect(body).toMatchObject({ domain: 'redacted.com', cached: true, stale: true, source_type: 'rdap', registrant: { redacted: true } });
    expect(cacheControl).toBe('public, max-age=0');
    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    expect(metrics).toMatch(/netintel_cache_requests_total\{cache="whois",result="stale"\} [1-9]/);
  });

  it('without a stored record the same failure is a 502', async () => {
    up.rdap.set('never.com', '500');
    up.registry.set('never.com', { kind: 'reset' });
    const { status, body } = await get('/v1/whois/never.com');
    expect(status).toBe(502);
    expect(body['code']).toBe('upstream_error');
  });

  it('concurrent requests for one domain share one upstream exchange', async () => {
    up.rdap.set('single.com', 'held');
    const requests = Array.from({ length: 6 }, () => get('/v1/whois/single.com'));
    // Bounded wait until the daemon's one exchange reaches the RDAP server, then a moment for the
    // other requests to arrive; with TTL 0 any request not coalesced would reach the server too.
    for (let i = 0; i < 200 && (up.rdap.hits.get('/domain/single.com') ?? 0) === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 300));
    up.rdap.release();
    const results = await Promise.all(requests);
    expect(results.every((r) => r.status === 200 && r.body['registered'] === true)).toBe(true);
    expect(new Set(results.map((r) => r.body['fetched_at'])).size).toBe(1);
    expect(up.rdap.hits.get('/domain/single.com')).toBe(1);
  });
});

describe('RDAP over HTTPS', () => {
  it('trusts NETINTEL_EXTRA_CA', async () => {
    const { status, body } = await get('/v1/whois/full.io');
    expect(status).toBe(200);
    expect(body).toMatchObject({ source_type: 'rdap', registered: true, servers: { rdap: secureRdap.url } });
  });

  it('without the extra CA the certificate is refused: an upstream error, not a hang', { timeout: 60_000 }, async () => {
    const { NETINTEL_EXTRA_CA: _ca, ...noCa } = env;
    const r = await cli(['lookup', 'whois', 'other.io'], { ...noCa, NETINTEL_DATA_DIR: tempDir() });
    expect(r.code, r.stderr).toBe(1);
    expect(json(r)).toMatchObject({ code: 'upstream_error' });
    expect(secureRdap.hits.get('/domain/other.io')).toBeUndefined();
  });
});

describe('netintel import rdap-bootstrap', () => {
  it('activates a bootstrap file that later lookups use, whatever NETINTEL_RDAP_BOOTSTRAP says', { timeout: 60_000 }, async () => {
    const dataDir = tempDir();
    const imported = await cli(['import', 'rdap-bootstrap', up.bootstrapFile], { NETINTEL_DATA_DIR: dataDir });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('rdap_bootstrap: 4 records active');
    const r = await cli(['lookup', 'whois', 'quirky.com'], { ...env, NETINTEL_RDAP_BOOTSTRAP: 'none', NETINTEL_DATA_DIR: dataDir });
    expect(json(r)).toMatchObject({ source_type: 'rdap', registered: true, source: { rdap_bootstrap: { dataset: 'rdap-dns 2026-11-20T20:00:02Z' } } });
  });
});

describe('whois-cache export | import', () => {
  // Nine CLI processes: generous on a shared 2-core machine.
  it('round-trips records into another data directory, and import keeps the newer copy', { timeout: 120_000 }, async () => {
    await get('/v1/whois/chain.net');
    await get('/v1/whois/nothing.com');
    const work = tempDir('whois-export-');
    const file = path.join(work, 'cache.jsonl');
    const exported = await cli(['whois-cache', 'export', file], { NETINTEL_DATA_DIR: daemon.dataDir });
    expect(exported.code, exported.stderr).toBe(0);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines.map((l) => l['domain'])).toEqual(expect.arrayContaining(['full.com', 'redacted.com', 'chain.net', 'nothing.com', 'single.com']));
    expect(exported.stderr).toContain(`exported ${lines.length} records`);

    // The receiving instance is offline: no bootstrap, a dead WHOIS root.
    const other = tempDir('whois-import-');
    const offline = { NETINTEL_DATA_DIR: other, NETINTEL_RDAP_BOOTSTRAP: 'none', NETINTEL_WHOIS_SERVER: '127.0.0.1:1', NETINTEL_UPSTREAM_TIMEOUT_MS: '500' };
    const imported = await cli(['whois-cache', 'import', file], offline);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(`imported ${lines.length}, kept 0`);

    const lookup = await cli(['lookup', 'whois', 'chain.net', '--raw'], offline);
    const body = json(lookup);
    expect(body).toMatchObject({ domain: 'chain.net', cached: true, stale: false, source_type: 'whois', registrant: { name: 'Jane Doe' } });
    expect(body['raw']).toContain('Registry Expiry Date');
    expect(json(await cli(['lookup', 'whois', 'nothing.com'], offline))['registered']).toBe(false);

    // An older copy never replaces a newer one; a newer copy does.
    const chain = lines.find((l) => l['domain'] === 'chain.net')!;
    const older = { ...chain, fetched_at: '2001-01-01T00:00:00.000Z', registration: { ...chain['registration'], registrar: { ...chain['registration']['registrar'], name: 'OLD' } } };
    const newer = { ...chain, fetched_at: new Date(Date.now() + 1000).toISOString(), registration: { ...chain['registration'], registrar: { ...chain['registration']['registrar'], name: 'NEW' } } };
    const patch = path.join(work, 'patch.jsonl');
    fs.writeFileSync(patch, JSON.stringify(older) + '\n');
    expect((await cli(['whois-cache', 'import', patch], offline)).stderr).toContain('imported 0, kept 1');
    expect(json(await cli(['lookup', 'whois', 'chain.net'], offline)).registrar.name).toBe('Example Registrar, Inc.');
    fs.writeFileSync(patch, JSON.stringify(newer) + '\n' + '{"format":"netintel-whois-cache/1","domain":"BAD DOMAIN"}\n');
    const mixed = await cli(['whois-cache', 'import', patch], offline);
    expect(mixed.code, mixed.stderr).toBe(1);
    expect(mixed.stderr).toContain('line 2: "domain" is not a valid domain name');
    expect(mixed.stderr).toContain('imported 1, kept 0');
    expect(json(await cli(['lookup', 'whois', 'chain.net'], offline)).registrar.name).toBe('NEW');
  });

  it('usage errors', { timeout: 60_000 }, async () => {
    expect((await cli(['whois-cache', 'explode', 'x'], { NETINTEL_DATA_DIR: tempDir() })).code).toBe(2);
    const missing = await cli(['whois-cache', 'import', '/nonexistent/file.jsonl'], { NETINTEL_DATA_DIR: tempDir() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('does not exist');
  });
});
