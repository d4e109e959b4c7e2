import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cipherFacts, hostnameMatches, parseHsts, trustErrorText } from '../../../../src/lookups/ssl/analysis.js';

describe('trustErrorText', () => {
  it('maps every OpenSSL code the probe reports to a clear string', () => {
    expect(trustErrorText('CERT_HAS_EXPIRED')).toBe('certificate has expired (CERT_HAS_EXPIRED)');
    expect(trustErrorText('CERT_NOT_YET_VALID')).toMatch(/^certificate is not yet valid/);
    expect(trustErrorText('DEPTH_ZERO_SELF_SIGNED_CERT')).toMatch(/^self-signed certificate/);
    expect(trustErrorText('SELF_SIGNED_CERT_IN_CHAIN')).toMatch(/^untrusted root/);
    expect(trustErrorText('UNABLE_TO_GET_ISSUER_CERT_LOCALLY')).toMatch(/^unknown issuer/);
    expect(trustErrorText('UNABLE_TO_VERIFY_LEAF_SIGNATURE')).toMatch(/^incomplete chain/);
    expect(trustErrorText('SOMETHING_NEW')).toBe('certificate verification failed (SOMETHING_NEW)');
  });
});

describe('cipherFacts', () => {
  it('TLS 1.3 suites are forward secret and AEAD', () => {
    expect(cipherFacts('TLS_AES_128_GCM_SHA256', 'TLSv1.3')).toEqual({ bits: 128, forwardSecrecy: true, aead: true });
    expect(cipherFacts('TLS_AES_256_GCM_SHA384', 'TLSv1.3')).toEqual({ bits: 256, forwardSecrecy: true, aead: true });
    expect(cipherFacts('TLS_CHACHA20_POLY1305_SHA256', 'TLSv1.3')).toEqual({ bits: 256, forwardSecrecy: true, aead: true });
  });

  it('TLS 1.2 and older suites by name, OpenSSL or IANA', () => {
    expect(cipherFacts('ECDHE-ECDSA-AES128-GCM-SHA256', 'TLSv1.2')).toEqual({ bits: 128, forwardSecrecy: true, aead: true });
    expect(cipherFacts('TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'TLSv1.2')).toEqual({ bits: 256, forwardSecrecy: true, aead: true });
    expect(cipherFacts('ECDHE-ECDSA-AES128-SHA', 'TLSv1')).toEqual({ bits: 128, forwardSecrecy: true, aead: false });
    expect(cipherFacts('AES256-SHA', 'TLSv1')).toEqual({ bits: 256, forwardSecrecy: false, aead: false });
    expect(cipherFacts('AES128-GCM-SHA256', 'TLSv1.2')).toEqual({ bits: 128, forwardSecrecy: false, aead: true });
    expect(cipherFacts('DHE-RSA-CHACHA20-POLY1305', 'TLSv1.2')).toEqual({ bits: 256, forwardSecrecy: true, aead: true });
    expect(cipherFacts('EDH-RSA-DES-CBC3-SHA', 'TLSv1')).toEqual({ bits: 112, forwardSecrecy: true, aead: false });
    expect(cipherFacts('TLS_RSA_WITH_3DES_EDE_CBC_SHA', 'TLSv1')).toMatchObject({ bits: 112, forwardSecrecy: false });
    expect(cipherFacts('DES-CBC-SHA', 'TLSv1')).toMatchObject({ bits: 56 });
    expect(cipherFacts('RC4-SHA', 'TLSv1')).toMatchObject({ bits: 128, aead: false });
    expect(cipherFacts('ECDHE-RSA-NULL-SHA', 'TLSv1')).toMatchObject({ bits: 0 });
    expect(cipherFacts('ECDHE-ECDSA-AES128-CCM', 'TLSv1.2')).toMatchObject({ aead: true });
    expect(cipherFacts('ECDHE-ARIA256-GCM-SHA384', 'TLSv1.2')).toMatchObject({ bits: 256 });
    expect(cipherFacts('CAMELLIA128-SHA', 'TLSv1.2')).toMatchObject({ bits: 128, forwardSecrecy: false });
  });
});

describe('hostnameMatches (RFC 6125 via tls.checkServerIdentity)', () => {
  const cert = (san: string, cn = 'x') => ({ subject: { CN: cn }, subjectaltname: san });
  it('exact SAN names and IPs', () => {
    expect(hostnameMatches('localhost', cert('DNS:localhost, IP Address:127.0.0.1'))).toBe(true);
    expect(hostnameMatches('127.0.0.1', cert('DNS:localhost, IP Address:127.0.0.1'))).toBe(true);
    expect(hostnameMatches('example.com', cert('DNS:localhost'))).toBe(false);
  });
  it('a wildcard covers exactly one left-most label', () => {
    const w = cert('DNS:*.wild.test');
    expect(hostnameMatches('a.wild.test', w)).toBe(true);
    expect(hostnameMatches('wild.test', w)).toBe(false);
    expect(hostnameMatches('a.b.wild.test', w)).toBe(false);
  });
  it('the CN is ignored when SANs are present', () => {
    expect(hostnameMatches('cn.example', cert('DNS:other.example', 'cn.example'))).toBe(false);
  });
});

describe('parseHsts', () => {
  it('reads max-age and flags', () => {
    expect(parseHsts('max-age=31536000; includeSubDomains; preload')).toEqual({ enabled: true, max_age: 31536000, include_subdomains: true, preload: true });
    expect(parseHsts('max-age="600"')).toEqual({ enabled: true, max_age: 600, include_subdomains: false, preload: false });
    expect(parseHsts('MAX-AGE=15552000')).toMatchObject({ enabled: true, max_age: 15552000 });
    expect(parseHsts('max-age=0')).toMatchObject({ enabled: false, max_age: 0 });
    expect(parseHsts(['max-age=10', 'max-age=20'])).toMatchObject({ max_age: 10 });
    expect(parseHsts('max-age=10, max-age=20')).toMatchObject({ max_age: 10 });
  });
  it('absent or invalid headers mean no HSTS', () => {
    for (const h of [undefined, '', 'includeSubDomains', 'max-age=abc', 'max-age=-1', 'max-age=1; max-age=2', 'max-age=']) {
      expect(parseHsts(h)).toEqual({ enabled: false, max_age: null, include_subdomains: false, preload: false });
    }
  });
  it('property: never throws; max_age is null or a non-negative integer', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), (s) => {
        const h = parseHsts(s);
        expect(h.max_age === null || (Number.isInteger(h.max_age) && h.max_age >= 0)).toBe(true);
        expect(h.enabled).toBe(h.max_age !== null && h.max_age > 0);
      }),
    );
    fc.assert(
      fc.property(fc.nat(), (n) => {
        expect(parseHsts(`max-age=${n}`).max_age).toBe(n);
      }),
    );
  });
});
