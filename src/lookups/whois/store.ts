// The registration store (table whois_cache): one row per registrable domain, newest copy wins.
import type { Db } from '../../platform/sqlite.js';
import type { FetchedRecord } from './types.js';

interface Row {
  domain: string;
  unicode_domain: string;
  source_type: 'rdap' | 'whois';
  record: string;
  raw: string | null;
  raw_related: string | null;
  fetched_at_ms: number;
}

interface StoredRecord {
  registration: FetchedRecord['registration'];
  servers: FetchedRecord['servers'];
  bootstrap: FetchedRecord['bootstrap'];
}

export class WhoisStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly allStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare('SELECT * FROM whois_cache WHERE domain = ?');
    // The WHERE clause makes every write "newer wins": an import of an old export, or a slow
    // fetch finishing after a faster one, never replaces a more recent record.
    this.putStmt = db.prepare(
      `INSERT INTO whois_cache (domain, unicode_domain, source_type, registered, record, raw, raw_related, fetched_at_ms)
       VALUES (@domain, @unicode_domain, @source_type, @registered, @record, @raw, @raw_related, @fetched_at_ms)
       ON CONFLICT(domain) DO UPDATE SET unicode_domain = excluded.unicode_domain, source_type = excluded.source_type,
         registered = excluded.registered, record = excluded.record, raw = excluded.raw, raw_related = excluded.raw_related,
         fetched_at_ms = excluded.fetched_at_ms
       WHERE excluded.fetched_at_ms > whois_cache.fetched_at_ms`,
    );
    this.allStmt = db.prepare('SELECT * FROM whois_cache ORDER BY domain');
  }

  get(domain: string): FetchedRecord | null {
    const row = this.getStmt.get(domain) as Row | undefined;
    return row === undefined ? null : fromRow(row);
  }

  /** Stores `r` unless the store already holds a copy at least as new; returns whether it was written. */
  put(r: FetchedRecord): boolean {
    const stored: StoredRecord = { registration: r.registration, servers: r.servers, bootstrap: r.bootstrap };
    const info = this.putStmt.run({
      domain: r.domain,
      unicode_domain: r.unicode_domain,
      source_type: r.source_type,
      registered: r.registration === null ? 0 : 1,
      record: JSON.stringify(stored),
      raw: r.raw === null || r.raw === undefined ? null : JSON.stringify(r.raw),
      raw_related: r.raw_related === null || r.raw_related === undefined ? null : JSON.stringify(r.raw_related),
      fetched_at_ms: Math.floor(r.fetched_at_ms),
    });
    return info.changes > 0;
  }

  /** Every record, one at a time (export streams; the table can be large). */
  *all(): IterableIterator<FetchedRecord> {
    for (const row of this.allStmt.iterate() as IterableIterator<Row>) yield fromRow(row);
  }
}

function fromRow(row: Row): FetchedRecord {
  const stored = JSON.parse(row.record) as StoredRecord;
  return {
    domain: row.domain,
    unicode_domain: row.unicode_domain,
    source_type: row.source_type,
    registration: stored.registration,
    servers: stored.servers,
    bootstrap: stored.bootstrap ?? null,
    raw: row.raw === null ? null : (JSON.parse(row.raw) as unknown),
    raw_related: row.raw_related === null ? null : (JSON.parse(row.raw_related) as unknown),
    fetched_at_ms: row.fetched_at_ms,
  };
}
