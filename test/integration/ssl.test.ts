// /v1/ssl through the real daemon against real loopback TLS servers with generated certificates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { CLI, getJson, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';
import { createTlsFixtures, type Issued, type TlsFixtures } from '../helpers/tls-fixtures.js';
import { refusedPort, startCtSearchServer, startHangServer, startTlsServer, type TestServer, type TlsServerOptions } from '../helpers/tls-servers.js';

let fx: TlsFixtures;
let daemon: Daemon;
let ctServer: TestServer;
const servers: TestServer[] = [];
const ONE_YEAR = 'max-age=31536000; includeSubDomains';

const get = getJson;

async function serve(leaf: Issued, o: Partial<TlsServerOptions> & { noChain?: boolean } = {}): Promise<number> {
  const s = await startTlsServer({ key: leaf.keyPem, cert: o.noChain === true ? leaf.certPem : fx.chain(leaf), ...o });
  servers.push(s);
  return s.port;
}

const ssl = (target: string, d: Daemon = daemon) => get(d, `/v1/ssl/${encodeURIComponent(target)}`);
const rules = (b: Record<string, any>) => (b['grade_reasons'] as { rule: string }[]).map((r) => r.rule);

beforeAll(async () => {
  fx = await createTlsFixtures();
  ctServer = await startCtSearchServer({
    localhost: [
      { issuer_name: 'C=ZZ, O=Netintel Test, CN=Netintel Test Intermediate', not_before: '2026-01-01T00:00:00', not_after: '2026-04-01T00:00:00', serial_number: '0abc', entry_timestamp: '2026-01-01T00:05:00.123' },
      { issuer_name: 'C=ZZ, O=Netintel Test, CN=Netintel Test Intermediate', not_before: '2026-01-01T00:00:00', not_after: '2026-04-01T00:00:00', serial_number: '0abc', entry_timestamp: '2026-01-01T00:04:00' },
    ],
  });
  daemon = await startDaemon({
    env: {
      NETINTEL_EXTRA_CA: fx.caFile,
      NETINTEL_PROBE_ALLOW: '127.0.0.0/8,::1',
      NETINTEL_CT_LOG_LIST: fx.logListFile,
      NETINTEL_CT_SEARCH_URL: `http://127.0.0.1:${ctServer.port}/`,
      NETINTEL_SSL_TIMEOUT_MS: '3000',
      NETINTEL_RATE_LIMIT_NETWORK: '0',
    },
  });
});

afterAll(async () => {
  await daemon?.stop();
  await Promise.all([...servers, ctServer].filter(Boolean).map((s) => s.close()));
});

