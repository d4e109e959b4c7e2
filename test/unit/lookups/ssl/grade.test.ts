import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  GRADE_RUBRIC, HSTS_A_PLUS_MIN_AGE, cipherScore, computeGrade, keyExchangeScore, keyStrength, letterFor, protocolScore,
  type GradeInput,
} from '../../../../src/lookups/ssl/grade.js';

// A modern server: TLS 1.2 + 1.3, EC P-256, AES-128-GCM and AES-256-GCM, HSTS one year.
const modern: GradeInput = {
  protocols: { TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': true, 'TLSv1.3': true },
  key: { type: 'EC', bits: 256, curve: 'prime256v1' },
  cipherBits: [128, 256],
  forwardSecrecy: true,
  aead: true,
  signatureAlgorithm: 'ecdsa-with-SHA256',
  hstsMaxAge: 31536000,
  trusted: true,
};
const g = (over: Partial<GradeInput>) => computeGrade({ ...modern, ...over });
const rules = (over: Partial<GradeInput>) => g(over).grade_reasons.map((r) => r.rule);

describe('sub-scores', () => {
  it('protocol: average of best and worst offered', () => {
    expect(protocolScore({ 'TLSv1.2': true, 'TLSv1.3': true })).toBe(100);
    expect(protocolScore({ 'TLSv1.1': true })).toBe(95);
    expect(protocolScore({ TLSv1: true, 'TLSv1.3': true })).toBe(95);
    expect(protocolScore({ SSLv3: true, 'TLSv1.2': true })).toBe(90);
    expect(protocolScore({ TLSv1: true, 'TLSv1.1': true })).toBe(92.5);
    expect(protocolScore({})).toBe(0);
    expect(protocolScore({ 'TLSv1.2': false })).toBe(0);
  });

  it('key exchange: every boundary of the table', () => {
    expect(keyExchangeScore(0)).toBe(0);
    expect(keyExchangeScore(511)).toBe(20);
    expect(keyExchangeScore(512)).toBe(40);
    expect(keyExchangeScore(1023)).toBe(40);
    expect(keyExchangeScore(1024)).toBe(80);
    expect(keyExchangeScore(2047)).toBe(80);
    expect(keyExchangeScore(2048)).toBe(90);
    expect(keyExchangeScore(4095)).toBe(90);
    expect(keyExchangeScore(4096)).toBe(100);
  });

  it('key strength: RSA by modulus, EC and EdDSA by RSA-equivalent strength', () => {
    expect(keyStrength({ type: 'RSA', bits: 2048, curve: null })).toBe(2048);
    expect(keyStrength({ type: 'EC', bits: 256, curve: 'prime256v1' })).toBe(3072);
    expect(keyStrength({ type: 'EC', bits: 384, curve: 'secp384r1' })).toBe(7680);
    expect(keyStrength({ type: 'EC', bits: 521, curve: 'secp521r1' })).toBe(15360);
    expect(keyStrength({ type: 'EC', bits: 224, curve: 'secp224r1' })).toBe(2048);
    expect(keyStrength({ type: 'EC', bits: 192, curve: 'prime192v1' })).toBe(1024);
    expect(keyStrength({ type: 'Ed25519', bits: null, curve: null })).toBe(3072);
    expect(keyStrength({ type: 'Ed448', bits: null, curve: null })).toBe(7680);
    expect(keyStrength({ type: 'RSA', bits: null, curve: null })).toBe(0);
  });

  it('cipher: average of strongest and weakest', () => {
    expect(cipherScore([256])).toBe(100);
    expect(cipherScore([128, 256])).toBe(90);
    expect(cipherScore([128])).toBe(80);
    expect(cipherScore([112, 256])).toBe(60);
    expect(cipherScore([127])).toBe(20);
    expect(cipherScore([255])).toBe(80);
    expect(cipherScore([])).toBe(0);
    expect(cipherScore([0])).toBe(0);
  });

  it('letters: every boundary', () => {
    expect(letterFor(100)).toBe('A');
    expect(letterFor(80)).toBe('A');
    expect(letterFor(79.9)).toBe('B');
    expect(letterFor(65)).toBe('B');
    expect(letterFor(64.9)).toBe('C');
    expect(letterFor(50)).toBe('C');
    expect(letterFor(49.9)).toBe('D');
    expect(letterFor(35)).toBe('D');
    expect(letterFor(34.9)).toBe('E');
    expect(letterFor(20)).toBe('E');
    expect(letterFor(19.9)).toBe('F');
    expect(letterFor(0)).toBe('F');
  });
});

describe('computeGrade', () => {
  it('a modern server with long HSTS gets A+ and no reasons', () => {
    const r = g({});
    expect(r.score).toEqual({ protocol: 100, key_exchange: 90, cipher: 90, total: 93 });
    expect(r.grade).toBe('A+');
    expect(r.grade_ignoring_trust).toBe('A+');
    expect(r.grade_reasons).toEqual([]);
  });

  it('A+ needs HSTS max-age of at least 180 days', () => {
    expect(g({ hstsMaxAge: HSTS_A_PLUS_MIN_AGE }).grade).toBe('A+');
    const short = g({ hstsMaxAge: HSTS_A_PLUS_MIN_AGE - 1 });
    expect(short.grade).toBe('A');
    expect(short.grade_reasons).toEqual([{ rule: 'no-hsts', effect: expect.stringMatching(/^A\+ not reached/) }]);
    const none = g({ hstsMaxAge: null });
    expect(none.grade).toBe('A');
    expect(none.grade_reasons.map((x) => x.rule)).toEqual(['no-hsts']);
  });

  it('A+ needs no caps: a capped server never lists no-hsts', () => {
    const r = g({ protocols: { ...modern.protocols, 'TLSv1.1': true } });
    expect(r.grade).toBe('B');
    expect(r.grade_reasons.map((x) => x.rule)).toEqual(['legacy-tls']);
  });

  it('TLS 1.0 or 1.1 offered caps at B', () => {
    expect(g({ protocols: { ...modern.protocols, TLSv1: true } }).grade).toBe('B');
    expect(rules({ protocols: { ...modern.protocols, TLSv1: true } })).toEqual(['legacy-tls']);
    expect(rules({ protocols: { ...modern.protocols, SSLv3: true } })).toEqual(['legacy-tls']);
  });

  it('no forward secrecy caps at B', () => {
    expect(g({ forwardSecrecy: false }).grade).toBe('B');
    expect(rules({ forwardSecrecy: false })).toEqual(['no-forward-secrecy']);
  });

  it('no AEAD caps at B', () => {
    expect(g({ aead: false }).grade).toBe('B');
    expect(rules({ aead: false })).toEqual(['no-aead']);
  });

  it('RSA key below 2048 caps at B; 2048 does not', () => {
    expect(g({ key: { type: 'RSA', bits: 2047, curve: null } }).grade).toBe('B');
    expect(rules({ key: { type: 'RSA', bits: 1024, curve: null } })).toEqual(['rsa-key-under-2048']);
    expect(g({ key: { type: 'RSA', bits: 2048, curve: null } }).grade).toBe('A+');
    // An EC key is never "RSA < 2048" even though 256 < 2048.
    expect(rules({ key: { type: 'EC', bits: 256, curve: 'prime256v1' } })).toEqual([]);
  });

  it('no TLS 1.2+ caps at C', () => {
    const r = g({ protocols: { TLSv1: true, 'TLSv1.1': true } });
    expect(r.grade).toBe('C');
    expect(r.grade_reasons.map((x) => x.rule)).toEqual(['no-tls12', 'legacy-tls']);
    expect(g({ protocols: { 'TLSv1.2': true } }).grade).toBe('A+');
    expect(g({ protocols: { 'TLSv1.3': true } }).grade).toBe('A+');
  });

  it('key below 1024 caps at F (RSA-equivalent strength)', () => {
    const r = g({ key: { type: 'RSA', bits: 1023, curve: null } });
    expect(r.grade).toBe('F');
    expect(r.grade_reasons.map((x) => x.rule)).toEqual(['key-under-1024', 'rsa-key-under-2048']);
    expect(g({ key: { type: 'RSA', bits: 1024, curve: null } }).grade).toBe('B');
    expect(g({ key: { type: 'EC', bits: 160, curve: 'secp160r1' } }).grade).toBe('A+');
    expect(g({ key: { type: 'EC', bits: 112, curve: 'secp112r1' } }).grade).toBe('F');
  });

  it('MD5 or SHA-1 leaf signature caps at F; SHA-256 and up do not', () => {
    for (const alg of ['sha1WithRSAEncryption', 'ecdsa-with-SHA1', 'md5WithRSAEncryption', 'dsaWithSHA1']) {
      expect(g({ signatureAlgorithm: alg }).grade).toBe('F');
      expect(rules({ signatureAlgorithm: alg })).toEqual(['weak-signature']);
    }
    for (const alg of ['sha256WithRSAEncryption', 'ecdsa-with-SHA384', 'sha512WithRSAEncryption', 'ED25519', 'rsassaPss']) {
      expect(rules({ signatureAlgorithm: alg })).toEqual([]);
    }
    expect(rules({ signatureAlgorithm: null })).toEqual([]);
  });

  it('a cap never raises a grade the score already put lower', () => {
    // protocol 100, 1000-bit RSA → 40, cipher 112 → 20: 30 + 12 + 8 = 50 → C by score, F by the key cap.
    const r = g({ key: { type: 'RSA', bits: 1000, curve: null }, cipherBits: [112] });
    expect(r.score.total).toBe(30 + 12 + 8);
    expect(r.grade).toBe('F');
    const c = g({ key: { type: 'RSA', bits: 1500, curve: null }, cipherBits: [100] });
    expect(c.score.total).toBe(30 + 24 + 8);
    expect(c.grade).toBe('C');
    expect(c.grade_reasons.map((x) => x.rule)).toEqual(['rsa-key-under-2048']);
  });

  it('score letters without caps: B, D and E boundaries reached by real inputs', () => {
    // protocol 100 (30) + key 90 (27) + cipher 20 (8) = 65 → B
    expect(g({ cipherBits: [100] }).score.total).toBe(65);
    expect(g({ cipherBits: [100] }).grade).toBe('B');
    // protocol 100 (30) + key 0 + cipher 20 (8) = 38 → D (key-under-1024 caps to F)
    const d = g({ key: { type: 'RSA', bits: 0, curve: null }, cipherBits: [100] });
    expect(d.score.total).toBe(38);
    expect(d.grade).toBe('F');
  });

  it('trust failure gives T and keeps the letter underneath', () => {
    const r = g({ trusted: false });
    expect(r.grade).toBe('T');
    expect(r.grade_ignoring_trust).toBe('A+');
    expect(r.grade_reasons.map((x) => x.rule)).toEqual(['untrusted']);
    const capped = g({ trusted: false, aead: false, hstsMaxAge: null });
    expect(capped.grade).toBe('T');
    expect(capped.grade_ignoring_trust).toBe('B');
    expect(capped.grade_reasons.map((x) => x.rule)).toEqual(['no-aead', 'untrusted']);
  });

  it('every triggered cap is listed once, each with a non-empty effect', () => {
    const r = g({
      protocols: { TLSv1: true }, key: { type: 'RSA', bits: 512, curve: null }, forwardSecrecy: false, aead: false,
      signatureAlgorithm: 'md5WithRSAEncryption', trusted: false,
    });
    expect(r.grade).toBe('T');
    expect(r.grade_ignoring_trust).toBe('F');
    expect(r.grade_reasons.map((x) => x.rule)).toEqual([
      'key-under-1024', 'weak-signature', 'no-tls12', 'legacy-tls', 'no-forward-secrecy', 'no-aead', 'rsa-key-under-2048', 'untrusted',
    ]);
    for (const reason of r.grade_reasons) expect(reason.effect.length).toBeGreaterThan(0);
  });

  it('property: grade is T iff untrusted; letters never beat the score letter; A+ only without reasons', () => {
    const proto = fc.record({ SSLv3: fc.boolean(), TLSv1: fc.boolean(), 'TLSv1.1': fc.boolean(), 'TLSv1.2': fc.boolean(), 'TLSv1.3': fc.boolean() });
    const input = fc.record({
      protocols: proto,
      key: fc.oneof(
        fc.record({ type: fc.constant('RSA'), bits: fc.option(fc.integer({ min: 0, max: 16384 })), curve: fc.constant(null) }),
        fc.record({ type: fc.constant('EC'), bits: fc.option(fc.constantFrom(160, 224, 256, 384, 521)), curve: fc.constant(null) }),
      ),
      cipherBits: fc.array(fc.constantFrom(0, 56, 112, 128, 168, 256), { maxLength: 5 }),
      forwardSecrecy: fc.boolean(),
      aead: fc.boolean(),
      signatureAlgorithm: fc.option(fc.constantFrom('sha256WithRSAEncryption', 'sha1WithRSAEncryption', 'ecdsa-with-SHA384')),
      hstsMaxAge: fc.option(fc.integer({ min: 0, max: 10 ** 9 })),
      trusted: fc.boolean(),
    });
    const order = ['A+', 'A', 'B', 'C', 'D', 'E', 'F'];
    fc.assert(
      fc.property(input, (i) => {
        const r = computeGrade(i);
        expect(r.grade === 'T').toBe(!i.trusted);
        const underneath = r.grade_ignoring_trust === 'A+' ? 'A' : r.grade_ignoring_trust;
        expect(order.indexOf(underneath)).toBeGreaterThanOrEqual(order.indexOf(letterFor(r.score.total)));
        if (r.grade_ignoring_trust === 'A+') expect(r.grade_reasons.filter((x) => x.rule !== 'untrusted')).toEqual([]);
        expect(r.score.total).toBeGreaterThanOrEqual(0);
        expect(r.score.total).toBeLessThanOrEqual(100);
      }),
      { numRuns: 500 },
    );
  });
});

describe('GRADE_RUBRIC', () => {
  it('documents every cap the code applies, and the letter floors', () => {
    expect(GRADE_RUBRIC.caps.map((c) => c.rule)).toEqual([
      'key-under-1024', 'weak-signature', 'no-tls12', 'legacy-tls', 'no-forward-secrecy', 'no-aead', 'rsa-key-under-2048',
    ]);
    expect(GRADE_RUBRIC.letters).toEqual([
      { letter: 'A', min_score: 80 }, { letter: 'B', min_score: 65 }, { letter: 'C', min_score: 50 },
      { letter: 'D', min_score: 35 }, { letter: 'E', min_score: 20 }, { letter: 'F', min_score: 0 },
    ]);
    expect(JSON.parse(JSON.stringify(GRADE_RUBRIC))).toEqual(GRADE_RUBRIC);
  });
});
