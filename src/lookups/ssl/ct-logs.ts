// The CT log list dataset ("ct_logs"): Google's v3 log_list.json format, stored in SQLite (table
// ct_log + the `dataset` row) so every worker and the CLI see the same version. Names the logs of
// embedded SCTs. Parsing is pure; the importer and the name index own the I/O.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { fetch } from 'undici';
import type { AppContext } from '../../context.js';
import type { Db } from '../../platform/sqlite.js';
import { createHttpAgent } from '../../platform/fetch.js';
import { ImportError, registerImporter, type ImportOptions, type ImportResult } from '../../datasets/import.js';
import { readDatasetRow, writeDatasetActivated, writeDatasetError } from '../../datasets/store.js';

export const CT_DATASET = 'ct_logs';

export interface CtLog {
  readonly log_id: string;
  readonly description: string;
  readonly operator: string;
  readonly url: string | null;
  readonly state: string | null;
}

export interface CtLogList {
  readonly version: string;
  /** ISO 8601 UTC of `log_list_timestamp`, when present. */
  readonly builtAt: string | null;
  readonly logs: readonly CtLog[];
}

/**
 * Parses a v3 log_list.json: `operators[].logs[]` and `operators[].tiled_logs[]`, each with a base64
 * `log_id` of 32 bytes and a `description`. Throws ImportError naming the first problem.
 */
export function parseCtLogList(text: string, file = 'log list'): CtLogList {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ImportError(`${file}: not JSON (${(e as Error).message}); expected a v3 log_list.json`);
  }
  if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as { operators?: unknown }).operators)) {
    throw new ImportError(`${file}: no "operators" array; expected a v3 log_list.json`);
  }
  const d = doc as { version?: unknown; log_list_timestamp?: unknown; operators: unknown[] };
  const logs = new Map<string, CtLog>();
  d.operators.forEach((op, i) => {
    if (typeof op !== 'object' || op === null) throw new ImportError(`${file}: operators[${i}] is not an object`);
    const o = op as { name?: unknown; logs?: unknown; tiled_logs?: unknown };
    const operator = typeof o.name === 'string' && o.name.trim() !== '' ? o.name.trim() : null;
    if (operator === null) throw new ImportError(`${file}: operators[${i}] has no "name"`);
    for (const key of ['logs', 'tiled_logs'] as const) {
      const list = o[key];
      if (list === undefined) continue;
      if (!Array.isArray(list)) throw new ImportError(`${file}: operators[${i}].${key} is not an array`);
      list.forEach((log: unknown, j) => {
        const where = `operators[${i}].${key}[${j}]`;
        const l = (typeof log === 'object' && log !== null ? log : {}) as { log_id?: unknown; description?: unknown; url?: unknown; submission_url?: unknown; state?: unknown };
        if (typeof l.log_id !== 'string' || !isLogId(l.log_id)) throw new ImportError(`${file}: ${where} has no valid "log_id" (base64 of 32 bytes)`);
        if (typeof l.description !== 'string' || l.description.trim() === '') throw new ImportError(`${file}: ${where} has no "description"`);
        const url = typeof l.url === 'string' ? l.url : typeof l.submission_url === 'string' ? l.submission_url : null;
        const state = typeof l.state === 'object' && l.state !== null ? (Object.keys(l.state)[0] ?? null) : null;
        logs.set(l.log_id, { log_id: l.log_id, description: l.description.trim(), operator, url, state });
      });
    }
  });
  if (logs.size === 0) throw new ImportError(`${file}: the list names no logs`);
  const ts = typeof d.log_list_timestamp === 'string' && !Number.isNaN(Date.parse(d.log_list_timestamp)) ? new Date(d.log_list_timestamp).toISOString().replace(/\.\d{3}Z$/, 'Z') : null;
  const version = typeof d.version === 'string' && d.version !== '' ? `log_list v${d.version}` : `log_list ${ts ?? 'unversioned'}`;
  return { version, builtAt: ts, logs: [...logs.values()] };
}

function isLogId(s: string): boolean {
  return /^[A-Za-z0-9+/]{43}=$/.test(s) && Buffer.from(s, 'base64').length === 32;
}

/** Replaces the active list in one transaction and records the dataset row. */
export function activateCtLogList(db: Db, list: CtLogList, info: { source: string; sha256: string }): void {
  const insert = db.prepare('INSERT INTO ct_log (log_id, description, operator, url, state) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    db.prepare('DELETE FROM ct_log').run();
    for (const l of list.logs) insert.run(l.log_id, l.description, l.operator, l.url, l.state);
    writeDatasetActivated(db, CT_DATASET, { source: info.source, version: list.version, builtAt: list.builtAt, records: list.logs.length, sha256: info.sha256 });
  })();
}

