// SQLite side of the datasets: staging tables swapped in by rename, the `dataset` rows, and reading the
// active data back for the in-memory indexes.
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../platform/sqlite.js';
import type { DatasetMeta, OuiRecord } from './types.js';
import type { AsName, RirBlock } from './asn-index.js';
import { PrefixIndexBuilder } from './prefix-index.js';
import { v6FromBytes } from './ip.js';
import type { GeoFileShare } from './geo.js';

export interface DatasetRow {
  readonly name: string;
  readonly source: string | null;
  readonly version: string | null;
  readonly built_at: string | null;
  readonly loaded_at: string | null;
  readonly records: number | null;
  readonly sha256: string | null;
  readonly last_error: string | null;
  readonly last_error_at: string | null;
  readonly last_success_at: string | null;
}

export function readDatasetRow(db: Db, name: string): DatasetRow | null {
  return (db.prepare('SELECT * FROM dataset WHERE name = ?').get(name) as DatasetRow | undefined) ?? null;
}

export function isoNow(now = Date.now()): string {
  return new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface ActivationInfo {
  readonly source: string;
  readonly version: string;
  readonly builtAt: string | null;
  readonly records: number;
  readonly sha256: string;
}

/** Marks a new version active. Call inside the transaction that swaps the data in. */
export function writeDatasetActivated(db: Db, name: string, info: ActivationInfo, now = Date.now()): void {
  const at = isoNow(now);
  db.prepare(
    `INSERT INTO dataset (name, source, version, built_at, loaded_at, records, sha256, last_error, last_error_at, last_success_at)
     VALUES (@name, @source, @version, @built_at, @at, @records, @sha256, NULL, NULL, @at)
     ON CONFLICT(name) DO UPDATE SET source = excluded.source, version = excluded.version, built_at = excluded.built_at,
       loaded_at = excluded.loaded_at, records = excluded.records, sha256 = excluded.sha256,
       last_error = NULL, last_error_at = NULL, last_success_at = excluded.last_success_at`,
  ).run({ name, source: info.source, version: info.version, built_at: info.builtAt, at, records: info.records, sha256: info.sha256 });
}

/** Records a failed import or refresh; the active version (if any) stays. */
export function writeDatasetError(db: Db, name: string, message: string, now = Date.now()): void {
  db.prepare(
    `INSERT INTO dataset (name, last_error, last_error_at) VALUES (?, ?, ?)
     ON CONFLICT(name) DO UPDATE SET last_error = excluded.last_error, last_error_at = excluded.last_error_at`,
  ).run(name, message.slice(0, 2000), isoNow(now));
}

let stagingSerial = 0;

/** Creates an empty copy of `table` (same DDL) to import into. */
export function createStaging(db: Db, table: string): string {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) as { sql: string } | undefined;
  if (row === undefined) throw new Error(`table ${table} is missing (migration 002 not applied?)`);
  const staging = `${table}_staging_${process.pid}_${++stagingSerial}`;
  const ddl = row.sql.replace(/^CREATE TABLE\s+("?)\w+\1/i, `CREATE TABLE ${staging}`);
  db.exec(`DROP TABLE IF EXISTS ${staging}`);
  db.exec(ddl);
  return staging;
}

export function dropStaging(db: Db, staging: string): void {
  db.exec(`DROP TABLE IF EXISTS ${staging}`);
}

/** Replaces `table` by `staging`. Call inside a transaction: readers see either the old or the new table. */
export function swapStaging(db: Db, table: string, staging: string): void {
  db.exec(`DROP TABLE ${table}`);
  db.exec(`ALTER TABLE ${staging} RENAME TO ${table}`);
}

// ---- Reading the active data ----

export function metaOf(row: DatasetRow | null, fallback: string): DatasetMeta {
  return Object.freeze({ dataset: row?.version ?? fallback, built_at: row?.built_at ?? null });
}

export function isActive(row: DatasetRow | null): boolean {
  return row !== null && row.loaded_at !== null && (row.records ?? 0) > 0;
}

export function loadOuiRecords(db: Db): OuiRecord[] {
  return db.prepare('SELECT prefix, bits, registry, vendor, address, country FROM oui').all() as OuiRecord[];
}

export function loadAsNames(db: Db): Map<number, AsName> {
  const m = new Map<number, AsName>();
  for (const r of db.prepare('SELECT number, name, description, country FROM asn').raw().iterate() as IterableIterator<[number, string | null, string | null, string | null]>) {
    m.set(r[0], Object.freeze({ name: r[1], description: r[2], country: r[3] }));
  }
  return m;
}

export function loadRirBlocks(db: Db): RirBlock[] {
  return (db.prepare('SELECT start, count, rir, country, allocated, status FROM asn_rir ORDER BY start').all() as RirBlock[]).map((b) => Object.freeze(b));
}

export function loadPrefixRows(db: Db, builder = new PrefixIndexBuilder()): PrefixIndexBuilder {
  const it = db.prepare('SELECT family, start, end, asn, org FROM asn_prefix').raw().iterate() as IterableIterator<[number, number | Buffer, number | Buffer, number, string | null]>;
  for (const [family, start, end, asn, org] of it) {
    if (family === 4) builder.add({ family: 4, start: start as number, end: end as number, asn, org });
    else builder.add({ family: 6, start: v6FromBytes(start as Buffer), end: v6FromBytes(end as Buffer), asn, org });
  }
  return builder;
}

export interface GeoFileRow {
  readonly file: string;
  readonly ip_version: 4 | 6;
  readonly database_type: string;
  readonly build_epoch: string | null;
  readonly node_count: number;
  readonly size: number;
  readonly sha256: string;
}

export function geoDir(dataDir: string): string {
  return path.join(dataDir, 'geo');
}

export function loadGeoFileRows(db: Db): GeoFileRow[] {
  return db.prepare('SELECT * FROM geo_file ORDER BY ip_version').all() as GeoFileRow[];
}

/** Reads the active mmdb files straight into shared memory (one copy for every thread). */
export function readGeoFiles(dataDir: string, rows: readonly GeoFileRow[]): GeoFileShare[] {
  return rows.map((r) => {
    const file = path.join(geoDir(dataDir), r.file);
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const bytes = new SharedArrayBuffer(size);
      const view = new Uint8Array(bytes);
      let at = 0;
      while (at < size) {
        const n = fs.readSync(fd, view, at, Math.min(size - at, 1 << 24), at);
        if (n === 0) throw new Error(`${file}: file shrank while reading`);
        at += n;
      }
      return { file: r.file, bytes, ipVersion: r.ip_version, databaseType: r.database_type, buildEpoch: r.build_epoch };
    } finally {
      fs.closeSync(fd);
    }
  });
}
