import { beforeAll, describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { createTlsFixtures, type Issued, type TlsFixtures } from '../../../helpers/tls-fixtures.js';
import { describeCertificate, formatSerial } from '../../../../src/lookups/ssl/cert.js';

let fx: TlsFixtures;
beforeAll(async () => {
  fx = await createTlsFixtures();
});

const raw = (i: Issued) => new X509Certificate(i.certPem).raw;

describe('describeCertificate', () => {
  it('reads names, SAN, validity, serial, fingerprint, key and signature of an EC leaf', () => {
    const c = describeCertificate(raw(fx.leaves.valid));
    expect(c.subject).toEqual({ common_name: 'localhost', organization: 'Netintel Test', country: null });
    expect(c.issuer).toEqual({ common_name: 'Netintel Test Intermediate', organization: 'Netintel Test', country: 'ZZ' });
    expect(c.issuerDn).toBe('CN=Netintel Test Intermediate,O=Netintel Test,C=ZZ');
    expect(c.subjectDn).toBe('CN=localhost,O=Netintel Test');
    expect(c.san).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(c.validFrom).toBe(fx.leaves.valid.cert.notBefore.toISOString().replace(/\.\d{3}Z$/, 'Z'));
    expect(c.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(c.fingerprintSha256).toBe(fx.leaves.valid.fingerprint);
    expect(c.serialNumber).toMatch(/^([0-9A-F]{2}:)*[0-9A-F]{2}$/);
    expect(c.serialNumber).toBe(formatSerial(fx.leaves.valid.cert.serialNumber));
    expect(c.signatureAlgorithm).toBe('ecdsa-with-SHA256');
    expect(c.key).toEqual({ type: 'EC', bits: 256, curve: 'prime256v1' });
    expect(c.isCa).toBe(false);
    expect(c.scts).toEqual([]);
  });

  it('RSA keys, SHA-1 signatures and CA flags', () => {
    expect(describeCertificate(raw(fx.leaves.rsa1024)).key).toEqual({ type: 'RSA', bits: 1024, curve: null });
    expect(describeCertificate(raw(fx.leaves.sha1)).signatureAlgorithm).toBe('ecdsa-with-SHA1');
    expect(describeCertificate(raw(fx.intermediate)).isCa).toBe(true);
    expect(describeCertificate(raw(fx.leaves.wildcard)).san).toEqual(['*.wild.test']);
  });

  it('decodes the embedded SCT list', () => {
    const c = describeCertificate(raw(fx.leaves.sct));
    expect(c.scts).toEqual([
      { log_id: fx.sctLog.logId, timestamp: fx.sctTimestamp.toISOString().replace(/\.\d{3}Z$/, 'Z'), signature_algorithm: 'ecdsa-with-SHA256' },
      { log_id: Buffer.alloc(32, 0xee).toString('base64'), timestamp: expect.any(String), signature_algorithm: 'ecdsa-with-SHA256' },
    ]);
  });
});

describe('formatSerial', () => {
  it('upper-case colon hex without sign padding', () => {
    expect(formatSerial('04a1ff')).toBe('04:A1:FF');
    expect(formatSerial('00c3')).toBe('C3');
    expect(formatSerial('4A1FF')).toBe('04:A1:FF');
    expect(formatSerial('04:a1:ff')).toBe('04:A1:FF');
    expect(formatSerial('0')).toBe('00');
  });
});
