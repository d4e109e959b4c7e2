// Opens the SQLite store and applies numbered migrations, tracked by PRAGMA user_version.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Reads migrations/NNN_name.sql files, sorted by number. */
export function readMigrations(dir: string): Migration[] {
  return fs
    .readdirSync(dir)
    .map((file) => /^(\d+)_([\w-]+)\.sql$/.exec(file))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2]!, sql: fs.readFileSync(path.join(dir, m[0]), 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

export function defaultMigrationsDir(): string {
  return path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../migrations');
}

export function openDatabase(file: string, migrations: readonly Migration[] = readMigrations(defaultMigrationsDir())): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
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
