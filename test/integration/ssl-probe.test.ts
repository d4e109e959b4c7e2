// The TlsProbe adapter against real loopback TLS servers (no daemon): trust codes, SNI, versions, HSTS, failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import tls from 'node:tls';
import { createTlsFixtures, type Issued, type TlsFixtures } from '../helpers/tls-fixtures.js';
import { refusedPort, startHangServer, startTlsServer, type TestServer, type TlsServerOptions } from '../helpers/tls-servers.js';
import { TlsProbe, type TlsTarget } from '../../src/lookups/ssl/probe.js';
import { describeCertificate } from '../../src/lookups/ssl/cert.js';
import { hostnameMatches } from '../../src/lookups/ssl/analysis.js';
import { LookupError } from '../../src/http/errors.js';

let fx: TlsFixtures;
let probe: TlsProbe;
// Generous for real handshakes (the machine is shared), short where a timeout is the point.
let fastProbe: TlsProbe;
const servers: TestServer[] = [];
const never = new AbortController().signal;

async function serve(leaf: Issued, o: Partial<TlsServerOptions> & { noChain?: boolean } = {}): Promise<TlsTarget> {
  const s = await startTlsServer({ key: leaf.keyPem, cert: o.noChain === true ? leaf.certPem : fx.chain(leaf), ...o });
  servers.push(s);
  return { address: o.host ?? '127.0.0.1', port: s.port, servername: 'localhost' };
}

