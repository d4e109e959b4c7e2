// Certificate facts from raw DER. Pure (no I/O): node's X509Certificate for fingerprints, validity
// and the public key; pkijs for what X509Certificate does not expose (ordered names, the signature
// algorithm, the embedded SCT list).
import { X509Certificate } from 'node:crypto';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import * as pkijs from 'pkijs';

export const SCT_LIST_OID = '1.3.6.1.4.1.11129.2.4.2';

export interface KeyInfo {
  readonly type: string;
  readonly bits: number | null;
  readonly curve: string | null;
}

export interface EmbeddedSct {
  /** Base64 of the 32-byte log id (SHA-256 of the log's public key). */
  readonly log_id: string;
  readonly timestamp: string;
  /** e.g. "ecdsa-with-SHA256", from the SCT's digitally-signed struct. */
  readonly signature_algorithm: string;
}

export interface CertInfo {
  readonly subject: NameInfo;
  readonly issuer: NameInfo;
  /** RFC 4514 string, most specific attribute first: "CN=R11,O=Let's Encrypt,C=US". */
  readonly subjectDn: string;
  readonly issuerDn: string;
  readonly san: readonly string[];
  readonly validFrom: string;
  readonly expiresAt: string;
  readonly serialNumber: string;
  readonly fingerprintSha256: string;
  readonly signatureAlgorithm: string;
  readonly key: KeyInfo;
  readonly isCa: boolean;
  readonly scts: readonly EmbeddedSct[];
  readonly raw: Buffer;
}

export interface NameInfo {
  readonly common_name: string | null;
  readonly organization: string | null;
  readonly country: string | null;
}

const ATTRIBUTE_NAMES: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN', '2.5.4.4': 'SN', '2.5.4.5': 'serialNumber', '2.5.4.6': 'C', '2.5.4.7': 'L', '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.12': 'title', '2.5.4.17': 'postalCode',
  '2.5.4.42': 'GN', '2.5.4.97': 'organizationIdentifier', '1.2.840.113549.1.9.1': 'emailAddress',
  '0.9.2342.19200300.100.1.25': 'DC', '0.9.2342.19200300.100.1.1': 'UID',
  '1.3.6.1.4.1.311.60.2.1.3': 'jurisdictionC', '2.5.4.15': 'businessCategory',
};

// OpenSSL long names, so clients see what `openssl x509 -text` prints.
const SIGNATURE_NAMES: Readonly<Record<string, string>> = {
  '1.2.840.113549.1.1.2': 'md2WithRSAEncryption',
  '1.2.840.113549.1.1.4': 'md5WithRSAEncryption',
  '1.2.840.113549.1.1.5': 'sha1WithRSAEncryption',
  '1.2.840.113549.1.1.10': 'rsassaPss',
  '1.2.840.113549.1.1.11': 'sha256WithRSAEncryption',
  '1.2.840.113549.1.1.12': 'sha384WithRSAEncryption',
  '1.2.840.113549.1.1.13': 'sha512WithRSAEncryption',
  '1.2.840.113549.1.1.14': 'sha224WithRSAEncryption',
  '1.2.840.10045.4.1': 'ecdsa-with-SHA1',
  '1.2.840.10045.4.3.1': 'ecdsa-with-SHA224',
  '1.2.840.10045.4.3.2': 'ecdsa-with-SHA256',
  '1.2.840.10045.4.3.3': 'ecdsa-with-SHA384',
  '1.2.840.10045.4.3.4': 'ecdsa-with-SHA512',
  '1.2.840.10040.4.3': 'dsaWithSHA1',
  '2.16.840.1.101.3.4.3.2': 'dsa_with_SHA256',
  '1.3.101.112': 'ED25519',
  '1.3.101.113': 'ED448',
};

const HASH_NAMES: Readonly<Record<string, string>> = {
  '1.3.14.3.2.26': 'SHA1', '2.16.840.1.101.3.4.2.1': 'SHA256', '2.16.840.1.101.3.4.2.2': 'SHA384', '2.16.840.1.101.3.4.2.3': 'SHA512',
};

const CURVE_BITS: Readonly<Record<string, number>> = {
  prime192v1: 192, secp224r1: 224, prime256v1: 256, secp256k1: 256, secp384r1: 384, secp521r1: 521,
  brainpoolP256r1: 256, brainpoolP384r1: 384, brainpoolP512r1: 512,
};

/** Upper-case colon hex of a serial, without DER sign padding: "04:A1:...". */
export function formatSerial(hex: string): string {
  let h = hex.replace(/[^0-9a-f]/gi, '').toUpperCase().replace(/^0+/, '');
  if (h === '') h = '00';
  if (h.length % 2 === 1) h = '0' + h;
  return h.match(/../g)!.join(':');
}

