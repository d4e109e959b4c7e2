// Shapes the /v1/ssl answer from probe facts. Pure: no I/O, the clock is passed in.
import { cipherFacts, trustErrorText, type Hsts } from './analysis.js';
import type { CertInfo, EmbeddedSct } from './cert.js';
import { computeGrade, type ProtocolName } from './grade.js';
import type { HistoryEntry } from './history.js';
import type { TlsVersion } from './probe.js';
import type { SslTarget } from './target.js';

export interface SslFacts {
  readonly target: SslTarget;
  readonly address: string;
  readonly protocol: string | null;
  readonly cipher: string | null;
  /** OpenSSL verify code of the chain, null when it verified. */
  readonly verifyError: string | null;
  readonly hostnameMatch: boolean;
  /** Leaf first. */
  readonly chain: readonly CertInfo[];
  /** Per version: accepted, and the suite the server chose. */
  readonly scans: Readonly<Record<TlsVersion, { accepted: boolean; cipher: string | null }>>;
  readonly hsts: Hsts;
  readonly scts: readonly (EmbeddedSct & { log_name: string | null; operator: string | null })[];
  readonly observed: readonly HistoryEntry[];
  /** null when no CT search is configured or it failed. */
  readonly logged: readonly HistoryEntry[] | null;
  readonly checkedAt: string;
  readonly source: Record<string, unknown>;
}

export function trustError(f: Pick<SslFacts, 'verifyError' | 'hostnameMatch' | 'target' | 'chain'>): string | null {
  if (f.verifyError !== null) return trustErrorText(f.verifyError);
  if (!f.hostnameMatch) {
    const san = f.chain[0]?.san ?? [];
    return `hostname mismatch: the certificate is valid for ${san.length === 0 ? 'no subject alternative names' : san.slice(0, 10).join(', ')}${san.length > 10 ? ', …' : ''}, not for ${f.target.host}`;
  }
  return null;
}

/** Observed certificates first, then logged ones not already observed (same serial). */
export function mergeHistory(observed: readonly HistoryEntry[], logged: readonly HistoryEntry[] | null): HistoryEntry[] {
  if (logged === null) return [...observed];
  const seen = new Set(observed.map((h) => h.serial_number));
  return [...observed, ...logged.filter((h) => !seen.has(h.serial_number))];
}

export function buildSslBody(f: SslFacts, now: number): Record<string, unknown> {
  const leaf = f.chain[0]!;
  const protocols: Record<TlsVersion, boolean> = { TLSv1: false, 'TLSv1.1': false, 'TLSv1.2': false, 'TLSv1.3': false };
  for (const v of Object.keys(protocols) as TlsVersion[]) protocols[v] = f.scans[v].accepted || f.protocol === v;

  const preferred = f.cipher === null ? { bits: 0, forwardSecrecy: false, aead: false } : cipherFacts(f.cipher, f.protocol);
  const cipherBits = [preferred.bits];
  for (const v of Object.keys(f.scans) as TlsVersion[]) {
    const s = f.scans[v];
    if (s.accepted && s.cipher !== null) cipherBits.push(cipherFacts(s.cipher, v).bits);
  }
  const error = trustError(f);
  const trusted = error === null;
  const grade = computeGrade({
    protocols: protocols as Partial<Record<ProtocolName, boolean>>,
    key: leaf.key,
    cipherBits,
    forwardSecrecy: preferred.forwardSecrecy,
    aead: preferred.aead,
    signatureAlgorithm: leaf.signatureAlgorithm,
    hstsMaxAge: f.hsts.enabled ? f.hsts.max_age : null,
    trusted,
  });

  return {
    domain: f.target.host,
    port: f.target.port,
    address: f.address,
    issuer: leaf.issuer,
    subject: leaf.subject,
    san: leaf.san,
    valid_from: leaf.validFrom,
    expires_at: leaf.expiresAt,
    days_until_expiry: Math.floor((Date.parse(leaf.expiresAt) - now) / 86_400_000),
    serial_number: leaf.serialNumber,
    fingerprint_sha256: leaf.fingerprintSha256,
    signature_algorithm: leaf.signatureAlgorithm,
    key: leaf.key,
    protocol: f.protocol,
    cipher: f.cipher,
    protocols,
    forward_secrecy: preferred.forwardSecrecy,
    aead: preferred.aead,
    trusted,
    trust_error: error,
    hostname_match: f.hostnameMatch,
    hsts: f.hsts,
    chain: f.chain.slice(1).map((c) => ({
      subject: c.subjectDn,
      issuer: c.issuerDn,
      expires_at: c.expiresAt,
      fingerprint_sha256: c.fingerprintSha256,
    })),
    grade: grade.grade,
    grade_ignoring_trust: grade.grade_ignoring_trust,
    grade_reasons: grade.grade_reasons,
    grade_score: grade.score,
    ct: {
      scts: f.scts.map((s) => ({ log_id: s.log_id, log_name: s.log_name, operator: s.operator, timestamp: s.timestamp, signature_algorithm: s.signature_algorithm })),
      history: mergeHistory(f.observed, f.logged),
    },
    cached: false,
    checked_at: f.checkedAt,
    source: f.source,
  };
}