beforeAll(async () => {
  fx = await createTlsFixtures();
  probe = new TlsProbe({ ca: [...tls.rootCertificates, fx.root.certPem], timeoutMs: 8000 });
  fastProbe = new TlsProbe({ ca: [fx.root.certPem], timeoutMs: 800 });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('TlsProbe.handshake', () => {
  it('a valid chain: verified, full chain leaf → intermediate → root, TLS 1.3', async () => {
    const h = await probe.handshake(await serve(fx.leaves.valid), never);
    expect(h.verifyError).toBeNull();
    expect(h.protocol).toBe('TLSv1.3');
    expect(h.cipher).toMatch(/^TLS_/);
    expect(h.chain.map((c) => describeCertificate(c).fingerprintSha256)).toEqual([fx.leaves.valid.fingerprint, fx.intermediate.fingerprint, fx.root.fingerprint]);
    expect(hostnameMatches('localhost', h.leaf)).toBe(true);
  });

  it.each([
    ['expired', 'CERT_HAS_EXPIRED'],
    ['notYetValid', 'CERT_NOT_YET_VALID'],
    ['selfSigned', 'DEPTH_ZERO_SELF_SIGNED_CERT'],
    ['unknownIssuer', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
  ] as const)('%s → %s', async (name, code) => {
    const leaf = fx.leaves[name];
    const h = await probe.handshake(await serve(leaf, { noChain: name === 'selfSigned' || name === 'unknownIssuer' }), never);
    expect(h.verifyError).toBe(code);
  });

  it('missing intermediate → UNABLE_TO_VERIFY_LEAF_SIGNATURE', async () => {
    const h = await probe.handshake(await serve(fx.leaves.valid, { noChain: true }), never);
    expect(h.verifyError).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(h.chain).toHaveLength(1);
  });

  it('weak certificates still complete the handshake (RSA-1024, SHA-1)', async () => {
    const rsa = await probe.handshake(await serve(fx.leaves.rsa1024), never);
    expect(rsa.verifyError).toBeNull();
    expect(describeCertificate(rsa.chain[0]!).key).toEqual({ type: 'RSA', bits: 1024, curve: null });
    const sha1 = await probe.handshake(await serve(fx.leaves.sha1), never);
    expect(describeCertificate(sha1.chain[0]!).signatureAlgorithm).toBe('ecdsa-with-SHA1');
  });

  it('sends SNI: a wildcard certificate matches the requested name, not the address', async () => {
    const s = await startTlsServer({ key: fx.leaves.wildcard.keyPem, cert: fx.chain(fx.leaves.wildcard) });
    servers.push(s);
    const h = await probe.handshake({ address: '127.0.0.1', port: s.port, servername: 'api.wild.test' }, never);
    expect(h.leaf.subjectaltname).toBe('DNS:*.wild.test');
    expect(hostnameMatches('api.wild.test', h.leaf)).toBe(true);
    expect(hostnameMatches('wild.test', h.leaf)).toBe(false);
    expect(hostnameMatches('a.b.wild.test', h.leaf)).toBe(false);
  });

  it('wrong host: the chain verifies but the name does not match', async () => {
    const h = await probe.handshake(await serve(fx.leaves.wrongHost), never);
    expect(h.verifyError).toBeNull();
    expect(hostnameMatches('localhost', h.leaf)).toBe(false);
  });

  it('a port that accepts and never handshakes → upstream_timeout, in bounded time', async () => {
    const hang = await startHangServer();
    servers.push(hang);
    const t0 = Date.now();
    const err = await fastProbe.handshake({ address: '127.0.0.1', port: hang.port, servername: 'localhost' }, never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LookupError);
    expect((err as LookupError).code).toBe('upstream_timeout');
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('a refused port → upstream_error', async () => {
    const err = await probe.handshake({ address: '127.0.0.1', port: await refusedPort(), servername: 'localhost' }, never).catch((e: unknown) => e);
    expect((err as LookupError).code).toBe('upstream_error');
    expect((err as LookupError).message).toMatch(/refused/);
  });

  it('the request signal aborts a hanging handshake', async () => {
    const hang = await startHangServer();
    servers.push(hang);
    const ac = new AbortController();
    const p = probe.handshake({ address: '127.0.0.1', port: hang.port, servername: 'localhost' }, ac.signal);
    ac.abort(new Error('deadline'));
    await expect(p).rejects.toThrow('deadline');
  });
});

describe('TlsProbe.scan', () => {
  const scanAll = async (t: TlsTarget) =>
    Object.fromEntries(await Promise.all((['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const).map(async (v) => [v, (await probe.scan(t, v, never)).accepted])));

  it('TLS 1.0–1.1 only', async () => {
    const t = await serve(fx.leaves.valid, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1' });
    expect(await scanAll(t)).toEqual({ TLSv1: true, 'TLSv1.1': true, 'TLSv1.2': false, 'TLSv1.3': false });
    const h = await probe.handshake(t, never);
    expect(h.protocol).toBe('TLSv1.1');
  });

  it('TLS 1.2 only', async () => {
    const t = await serve(fx.leaves.valid, { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' });
    expect(await scanAll(t)).toEqual({ TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': true, 'TLSv1.3': false });
    const s = await probe.scan(t, 'TLSv1.2', never);
    expect(s.cipher).toMatch(/ECDHE_ECDSA.*GCM/);
  });

  it('TLS 1.3 only', async () => {
    const t = await serve(fx.leaves.valid, { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' });
    expect(await scanAll(t)).toEqual({ TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': false, 'TLSv1.3': true });
  });
});

describe('TlsProbe.hstsHeader', () => {
  it('reads the header over the checked address with SNI and Host', async () => {
    const s = await startTlsServer({ key: fx.leaves.valid.keyPem, cert: fx.chain(fx.leaves.valid), hsts: 'max-age=31536000; includeSubDomains' });
    servers.push(s);
    const h = await probe.hstsHeader({ address: '127.0.0.1', port: s.port, servername: 'localhost' }, `localhost:${s.port}`, never);
    expect(h).toBe('max-age=31536000; includeSubDomains');
    expect(s.requests).toEqual([{ method: 'HEAD', url: '/', host: `localhost:${s.port}` }]);
  });

  it('no header, and a dead port, give undefined', async () => {
    const t = await serve(fx.leaves.valid);
    expect(await probe.hstsHeader(t, 'localhost', never)).toBeUndefined();
    const hang = await startHangServer();
    servers.push(hang);
    expect(await fastProbe.hstsHeader({ address: '127.0.0.1', port: hang.port, servername: 'localhost' }, 'localhost', never)).toBeUndefined();
  });
});