describe('GET /v1/ssl: a well-configured server', () => {
  it('answers every field of the API.md example, grade A+, then serves the cached copy', async () => {
    const port = await serve(fx.leaves.valid, { minVersion: 'TLSv1.2', hsts: ONE_YEAR });
    const r = await ssl(`localhost:${port}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=300');
    const b = r.body;
    expect(b).toMatchObject({
      domain: 'localhost',
      port,
      address: '127.0.0.1',
      issuer: { common_name: 'Netintel Test Intermediate', organization: 'Netintel Test', country: 'ZZ' },
      subject: { common_name: 'localhost', organization: 'Netintel Test' },
      san: ['localhost', '127.0.0.1', '::1'],
      fingerprint_sha256: fx.leaves.valid.fingerprint,
      signature_algorithm: 'ecdsa-with-SHA256',
      key: { type: 'EC', bits: 256, curve: 'prime256v1' },
      protocol: 'TLSv1.3',
      protocols: { TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': true, 'TLSv1.3': true },
      trusted: true,
      trust_error: null,
      hostname_match: true,
      hsts: { enabled: true, max_age: 31536000 },
      grade: 'A+',
      grade_ignoring_trust: 'A+',
      grade_reasons: [],
      cached: false,
    });
    expect(b['valid_from']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(b['expires_at']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(b['days_until_expiry']).toBeGreaterThanOrEqual(88);
    expect(b['days_until_expiry']).toBeLessThanOrEqual(90);
    expect(b['serial_number']).toMatch(/^([0-9A-F]{2}:)*[0-9A-F]{2}$/);
    expect(b['cipher']).toMatch(/^TLS_(AES|CHACHA20)/);
    expect(b['checked_at']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(b['chain']).toEqual([
      { subject: 'CN=Netintel Test Intermediate,O=Netintel Test,C=ZZ', issuer: 'CN=Netintel Test Root,O=Netintel Test,C=ZZ', expires_at: expect.any(String), fingerprint_sha256: fx.intermediate.fingerprint },
      { subject: 'CN=Netintel Test Root,O=Netintel Test,C=ZZ', issuer: 'CN=Netintel Test Root,O=Netintel Test,C=ZZ', expires_at: expect.any(String), fingerprint_sha256: fx.root.fingerprint },
    ]);
    expect(b['ct']['scts']).toEqual([]);
    expect(b['ct']['history']).toEqual([
      {
        fingerprint_sha256: fx.leaves.valid.fingerprint, serial_number: b['serial_number'], issuer: 'CN=Netintel Test Intermediate,O=Netintel Test,C=ZZ',
        valid_from: b['valid_from'], expires_at: b['expires_at'], first_seen: b['checked_at'], last_seen: b['checked_at'], origin: 'observed',
      },
      {
        fingerprint_sha256: null, serial_number: '0A:BC', issuer: 'CN=Netintel Test Intermediate,O=Netintel Test,C=ZZ',
        valid_from: '2026-01-01T00:00:00Z', expires_at: '2026-04-01T00:00:00Z', first_seen: '2026-01-01T00:04:00Z', last_seen: null, origin: 'ct-log',
      },
    ]);
    expect(b['source']).toEqual({
      tls: { upstream: `127.0.0.1:${port}` },
      ct_logs: { dataset: 'log_list v1.0', built_at: '2026-11-01T00:00:00Z' },
      ct_search: { upstream: `http://127.0.0.1:${ctServer.port}`, ok: true },
    });
    expect(ctServer.requests.at(-1)?.url).toBe('/?q=localhost&output=json');

    const again = await ssl(`localhost:${port}`);
    expect(again.body['cached']).toBe(true);
    expect(again.body['checked_at']).toBe(b['checked_at']);
    const maxAge = Number(/max-age=(\d+)/.exec(again.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(300);
  });

  it('without HSTS: A, and the reason says A+ was not reached', async () => {
    const port = await serve(fx.leaves.valid, { minVersion: 'TLSv1.2' });
    const { body } = await ssl(`localhost:${port}`);
    expect(body['hsts']).toMatchObject({ enabled: false, max_age: null });
    expect(body['grade']).toBe('A');
    expect(body['grade_reasons']).toEqual([{ rule: 'no-hsts', effect: expect.stringMatching(/^A\+ not reached/) }]);
  });

  it('names embedded SCTs from the CT log list dataset, and health shows ct_logs loaded', async () => {
    const port = await serve(fx.leaves.sct, { minVersion: 'TLSv1.2' });
    const { body } = await ssl(`localhost:${port}`);
    expect(body['ct']['scts']).toEqual([
      { log_id: fx.sctLog.logId, log_name: 'Netintel Test Log 2026h2', operator: 'Netintel Test Operator', timestamp: fx.sctTimestamp.toISOString().replace(/\.\d{3}Z$/, 'Z'), signature_algorithm: 'ecdsa-with-SHA256' },
      { log_id: Buffer.alloc(32, 0xee).toString('base64'), log_name: null, operator: null, timestamp: expect.any(String), signature_algorithm: 'ecdsa-with-SHA256' },
    ]);
    const health = await get(daemon, '/');
    expect(health.body['datasets']['ct_logs']).toMatchObject({ loaded: true, records: 1 });
  });
});

describe('GET /v1/ssl: trust failures give T with the letter underneath', () => {
  it.each([
    ['expired', /^certificate has expired \(CERT_HAS_EXPIRED\)$/],
    ['notYetValid', /^certificate is not yet valid \(CERT_NOT_YET_VALID\)$/],
    ['selfSigned', /^self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/],
    ['unknownIssuer', /^incomplete chain.*\(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/],
  ] as const)('%s', async (name, message) => {
    const port = await serve(fx.leaves[name], { minVersion: 'TLSv1.2', noChain: name === 'selfSigned' || name === 'unknownIssuer' });
    const { status, body } = await ssl(`localhost:${port}`);
    expect(status).toBe(200);
    expect(body['trusted']).toBe(false);
    expect(body['trust_error']).toMatch(message);
    expect(body['grade']).toBe('T');
    expect(body['grade_ignoring_trust']).toBe('A');
    expect(rules(body)).toEqual(['no-hsts', 'untrusted']);
    if (name === 'expired') expect(body['days_until_expiry']).toBeLessThan(0);
  });

  it('missing intermediate: incomplete chain', async () => {
    const port = await serve(fx.leaves.valid, { minVersion: 'TLSv1.2', noChain: true });
    const { body } = await ssl(`localhost:${port}`);
    expect(body['trust_error']).toMatch(/^incomplete chain/);
    expect(body['chain']).toEqual([]);
    expect(body['grade']).toBe('T');
  });

  it('wrong host: the chain verifies, the name does not', async () => {
    const port = await serve(fx.leaves.wrongHost, { minVersion: 'TLSv1.2', hsts: ONE_YEAR });
    const { body } = await ssl(`localhost:${port}`);
    expect(body['hostname_match']).toBe(false);
    expect(body['trusted']).toBe(false);
    expect(body['trust_error']).toBe('hostname mismatch: the certificate is valid for wrong.example, not for localhost');
    expect(body['grade']).toBe('T');
    expect(body['grade_ignoring_trust']).toBe('A+');
  });

  it('an IP target matches the IP SAN (no SNI)', async () => {
    const port = await serve(fx.leaves.valid, { minVersion: 'TLSv1.2' });
    const { body } = await ssl(`127.0.0.1:${port}`);
    expect(body).toMatchObject({ domain: '127.0.0.1', hostname_match: true, trusted: true });
    expect(body['source']['ct_search']).toBeNull();
  });
  it('an IPv6 literal in brackets: connects to ::1, matches the IP SAN', async () => {
    const port = await serve(fx.leaves.valid, { minVersion: 'TLSv1.2', host: '::1' });
    const { status, body } = await ssl(`[::1]:${port}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ domain: '::1', port, address: '::1', hostname_match: true, trusted: true });
    expect(body['source']['tls']).toEqual({ upstream: `[::1]:${port}` });
  });
});

describe('GET /v1/ssl: caps from keys, signatures and protocols', () => {
  it('RSA-1024 key caps at B', async () => {
    const port = await serve(fx.leaves.rsa1024, { minVersion: 'TLSv1.2', hsts: ONE_YEAR });
    const { body } = await ssl(`localhost:${port}`);
    expect(body['key']).toEqual({ type: 'RSA', bits: 1024, curve: null });
    expect(body['grade']).toBe('B');
    expect(rules(body)).toEqual(['rsa-key-under-2048']);
  });

  it('SHA-1 leaf signature caps at F', async () => {
    const port = await serve(fx.leaves.sha1, { minVersion: 'TLSv1.2', hsts: ONE_YEAR });
    const { body } = await ssl(`localhost:${port}`);
    expect(body['signature_algorithm']).toBe('ecdsa-with-SHA1');
    expect(body['grade']).toBe('F');
    expect(rules(body)).toEqual(['weak-signature']);
  });

  it('TLS 1.0–1.1 only: C, no TLS 1.2+, legacy protocols, no AEAD', async () => {
    const port = await serve(fx.leaves.valid, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', hsts: ONE_YEAR });
    const { body } = await ssl(`localhost:${port}`);
    expect(body['protocols']).toEqual({ TLSv1: true, 'TLSv1.1': true, 'TLSv1.2': false, 'TLSv1.3': false });
    expect(body['protocol']).toBe('TLSv1.1');
    expect(body['aead']).toBe(false);
    expect(body['grade']).toBe('C');
    expect(rules(body)).toEqual(['no-tls12', 'legacy-tls', 'no-aead']);
  });

  it('TLS 1.0–1.3 offered: B for legacy protocols', async () => {
    const port = await serve(fx.leaves.valid, { minVersion: 'TLSv1', hsts: ONE_YEAR });
    const { body } = await ssl(`localhost:${port}`);
    expect(body['protocols']).toEqual({ TLSv1: true, 'TLSv1.1': true, 'TLSv1.2': true, 'TLSv1.3': true });
    expect(body['grade']).toBe('B');
    expect(rules(body)).toEqual(['legacy-tls']);
  });

  it('TLS 1.2 only and TLS 1.3 only', async () => {
    const p12 = await serve(fx.leaves.valid, { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2', hsts: ONE_YEAR });
    const r12 = (await ssl(`localhost:${p12}`)).body;
    expect(r12['protocols']).toEqual({ TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': true, 'TLSv1.3': false });
    expect(r12['protocol']).toBe('TLSv1.2');
    expect(r12['cipher']).toMatch(/^TLS_ECDHE_ECDSA_WITH_AES_(128|256)_GCM/);
    expect(r12['grade']).toBe('A+');
    const p13 = await serve(fx.leaves.valid, { minVersion: 'TLSv1.3', hsts: ONE_YEAR });
    const r13 = (await ssl(`localhost:${p13}`)).body;
    expect(r13['protocols']).toEqual({ TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': false, 'TLSv1.3': true });
    expect(r13['grade']).toBe('A+');
  });
});

describe('GET /v1/ssl: failures are JSON errors, never hangs', () => {
  it('a port that accepts and never handshakes → 504 upstream_timeout', async () => {
    const hang = await startHangServer();
    servers.push(hang);
    const t0 = Date.now();
    const r = await ssl(`localhost:${hang.port}`);
    expect(r.status).toBe(504);
    expect(r.body['code']).toBe('upstream_timeout');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it('a refused port → 502 upstream_error', async () => {
    const r = await ssl(`localhost:${await refusedPort()}`);
    expect(r.status).toBe(502);
    expect(r.body['code']).toBe('upstream_error');
    expect(r.body['error']).toMatch(/refused/i);
  });

  it('a plain-HTTP port → 502 with the handshake failure', async () => {
    const plain = await startCtSearchServer({});
    servers.push(plain);
    const r = await ssl(`localhost:${plain.port}`);
    expect(r.status).toBe(502);
    expect(r.body['code']).toBe('upstream_error');
  });

  it.each(['exa mple.com', ' localhost', 'localhost:0', 'localhost:99999', 'localhost:https', '[::1', '1.2.3', 'a..b'])('%j → 400 invalid_domain', async (input) => {
    const r = await ssl(input);
    expect(r.status).toBe(400);
    expect(r.body['code']).toBe('invalid_domain');
    expect(r.body['error']).toMatch(/expected/);
  });
});

describe('GET /v1/ssl: probe policy, history, CLI', () => {
  let strict: Daemon;
  beforeAll(async () => {
    strict = await startDaemon({
      env: {
        NETINTEL_EXTRA_CA: fx.caFile,
        NETINTEL_PROBE_ALLOW: '127.0.0.1/32',
        NETINTEL_CT_LOG_LIST: fx.logListFile,
        NETINTEL_SSL_CACHE_TTL: '0',
        NETINTEL_RATE_LIMIT_NETWORK: '0',
      },
    });
  });
  afterAll(async () => {
    await strict?.stop();
  });

  it('a denied address → 403 target_forbidden, before any connection', async () => {
    const s = await startTlsServer({ key: fx.leaves.valid.keyPem, cert: fx.chain(fx.leaves.valid), host: '127.0.0.2' }).catch(() => null);
    const port = s?.port ?? 443;
    if (s !== null) servers.push(s);
    const r = await ssl(`127.0.0.2:${port}`, strict);
    expect(r.status).toBe(403);
    expect(r.body['code']).toBe('target_forbidden');
    expect(s?.requests ?? []).toEqual([]);
  });

  it('ssl_history keeps every certificate observed for the target; no cache with TTL 0', async () => {
    const s = await startTlsServer({ key: fx.leaves.valid.keyPem, cert: fx.chain(fx.leaves.valid), minVersion: 'TLSv1.2' });
    servers.push(s);
    const target = `localhost:${s.port}`;
    const r1 = await ssl(target, strict);
    expect(r1.headers.get('cache-control')).toBe('public, max-age=0');
    expect(r1.body['ct']['history']).toHaveLength(1);
    // A renewal: the same port now serves another certificate.
    s.setCertificate!(fx.leaves.sct.keyPem, fx.chain(fx.leaves.sct));
    const r2 = await ssl(target, strict);
    expect(r2.body['cached']).toBe(false);
    expect(r2.body['fingerprint_sha256']).toBe(fx.leaves.sct.fingerprint);
    const r3 = await ssl(target, strict);
    const history = [...(r3.body['ct']['history'] as Record<string, unknown>[])].sort((a, b) => String(a['fingerprint_sha256']).localeCompare(String(b['fingerprint_sha256'])));
    const expected = [
      { fingerprint_sha256: fx.leaves.valid.fingerprint, origin: 'observed', first_seen: r1.body['checked_at'], last_seen: r1.body['checked_at'] },
      { fingerprint_sha256: fx.leaves.sct.fingerprint, origin: 'observed', first_seen: r2.body['checked_at'], last_seen: r3.body['checked_at'] },
    ].sort((a, b) => a.fingerprint_sha256.localeCompare(b.fingerprint_sha256));
    expect(history).toHaveLength(2);
    expect(history[0]).toMatchObject(expected[0]!);
    expect(history[1]).toMatchObject(expected[1]!);
    expect(r3.body['source']['ct_search']).toBeNull();
  });

  it('netintel lookup ssl prints the same JSON', async () => {
    const port = await serve(fx.leaves.valid, { minVersion: 'TLSv1.2', hsts: ONE_YEAR });
    // Asynchronous: the TLS server lives in this process and must keep answering while the CLI runs.
    const child = spawn(process.execPath, [CLI, 'lookup', 'ssl', `localhost:${port}`], {
      timeout: 30_000,
      env: {
        PATH: process.env['PATH'] ?? '',
        NETINTEL_DATA_DIR: strict.dataDir,
        NETINTEL_EXTRA_CA: fx.caFile,
        NETINTEL_PROBE_ALLOW: '127.0.0.0/8',
        NETINTEL_CT_LOG_LIST: fx.logListFile,
        NETINTEL_IMPORT_DEFAULTS: 'false',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const r = { status, stdout, stderr };
    if (r.status !== 0) throw new Error(`CLI exited ${r.status}: ${r.stdout.slice(0, 400)} ${r.stderr.slice(0, 400)}`);
    const body = JSON.parse(r.stdout) as Record<string, any>;
    expect(body).toMatchObject({ domain: 'localhost', port, grade: 'A+', trusted: true, cached: false });
  });

  it('netintel import ct-logs <file> activates the list in the store', async () => {
    const dataDir = tempDir();
    const child = spawn(process.execPath, [CLI, 'import', 'ct-logs', fx.logListFile], {
      timeout: 30_000,
      env: { PATH: process.env['PATH'] ?? '', NETINTEL_DATA_DIR: dataDir, NETINTEL_IMPORT_DEFAULTS: 'false' },
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stdout += c.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (status !== 0) throw new Error(`import exited ${status}: ${stdout.slice(0, 400)}`);
    expect(stdout).toMatch(/ct_logs: 1 records active/);
  });
});
