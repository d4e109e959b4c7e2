// Pure interpretation of handshake facts: trust errors, cipher properties, hostname match, HSTS.
import tls from 'node:tls';

/** OpenSSL verify codes (as node reports them in `authorizationError`) → what a person should read. */
const TRUST_ERRORS: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: 'certificate has expired',
  CERT_NOT_YET_VALID: 'certificate is not yet valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'untrusted root: the chain ends in a self-signed certificate that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'unknown issuer: the issuing CA is not trusted',
  UNABLE_TO_GET_ISSUER_CERT: 'unknown issuer: the issuer certificate could not be found',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'incomplete chain: the server did not send the intermediate certificate and the issuer is not trusted',
  CERT_SIGNATURE_FAILURE: 'invalid certificate signature',
  CERT_CHAIN_TOO_LONG: 'certificate chain too long',
  CERT_REVOKED: 'certificate revoked',
  INVALID_CA: 'an intermediate is not a valid CA certificate',
  PATH_LENGTH_EXCEEDED: 'path length constraint exceeded',
  INVALID_PURPOSE: 'certificate is not valid for TLS server authentication',
  CERT_UNTRUSTED: 'certificate is not trusted',
  CERT_REJECTED: 'certificate is rejected',
  ERROR_IN_CERT_NOT_BEFORE_FIELD: 'malformed notBefore field',
  ERROR_IN_CERT_NOT_AFTER_FIELD: 'malformed notAfter field',
  UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY: 'issuer public key could not be decoded',
  EE_KEY_TOO_SMALL: 'certificate key too small',
  CA_KEY_TOO_SMALL: 'CA key too small',
  CA_MD_TOO_WEAK: 'CA signature digest too weak',
};

/** A clear trust_error string: the meaning, then the OpenSSL code in parentheses. */
export function trustErrorText(code: string): string {
  const text = TRUST_ERRORS[code];
  return text === undefined ? `certificate verification failed (${code})` : `${text} (${code})`;
}

export interface CipherFacts {
  /** Symmetric key bits: AES-128 → 128, CHACHA20 → 256, 3DES → 112, NULL → 0. */
  readonly bits: number;
  readonly forwardSecrecy: boolean;
  readonly aead: boolean;
}

/** From an OpenSSL or IANA suite name and the protocol it was negotiated at. */
export function cipherFacts(name: string, protocol: string | null): CipherFacts {
  const n = name.toUpperCase();
  const tls13 = protocol === 'TLSv1.3' || /^TLS_(AES|CHACHA20)/.test(n);
  return {
    bits: cipherBits(n),
    // TLS 1.3 key exchange is always ephemeral; before it only (EC)DHE suites are.
    forwardSecrecy: tls13 || /(^|[-_])(ECDHE|DHE|EDH|EECDH)([-_]|$)/.test(n),
    aead: tls13 || /GCM|CHACHA20|CCM/.test(n),
  };
}

function cipherBits(n: string): number {
  if (/NULL/.test(n)) return 0;
  if (/CHACHA20/.test(n)) return 256;
  if (/3DES|DES[-_]CBC3|DES[-_]EDE/.test(n)) return 112;
  if (/(^|[-_])DES([-_]|$)|DES[-_]CBC([-_]|$)|DES40/.test(n)) return 56;
  if (/EXPORT|EXP[-_]/.test(n)) return 40;
  const m = /(?:AES|CAMELLIA|ARIA)[-_]?(128|192|256)/.exec(n);
  if (m !== null) return Number(m[1]);
  if (/RC4|SEED|IDEA|SM4/.test(n)) return 128;
  if (/AES/.test(n)) return 128;
  return 0;
}

/**
 * RFC 6125 host matching (SAN first, wildcards only as the whole left-most label) via node's
 * tls.checkServerIdentity. `cert` needs `subject` and `subjectaltname` as node's PeerCertificate has them.
 */
export function hostnameMatches(host: string, cert: { subject?: unknown; subjectaltname?: string }): boolean {
  return tls.checkServerIdentity(host, cert as tls.PeerCertificate) === undefined;
}

export interface Hsts {
  readonly enabled: boolean;
  readonly max_age: number | null;
  readonly include_subdomains: boolean;
  readonly preload: boolean;
}

export const NO_HSTS: Hsts = { enabled: false, max_age: null, include_subdomains: false, preload: false };

/** RFC 6797 §6.1: directives separated by ";", max-age required; only the first header counts. */
export function parseHsts(header: string | readonly string[] | undefined): Hsts {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value !== 'string' || value.trim() === '') return NO_HSTS;
  let maxAge: number | null = null;
  let includeSub = false;
  let preload = false;
  const seen = new Set<string>();
  for (const part of value.split(',')[0]!.split(';')) {
    const [rawName, ...rest] = part.split('=');
    const name = rawName!.trim().toLowerCase();
    if (name === '') continue;
    // A repeated directive makes the header invalid (RFC 6797 §6.1 rule 2).
    if (seen.has(name)) return NO_HSTS;
    seen.add(name);
    const v = rest.join('=').trim().replace(/^"(.*)"$/, '$1');
    if (name === 'max-age') {
      if (!/^\d{1,15}$/.test(v)) return NO_HSTS;
      maxAge = Number(v);
    } else if (name === 'includesubdomains') includeSub = true;
    else if (name === 'preload') preload = true;
  }
  if (maxAge === null) return NO_HSTS;
  return { enabled: maxAge > 0, max_age: maxAge, include_subdomains: includeSub, preload };
}
