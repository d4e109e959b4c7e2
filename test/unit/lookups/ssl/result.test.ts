import { describe, expect, it } from 'vitest';
import { buildSslBody, mergeHistory, trustError, type SslFacts } from '../../../../src/lookups/ssl/result.js';
import type { CertInfo } from '../../../../src/lookups/ssl/cert.js';
import type { HistoryEntry } from '../../../../src/lookups/ssl/history.js';

const leaf: CertInfo = {
  subject: { common_name: 'example.com', organization: null, country: null },
  issuer: { common_name: 'R11', organization: "Let's Encrypt", country: 'US' },
  subjectDn: 'CN=example.com',
  issuerDn: "CN=R11,O=Let's Encrypt,C=US",
  san: ['example.com', 'www.example.com'],
  validFrom: '2026-07-01T00:00:00Z',
  expiresAt: '2026-09-29T00:00:00Z',
  serialNumber: '04:A1',
  fingerprintSha256: 'AB:CD',
  signatureAlgorithm: 'sha256WithRSAEncryption',
  key: { type: 'RSA', bits: 2048, curve: null },
  isCa: false,
  scts: [],
  raw: Buffer.alloc(0),
};

const facts: SslFacts = {
  target: { host: 'example.com', unicode: 'example.com', port: 443, isIp: false },
  address: '93.184.215.14',
  protocol: 'TLSv1.3',
  cipher: 'TLS_AES_128_GCM_SHA256',
  verifyError: null,
  hostnameMatch: true,
  chain: [leaf, { ...leaf, subjectDn: "CN=R11,O=Let's Encrypt,C=US", issuerDn: 'CN=ISRG Root X1,O=Internet Security Research Group,C=US', fingerprintSha256: '11:22' }],
  scans: {
    TLSv1: { accepted: false, cipher: null },
    'TLSv1.1': { accepted: false, cipher: null },
    'TLSv1.2': { accepted: true, cipher: 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384' },
    'TLSv1.3': { accepted: false, cipher: null },
  },
  hsts: { enabled: true, max_age: 31536000, include_subdomains: false, preload: false },
  scts: [],
  observed: [],
  logged: null,
  checkedAt: '2026-08-20T00:00:00Z',
  source: {},
};

describe('buildSslBody', () => {
  it('shapes the API fields: expiry days, protocols from the handshake and the scans, chain without the leaf', () => {
    const b = buildSslBody(facts, Date.parse('2026-08-20T12:00:00Z'));
    expect(b['days_until_expiry']).toBe(39);
    expect(b['protocols']).toEqual({ TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': true, 'TLSv1.3': true });
    expect(b['chain']).toEqual([{ subject: "CN=R11,O=Let's Encrypt,C=US", issuer: 'CN=ISRG Root X1,O=Internet Security Research Group,C=US', expires_at: '2026-09-29T00:00:00Z', fingerprint_sha256: '11:22' }]);
    expect(b['grade']).toBe('A+');
    // RSA 2048 → 90; ciphers 128 and 256 → 90; protocols 100.
    expect(b['grade_score']).toEqual({ protocol: 100, key_exchange: 90, cipher: 90, total: 93 });
    expect(b['trusted']).toBe(true);
    expect(b['trust_error']).toBeNull();
    expect(b['cached']).toBe(false);
  });

  it('days_until_expiry is negative after expiry and T is given for any trust failure', () => {
    const b = buildSslBody({ ...facts, verifyError: 'CERT_HAS_EXPIRED' }, Date.parse('2026-10-01T00:00:00Z'));
    expect(b['days_until_expiry']).toBe(-2);
    expect(b['grade']).toBe('T');
    expect(b['grade_ignoring_trust']).toBe('A+');
  });

  it('no negotiated cipher counts as neither forward secret nor AEAD', () => {
    const b = buildSslBody({ ...facts, cipher: null, protocol: 'TLSv1.2' }, 0);
    expect(b['forward_secrecy']).toBe(false);
    expect(b['aead']).toBe(false);
  });
});

describe('trustError', () => {
  it('prefers the chain error, then the hostname mismatch', () => {
    expect(trustError({ ...facts, verifyError: 'DEPTH_ZERO_SELF_SIGNED_CERT', hostnameMatch: false })).toMatch(/^self-signed/);
    expect(trustError({ ...facts, hostnameMatch: false, target: { ...facts.target, host: 'other.example' } })).toBe(
      'hostname mismatch: the certificate is valid for example.com, www.example.com, not for other.example',
    );
    expect(trustError(facts)).toBeNull();
  });
});

describe('mergeHistory', () => {
  const h = (serial: string, origin: HistoryEntry['origin']): HistoryEntry => ({
    fingerprint_sha256: origin === 'observed' ? 'F' : null, serial_number: serial, issuer: 'CN=I', valid_from: 'a', expires_at: 'b', first_seen: null, last_seen: null, origin,
  });
  it('observed first; logged entries already observed (same serial) are dropped', () => {
    expect(mergeHistory([h('01', 'observed')], [h('01', 'ct-log'), h('02', 'ct-log')]).map((x) => `${x.serial_number}/${x.origin}`)).toEqual(['01/observed', '02/ct-log']);
    expect(mergeHistory([h('01', 'observed')], null)).toHaveLength(1);
  });
});