export function describeCertificate(raw: Buffer): CertInfo {
  const x = new X509Certificate(raw);
  const ber = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer;
  const p = pkijs.Certificate.fromBER(ber);
  const subjectAttrs = attributes(p.subject);
  const issuerAttrs = attributes(p.issuer);
  return {
    subject: nameInfo(subjectAttrs),
    issuer: nameInfo(issuerAttrs),
    subjectDn: dn(subjectAttrs),
    issuerDn: dn(issuerAttrs),
    san: sanList(x.subjectAltName),
    validFrom: iso(p.notBefore.value),
    expiresAt: iso(p.notAfter.value),
    serialNumber: formatSerial(x.serialNumber),
    fingerprintSha256: x.fingerprint256,
    signatureAlgorithm: signatureName(p.signatureAlgorithm),
    key: keyInfo(x),
    isCa: x.ca,
    scts: embeddedScts(p),
    raw,
  };
}

function iso(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function attributes(name: pkijs.RelativeDistinguishedNames): [string, string][] {
  return name.typesAndValues.map((tv) => {
    const block = (tv.value as { valueBlock?: { value?: unknown } }).valueBlock;
    const value = typeof block?.value === 'string' ? block.value : '';
    return [ATTRIBUTE_NAMES[tv.type] ?? tv.type, value];
  });
}

function first(attrs: readonly [string, string][], key: string): string | null {
  const v = attrs.find(([k]) => k === key)?.[1];
  return v === undefined || v === '' ? null : v;
}

function nameInfo(attrs: readonly [string, string][]): NameInfo {
  return { common_name: first(attrs, 'CN'), organization: first(attrs, 'O'), country: first(attrs, 'C') };
}

// RFC 4514: reversed order, and ',', '+', '"', '\\', '<', '>', ';' escaped (plus a leading '#'/space and a trailing space).
function dn(attrs: readonly [string, string][]): string {
  return [...attrs]
    .reverse()
    .map(([k, v]) => `${k}=${v.replace(/[,+"\\<>;]/g, '\\$&').replace(/^[ #]/, '\\$&').replace(/ $/, '\\ ')}`)
    .join(',');
}

/** SAN DNS names and IP addresses, in certificate order. */
function sanList(subjectAltName: string | undefined): string[] {
  if (subjectAltName === undefined) return [];
  const out: string[] = [];
  // Node quotes entries containing ", " as JSON strings; a plain split is wrong only for such names.
  for (const m of subjectAltName.matchAll(/(DNS|IP Address):("(?:[^"\\]|\\.)*"|[^,]*)/g)) {
    const value = (m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!).trim();
    // Node prints IPv6 SANs uncompressed (0:0:0:0:0:0:0:1); show them as RFC 5952 text.
    out.push(m[1] === 'IP Address' && net.isIP(value) !== 0 ? ipaddr.parse(value).toString() : value);
  }
  return out;
}

function signatureName(alg: pkijs.AlgorithmIdentifier): string {
  const name = SIGNATURE_NAMES[alg.algorithmId];
  if (name !== 'rsassaPss') return name ?? alg.algorithmId;
  // RSASSA-PSS names its hash in the parameters; SHA-1 is the default when absent (RFC 4055).
  try {
    const params = new pkijs.RSASSAPSSParams({ schema: alg.algorithmParams });
    return `rsassaPss-${HASH_NAMES[params.hashAlgorithm.algorithmId] ?? params.hashAlgorithm.algorithmId}`;
  } catch {
    return 'rsassaPss';
  }
}

function keyInfo(x: X509Certificate): KeyInfo {
  const k = x.publicKey;
  const d = k.asymmetricKeyDetails ?? {};
  switch (k.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss':
      return { type: 'RSA', bits: d.modulusLength ?? null, curve: null };
    case 'dsa':
      return { type: 'DSA', bits: d.modulusLength ?? null, curve: null };
    case 'ec': {
      const curve = d.namedCurve ?? null;
      return { type: 'EC', bits: curve === null ? null : (CURVE_BITS[curve] ?? null), curve };
    }
    case 'ed25519':
      return { type: 'Ed25519', bits: 256, curve: 'Ed25519' };
    case 'ed448':
      return { type: 'Ed448', bits: 456, curve: 'Ed448' };
    default:
      return { type: String(k.asymmetricKeyType ?? 'unknown').toUpperCase(), bits: null, curve: null };
  }
}

function embeddedScts(p: pkijs.Certificate): EmbeddedSct[] {
  const ext = p.extensions?.find((e) => e.extnID === SCT_LIST_OID);
  const list = ext?.parsedValue as { timestamps?: pkijs.SignedCertificateTimestamp[] } | undefined;
  if (list?.timestamps === undefined) return [];
  return list.timestamps.map((t) => ({
    log_id: Buffer.from(t.logID).toString('base64'),
    timestamp: iso(t.timestamp),
    signature_algorithm: `${t.signatureAlgorithm}-with-${t.hashAlgorithm.toUpperCase()}`,
  }));
}