/** `netintel import ct-logs <file>` and the refresh engine: local files (the CLI downloads URLs first). */
export async function importCtLogList(ctx: Pick<AppContext, 'db'>, files: readonly string[], opts: Pick<ImportOptions, 'source' | 'version'> = {}): Promise<ImportResult> {
  const started = Date.now();
  const previous = readDatasetRow(ctx.db, CT_DATASET);
  // Several files merge (e.g. a public list plus an internal one); a log id in a later file wins.
  const merged = new Map<string, CtLog>();
  let first: CtLogList | null = null;
  const reports = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const list = parseCtLogList(text, file);
    first ??= list;
    for (const l of list.logs) merged.set(l.log_id, l);
    reports.push({ file, format: 'ct-log-list-v3', imported: list.logs.length, duplicates: 0, rejected: 0, sha256: sha256(text) });
  }
  if (first === null) throw new ImportError('import ct-logs: no input files given');
  const list: CtLogList = { ...first, version: opts.version ?? first.version, logs: [...merged.values()] };
  activateCtLogList(ctx.db, list, { source: opts.source ?? files.join(' '), sha256: reports.map((r) => r.sha256).join(',') });
  return {
    dataset: CT_DATASET,
    version: list.version,
    records: list.logs.length,
    previousRecords: previous?.records ?? null,
    files: reports,
    rejectedLines: [],
    durationMs: Date.now() - started,
  };
}

registerImporter({
  name: 'ct-logs',
  dataset: CT_DATASET,
  description: 'Certificate Transparency log list (v3 log_list.json)',
  run: (ctx, files, opts) => importCtLogList(ctx, files, opts),
});

function sha256(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

export interface LoadSourcesOptions {
  readonly extraCa: string | null;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/**
 * First start: loads the list from the configured sources (URLs or file paths; the first that works)
 * when the store has none. Failure is recorded on the dataset row and leaves SCT names null.
 */
export async function loadCtLogListFromSources(db: Db, sources: readonly string[], opts: LoadSourcesOptions): Promise<boolean> {
  const errors: string[] = [];
  for (const source of sources) {
    try {
      const text = /^https?:\/\//i.test(source) ? await download(source, opts) : fs.readFileSync(source.startsWith('file://') ? new URL(source).pathname : source, 'utf8');
      activateCtLogList(db, parseCtLogList(text, source), { source, sha256: sha256(text) });
      return true;
    } catch (e) {
      errors.push(`${source}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (errors.length > 0) writeDatasetError(db, CT_DATASET, errors.join('; '));
  return false;
}

async function download(url: string, opts: LoadSourcesOptions): Promise<string> {
  const agent = createHttpAgent({ extraCa: opts.extraCa, connectTimeoutMs: opts.timeoutMs, connections: 1 });
  try {
    const res = await fetch(url, { dispatcher: agent, signal: AbortSignal.timeout(opts.timeoutMs) });
    if (res.status !== 200 || res.body === null) {
      await res.body?.cancel();
      throw new Error(`HTTP ${res.status}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Uint8Array).byteLength;
      if (size > opts.maxBytes) throw new Error(`larger than ${opts.maxBytes} bytes`);
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await agent.close();
  }
}

export interface CtLogName {
  readonly log_name: string;
  readonly operator: string;
}

/**
 * In-memory index of the active list. Re-reads the table when the dataset row's loaded_at changes
 * (an import by the CLI or a refresh in another thread), checked at most once per second.
 */
export class CtLogIndex {
  private names = new Map<string, CtLogName>();
  private loadedAt: string | null | undefined = undefined;
  private checkedAt = 0;
  private readonly rowStmt;
  private readonly logsStmt;

  constructor(db: Db, private readonly now: () => number = Date.now) {
    this.rowStmt = db.prepare('SELECT loaded_at, version, built_at, records FROM dataset WHERE name = ?');
    this.logsStmt = db.prepare('SELECT log_id, description, operator FROM ct_log');
  }

  private refresh(): { version: string | null; built_at: string | null } | null {
    const row = this.rowStmt.get(CT_DATASET) as { loaded_at: string | null; version: string | null; built_at: string | null; records: number | null } | undefined;
    const loadedAt = row?.loaded_at ?? null;
    if (loadedAt !== this.loadedAt) {
      const next = new Map<string, CtLogName>();
      if (loadedAt !== null) {
        for (const r of this.logsStmt.all() as { log_id: string; description: string; operator: string }[]) next.set(r.log_id, { log_name: r.description, operator: r.operator });
      }
      this.names = next;
      this.loadedAt = loadedAt;
    }
    return loadedAt === null || row === undefined ? null : { version: row.version, built_at: row.built_at };
  }

  private meta: { version: string | null; built_at: string | null } | null = null;

  /** Dataset version in use, or null when no list was ever loaded. */
  current(): { version: string | null; built_at: string | null } | null {
    const t = this.now();
    if (this.loadedAt === undefined || t - this.checkedAt >= 1000) {
      this.checkedAt = t;
      this.meta = this.refresh();
    }
    return this.meta;
  }

  get loaded(): boolean {
    return this.current() !== null;
  }

  lookup(logId: string): CtLogName | null {
    this.current();
    return this.names.get(logId) ?? null;
  }
}

/** Whether the store holds an active CT log list. */
export function hasCtLogList(db: Db): boolean {
  const row = readDatasetRow(db, CT_DATASET);
  return row !== null && row.loaded_at !== null && (row.records ?? 0) > 0;
}
