// ssl_history: every certificate this daemon observed per target (domain, port), upserted on each probe.
import type { Db } from '../../platform/sqlite.js';

export interface ObservedCert {
  readonly fingerprint: string;
  readonly serial: string;
  readonly issuer: string;
  readonly validFrom: string;
  readonly expiresAt: string;
}

export interface HistoryEntry {
  readonly fingerprint_sha256: string | null;
  readonly serial_number: string;
  /** RFC 4514 DN; null when a CT search entry names none. */
  readonly issuer: string | null;
  readonly valid_from: string;
  readonly expires_at: string;
  readonly first_seen: string | null;
  readonly last_seen: string | null;
  readonly origin: 'observed' | 'ct-log';
}

/** How many observed certificates a response lists (most recently seen first). */
export const HISTORY_LIMIT = 50;

export class SslHistory {
  private readonly upsertStmt;
  private readonly listStmt;

  constructor(db: Db) {
    this.upsertStmt = db.prepare(
      `INSERT INTO ssl_history (domain, port, fingerprint, serial, issuer, valid_from, expires_at, first_seen, last_seen)
       VALUES (@domain, @port, @fingerprint, @serial, @issuer, @validFrom, @expiresAt, @at, @at)
       ON CONFLICT(domain, port, fingerprint) DO UPDATE SET last_seen = excluded.last_seen`,
    );
    this.listStmt = db.prepare(
      `SELECT fingerprint, serial, issuer, valid_from, expires_at, first_seen, last_seen FROM ssl_history
       WHERE domain = ? AND port = ? ORDER BY last_seen DESC, first_seen DESC LIMIT ${HISTORY_LIMIT}`,
    );
  }

  record(domain: string, port: number, cert: ObservedCert, at: string): void {
    this.upsertStmt.run({ domain, port, ...cert, at });
  }

  list(domain: string, port: number): HistoryEntry[] {
    return (this.listStmt.all(domain, port) as { fingerprint: string; serial: string; issuer: string; valid_from: string; expires_at: string; first_seen: string; last_seen: string }[]).map((r) => ({
      fingerprint_sha256: r.fingerprint,
      serial_number: r.serial,
      issuer: r.issuer,
      valid_from: r.valid_from,
      expires_at: r.expires_at,
      first_seen: r.first_seen,
      last_seen: r.last_seen,
      origin: 'observed',
    }));
  }
}
