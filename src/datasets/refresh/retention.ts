// What a refresh keeps on disk and in SQLite besides the active data:
//   sources/<dataset>/NN-<name>   the source files of the active version, as fetched (+ meta.json)
//   previous/<dataset>/           the same for the version before it (rollback); for geo the importer
//                                 itself keeps the replaced mmdb files there
//   dataset_source rows           validators (ETag, Last-Modified) of the retained copies
// Every step is a rename, and the active data never depends on these files: a crash anywhere leaves at
// worst a missing retained copy, which only costs the next refresh a full download.
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../platform/sqlite.js';
import { isoNow } from '../store.js';
import { pidAlive } from '../../platform/process.js';
import type { Validators } from './fetcher.js';
import type { RefreshName } from './sources.js';

export interface SourceRow {
  readonly dataset: string;
  readonly source: string;
  readonly file: string;
  readonly etag: string | null;
  readonly last_modified: string | null;
  readonly sha256: string;
  readonly size: number;
  readonly fetched_at: string;
}

/** Metadata of the version a retained directory holds, for rollback. */
export interface RetainedMeta {
  readonly version: string | null;
  readonly built_at: string | null;
  readonly source: string | null;
}

export const META_FILE = 'meta.json';

export function sourcesDir(dataDir: string, name: string): string {
  return path.join(dataDir, 'sources', name);
}

export function previousDir(dataDir: string, name: string): string {
  return path.join(dataDir, 'previous', name);
}

export function stagingDir(dataDir: string): string {
  return path.join(dataDir, 'staging');
}

export function readSourceRows(db: Db, name: RefreshName): Map<string, SourceRow> {
  const rows = db.prepare('SELECT * FROM dataset_source WHERE dataset = ?').all(name) as SourceRow[];
  return new Map(rows.map((r) => [r.source, r]));
}

/** Validators worth sending: only when the retained copy is still there to reuse on a 304. */
export function usableValidators(dataDir: string, name: RefreshName, row: SourceRow | undefined): Validators | null {
  if (row === undefined) return null;
  try {
    const st = fs.statSync(path.join(sourcesDir(dataDir, name), row.file));
    if (!st.isFile() || st.size !== row.size) return null;
  } catch {
    return null;
  }
  return { etag: row.etag, lastModified: row.last_modified };
}

/** One source's part of a refresh, once every source was fetched or found unchanged. */
export interface RetainedInput {
  readonly source: string;
  /** Fresh bytes in staging/, or null: unchanged, reuse the retained copy `keptFile`. */
  readonly staged: string | null;
  readonly keptFile: string | null;
  readonly baseName: string;
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly sha256: string;
  readonly size: number;
}

/**
 * After activation: the new source files become sources/<name>, the old ones previous/<name>, and the
 * validators are recorded. Stale validators are worse than none, so rows go in only after the rename.
 */
export function retainActivated(db: Db, dataDir: string, name: RefreshName, inputs: readonly RetainedInput[], meta: RetainedMeta): void {
  const current = sourcesDir(dataDir, name);
  const fresh = path.join(dataDir, 'sources', `.${name}.new-${process.pid}`);
  fs.rmSync(fresh, { recursive: true, force: true });
  fs.mkdirSync(fresh, { recursive: true });
  const files: string[] = [];
  inputs.forEach((input, i) => {
    const file = `${String(i).padStart(2, '0')}-${input.baseName}`;
    const target = path.join(fresh, file);
    if (input.staged !== null) fs.renameSync(input.staged, target);
    else linkOrCopy(path.join(current, input.keptFile!), target);
    files.push(file);
  });
  fs.writeFileSync(path.join(fresh, META_FILE), JSON.stringify(meta) + '\n');
  if (fs.existsSync(current)) {
    if (name === 'geo') {
      // The geo importer keeps the replaced mmdb files in previous/geo itself.
      fs.rmSync(current, { recursive: true, force: true });
    } else {
      const prev = previousDir(dataDir, name);
      fs.rmSync(prev, { recursive: true, force: true });
      fs.mkdirSync(path.dirname(prev), { recursive: true });
      fs.renameSync(current, prev);
    }
  }
  fs.renameSync(fresh, current);
  const at = isoNow();
  const insert = db.prepare(
    'INSERT INTO dataset_source (dataset, source, file, etag, last_modified, sha256, size, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    db.prepare('DELETE FROM dataset_source WHERE dataset = ?').run(name);
    inputs.forEach((input, i) => insert.run(name, input.source, files[i], input.etag, input.lastModified, input.sha256, input.size, at));
  })();
}

function linkOrCopy(from: string, to: string): void {
  try {
    fs.linkSync(from, to);
  } catch {
    fs.copyFileSync(from, to);
  }
}

/** The files and metadata of the version kept for rollback, or null when none is kept. */
export function previousVersion(dataDir: string, name: RefreshName): { files: string[]; meta: RetainedMeta | null } | null {
  const dir = previousDir(dataDir, name);
  let entries: string[];
  try {
    entries = fs.readdirSync(dir).sort();
  } catch {
    return null;
  }
  const files = entries.filter((f) => f !== META_FILE && !f.startsWith('.')).map((f) => path.join(dir, f));
  if (files.length === 0) return null;
  let meta: RetainedMeta | null = null;
  try {
    meta = JSON.parse(fs.readFileSync(path.join(dir, META_FILE), 'utf8')) as RetainedMeta;
  } catch {
    // No metadata (geo, or an older layout): the importer derives what it can from the files.
  }
  return { files, meta };
}

/**
 * Leftovers of refreshes whose process died (crash, kill -9): half-built sources/.<name>.new-<pid>
 * directories and stale lock files. Staged downloads (`<pid>-...` in staging/) are removed by the
 * datasets start-up cleanup, whose naming rule they follow.
 */
export function removeRefreshLeftovers(dataDir: string): string[] {
  const removed: string[] = [];
  const sources = path.join(dataDir, 'sources');
  for (const f of safeReaddir(sources)) {
    const m = /^\.[\w-]+\.new-(\d+)$/.exec(f);
    if (m !== null && !pidAlive(Number(m[1]))) {
      fs.rmSync(path.join(sources, f), { recursive: true, force: true });
      removed.push(path.join(sources, f));
    }
  }
  const staging = stagingDir(dataDir);
  for (const f of safeReaddir(staging)) {
    const full = path.join(staging, f);
    if (/^refresh-[\w-]+\.lock$/.test(f)) {
      const pid = readLockPid(full);
      if (pid === null || !pidAlive(pid)) {
        fs.rmSync(full, { force: true });
        removed.push(full);
      }
    } else if (/^(\d+)-refresh-/.test(f) && !pidAlive(Number(/^(\d+)/.exec(f)![1]))) {
      fs.rmSync(full, { force: true });
      removed.push(full);
    }
  }
  return removed;
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function readLockPid(file: string): number | null {
  try {
    const n = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

/**
 * One refresh of a dataset at a time across processes (daemon, `netintel refresh`): an O_EXCL lock
 * file naming the holder's pid. A lock left by a dead process is taken over.
 */
export function acquireLock(dataDir: string, name: RefreshName): { release(): void } | { holder: number } {
  const dir = stagingDir(dataDir);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `refresh-${name}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return {
        release: () => {
          if (readLockPid(file) === process.pid) fs.rmSync(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = readLockPid(file);
      if (holder !== null && pidAlive(holder)) return { holder };
      fs.rmSync(file, { force: true });
    }
  }
  return { holder: readLockPid(file) ?? 0 };
}
