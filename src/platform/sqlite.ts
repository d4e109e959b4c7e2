// Opens the SQLite store and applies numbered migrations, tracked by PRAGMA user_version.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { embeddedMigrations, sqliteNativeBinding } from './runtime.js';

export type Db = Database.Database;

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Reads migrations/NNN_name.sql files, sorted by number. */
export function readMigrations(dir: string): Migration[] {
  return toMigrations(fs.readdirSync(dir).map((file) => ({ file, sql: () => fs.readFileSync(path.join(dir, file), 'utf8') })));
}

function toMigrations(files: readonly { file: string; sql: () => string }[]): Migration[] {
  return files
    .map((f) => ({ f, m: /^(\d+)_([\w-]+)\.sql$/.exec(f.file) }))
    .filter((x): x is { f: (typeof files)[number]; m: RegExpExecArray } => x.m !== null)
    .map(({ f, m }) => ({ version: Number(m[1]), name: m[2]!, sql: f.sql() }))
    .sort((a, b) => a.version - b.version);
}

/** The migrations shipped with this build: embedded in the single executable, else the migrations/ directory. */
export function defaultMigrations(): Migration[] {
  const embedded = embeddedMigrations();
  return embedded === null ? readMigrations(defaultMigrationsDir()) : toMigrations(embedded.map((e) => ({ file: e.file, sql: () => e.sql })));
}

export function defaultMigrationsDir(): string {
  return path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../migrations');
}

export function openDatabase(file: string, migrations: readonly Migration[] = defaultMigrations()): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Inside the single executable the addon is an extracted SEA asset; elsewhere better-sqlite3 finds its own.
  const nativeBinding = sqliteNativeBinding();
  // (@types/better-sqlite3 declares the option as a path only; the library also accepts the loaded addon.)
  const db = nativeBinding === undefined ? new Database(file) : new Database(file, { nativeBinding: nativeBinding as unknown as string });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return db;
}

export function migrate(db: Db, migrations: readonly Migration[]): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const pending = migrations.filter((m) => m.version > current);
  for (const m of pending) {
    // One transaction per migration: a failed one leaves the previous version intact.
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return pending.length;
}
