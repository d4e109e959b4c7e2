// The RDAP bootstrap as a dataset: import from a URL or file into SQLite (table rdap_bootstrap,
// metadata in the `dataset` row "rdap_bootstrap"), and a per-process view that follows changes.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Dispatcher } from 'undici';
import type { Config } from '../../config.js';
import type { Logger } from '../../platform/logger.js';
import type { Metrics } from '../../platform/metrics.js';
import type { Db } from '../../platform/sqlite.js';
import { createHttpAgent } from '../../platform/fetch.js';
import { SingleFlight } from '../../platform/single-flight.js';
import type { AppContext } from '../../context.js';
import { registerImporter, type ImportOptions as RegistryImportOptions, type ImportResult as RegistryImportResult } from '../../datasets/import.js';
import { bootstrapLabel, parseRdapBootstrap, type RdapBootstrap } from './bootstrap.js';
import { httpGet } from './http-get.js';
import { isoSeconds } from './types.js';

export const RDAP_BOOTSTRAP_DATASET = 'rdap_bootstrap';
// IANA's dns.json is ~30 KB; the cap only stops a wrong URL from filling memory.
const MAX_BOOTSTRAP_BYTES = 16 * 1024 * 1024;
// After a failed lazy load, requests use WHOIS for this long before the next attempt.
const RETRY_AFTER_FAILURE_MS = 5 * 60_000;

export interface BootstrapDeps {
  readonly db: Db;
  readonly config: Pick<Config, 'extraCa' | 'refreshTimeoutMs' | 'rdapBootstrap'>;
  readonly log?: Logger;
  readonly metrics?: Metrics;
}

export interface BootstrapImportOptions {
  /** Accept a file with far fewer entries than the active one (otherwise below 90% is refused). */
  readonly force?: boolean;
  /** Version label for the dataset row (default: "rdap-dns <publication>"). */
  readonly version?: string;
  readonly timeoutMs?: number;
  readonly dispatcher?: Dispatcher;
}

export interface BootstrapImportResult {
  readonly dataset: string;
  readonly source: string;
  readonly version: string;
  readonly built_at: string | null;
  readonly records: number;
  readonly sha256: string;
  /** False when the same file was already active (only loaded_at/last_success_at move). */
  readonly changed: boolean;
  readonly previousRecords: number | null;
}

interface DatasetRow {
  records: number | null;
  sha256: string | null;
}

/**
 * Imports one `dns.json` from an http(s) URL, a file: URL or a path, validates it fully and
 * activates it in one transaction. On failure the active version stays and the dataset row records
 * `last_error`; the error is rethrown for the caller (CLI import, refresh job, lazy load).
 */
export async function importRdapBootstrap(deps: BootstrapDeps, source: string, opts: BootstrapImportOptions = {}): Promise<BootstrapImportResult> {
  try {
    return activateRdapBootstrap(deps, await readSource(deps, source, opts), describeSource(source), opts);
  } catch (e) {
    recordFailure(deps, describeSource(source), e);
    throw e;
  }
}

/** Validates `text` as a `dns.json` and makes it the active bootstrap (the part shared by every entry point). */
export function activateRdapBootstrap(deps: Pick<BootstrapDeps, 'db' | 'log' | 'metrics'>, text: string, source: string, opts: Pick<BootstrapImportOptions, 'force' | 'version'> = {}): BootstrapImportResult {
  const now = Date.now();
  const parsed = parseRdapBootstrap(text);
  const sha256 = crypto.createHash('sha256').update(text).digest('hex');
  const records = parsed.services.size;
  const version = opts.version ?? bootstrapLabel(parsed, sha256);
  const active = deps.db.prepare('SELECT records, sha256 FROM dataset WHERE name = ?').get(RDAP_BOOTSTRAP_DATASET) as DatasetRow | undefined;
  if (opts.force !== true && active?.records != null && active.sha256 !== sha256 && records < active.records * 0.9) {
    throw new Error(`the new RDAP bootstrap lists ${records} entries, below 90% of the active ${active.records}; use --force to accept it`);
  }
  const changed = active?.sha256 !== sha256;
  const at = isoSeconds(now);
  deps.db.transaction(() => {
    deps.db
      .prepare('INSERT INTO rdap_bootstrap (id, json, sha256) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json, sha256 = excluded.sha256')
      .run(text, sha256);
    deps.db
      .prepare(
        `INSERT INTO dataset (name, source, version, built_at, loaded_at, records, sha256, last_error, last_error_at, last_success_at)
         VALUES (@name, @source, @version, @built_at, @at, @records, @sha256, NULL, NULL, @at)
         ON CONFLICT(name) DO UPDATE SET source = excluded.source, version = excluded.version, built_at = excluded.built_at,
           loaded_at = excluded.loaded_at, records = excluded.records, sha256 = excluded.sha256,
           last_error = NULL, last_error_at = NULL, last_success_at = excluded.last_success_at`,
      )
      .run({ name: RDAP_BOOTSTRAP_DATASET, source, version, built_at: parsed.publication, at, records, sha256 });
  })();
  deps.metrics?.datasetRefresh.inc({ dataset: RDAP_BOOTSTRAP_DATASET, result: 'success' });
  deps.metrics?.datasetRecords.set({ dataset: RDAP_BOOTSTRAP_DATASET }, records);
  deps.metrics?.datasetLastSuccess.set({ dataset: RDAP_BOOTSTRAP_DATASET }, Math.floor(now / 1000));
  if (parsed.publication !== null) deps.metrics?.datasetBuilt.set({ dataset: RDAP_BOOTSTRAP_DATASET }, Date.parse(parsed.publication) / 1000);
  deps.log?.info({ dataset: RDAP_BOOTSTRAP_DATASET, source, records, version, changed }, 'RDAP bootstrap imported');
  return { dataset: RDAP_BOOTSTRAP_DATASET, source, version, built_at: parsed.publication, records, sha256, changed, previousRecords: active?.records ?? null };
}

function recordFailure(deps: BootstrapDeps, source: string, e: unknown): void {
  const message = (e instanceof Error ? e.message : String(e)).slice(0, 2000);
  deps.db
    .prepare(
      `INSERT INTO dataset (name, source, last_error, last_error_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET last_error = excluded.last_error, last_error_at = excluded.last_error_at`,
    )
    .run(RDAP_BOOTSTRAP_DATASET, source, message, isoSeconds(Date.now()));
  deps.metrics?.datasetRefresh.inc({ dataset: RDAP_BOOTSTRAP_DATASET, result: 'failure' });
  deps.log?.warn({ dataset: RDAP_BOOTSTRAP_DATASET, source, err: message }, 'RDAP bootstrap import failed');
}

/**
 * `netintel import rdap-bootstrap <file>...` and the refresh engine (the CLI downloads URLs first).
 * Several files merge in order (an internal overlay first, then IANA's): the first entry for a
 * label wins, as RFC 9224 reads a single file.
 */
export async function importRdapBootstrapFiles(
  ctx: Pick<AppContext, 'db' | 'log' | 'metrics'>,
  files: readonly string[],
  opts: Pick<RegistryImportOptions, 'force' | 'version' | 'source'> = {},
): Promise<RegistryImportResult> {
  const started = Date.now();
  const texts: string[] = [];
  const reports = [];
  for (const file of files) {
    const stat = await fs.stat(file);
    if (stat.size > MAX_BOOTSTRAP_BYTES) throw new Error(`${file}: larger than ${MAX_BOOTSTRAP_BYTES} bytes`);
    const text = await fs.readFile(file, 'utf8');
    let entries: number;
    try {
      entries = parseRdapBootstrap(text).services.size;
    } catch (e) {
      throw new Error(`${file}: ${e instanceof Error ? e.message : String(e)}`);
    }
    texts.push(text);
    reports.push({ file, format: 'rdap-dns-json', imported: entries, duplicates: 0, rejected: 0, sha256: crypto.createHash('sha256').update(text).digest('hex') });
  }
  if (texts.length === 0) throw new Error('import rdap-bootstrap: no input files given');
  const text = texts.length === 1 ? texts[0]! : mergeBootstrapTexts(texts);
  const result = activateRdapBootstrap(
    ctx,
    text,
    opts.source ?? files.join(' '),
    { ...(opts.force === undefined ? {} : { force: opts.force }), ...(opts.version === undefined ? {} : { version: opts.version }) },
  );
  return {
    dataset: RDAP_BOOTSTRAP_DATASET,
    version: result.version,
    records: result.records,
    previousRecords: result.previousRecords,
    files: reports,
    rejectedLines: [],
    durationMs: Date.now() - started,
  };
}

function mergeBootstrapTexts(texts: readonly string[]): string {
  const docs = texts.map((t) => JSON.parse(t) as { version?: unknown; publication?: unknown; services: unknown[] });
  return JSON.stringify({ version: docs[0]!.version, publication: docs[0]!.publication, services: docs.flatMap((d) => d.services) });
}

registerImporter({
  name: 'rdap-bootstrap',
  dataset: RDAP_BOOTSTRAP_DATASET,
  description: 'RDAP bootstrap registry for domains (IANA dns.json, RFC 9224)',
  run: (ctx, files, opts) => importRdapBootstrapFiles(ctx, files, opts),
});

/** Tries each configured source in order (NETINTEL_RDAP_BOOTSTRAP) until one imports. */
export async function importRdapBootstrapFromConfig(deps: BootstrapDeps, opts: BootstrapImportOptions = {}): Promise<BootstrapImportResult> {
  const sources = deps.config.rdapBootstrap;
  if (sources.length === 0) throw new Error('no RDAP bootstrap source is configured (NETINTEL_RDAP_BOOTSTRAP=none)');
  let last: unknown = null;
  for (const source of sources) {
    try {
      return await importRdapBootstrap(deps, source, opts);
    } catch (e) {
      last = e;
    }
  }
  throw last instanceof Error ? last : new Error(String(last));
}

/** Whether the store holds an active bootstrap (the daemon imports one at start when it does not). */
export function hasRdapBootstrap(db: Db): boolean {
  return db.prepare('SELECT 1 FROM rdap_bootstrap WHERE id = 1').get() !== undefined;
}

async function readSource(deps: BootstrapDeps, source: string, opts: BootstrapImportOptions): Promise<string> {
  if (/^https?:\/\//i.test(source)) {
    const dispatcher = opts.dispatcher ?? createHttpAgent({ extraCa: deps.config.extraCa, connectTimeoutMs: opts.timeoutMs ?? deps.config.refreshTimeoutMs, connections: 2 });
    try {
      const res = await httpGet(source, {
        dispatcher,
        timeoutMs: opts.timeoutMs ?? deps.config.refreshTimeoutMs,
        maxBytes: MAX_BOOTSTRAP_BYTES,
        accept: 'application/json',
      });
      if (res.status !== 200) throw new Error(`${describeSource(source)} answered HTTP ${res.status}`);
      return res.body.toString('utf8');
    } finally {
      if (opts.dispatcher === undefined) await (dispatcher as { close(): Promise<void> }).close();
    }
  }
  const file = /^file:/i.test(source) ? fileURLToPath(source) : source;
  const stat = await fs.stat(file);
  if (stat.size > MAX_BOOTSTRAP_BYTES) throw new Error(`${file} is larger than ${MAX_BOOTSTRAP_BYTES} bytes`);
  return fs.readFile(file, 'utf8');
}

// URLs may carry credentials or tokens in the query; the dataset row and logs keep only the origin and path.
function describeSource(source: string): string {
  if (!/^https?:\/\//i.test(source)) return source;
  try {
    const u = new URL(source);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'invalid URL';
  }
}

export interface ActiveBootstrap {
  readonly bootstrap: RdapBootstrap;
  readonly dataset: string;
  readonly built_at: string | null;
}

/**
 * This process's view of the active bootstrap. Each call checks the dataset row's sha256 (one
 * indexed read) and re-parses only when another process or thread activated a new version. When
 * the store has none, the first call imports from the configured sources; a failure means "no
 * RDAP" (WHOIS answers instead) until the retry interval has passed.
 */
export class BootstrapView {
  private cached: { sha256: string; active: ActiveBootstrap } | null = null;
  private retryAt = 0;
  private readonly flight = new SingleFlight<ActiveBootstrap | null>();
  private readonly shaStmt;
  private readonly loadStmt;

  constructor(private readonly deps: BootstrapDeps, private readonly lazyTimeoutMs: number) {
    this.shaStmt = deps.db.prepare('SELECT sha256, version, built_at FROM dataset WHERE name = ?');
    this.loadStmt = deps.db.prepare('SELECT json, sha256 FROM rdap_bootstrap WHERE id = 1');
  }

  async current(): Promise<ActiveBootstrap | null> {
    const fromStore = this.fromStore();
    if (fromStore !== null) return fromStore;
    if (this.deps.config.rdapBootstrap.length === 0 || Date.now() < this.retryAt) return null;
    return this.flight.run('load', async () => {
      try {
        await importRdapBootstrapFromConfig(this.deps, { timeoutMs: this.lazyTimeoutMs });
      } catch {
        this.retryAt = Date.now() + RETRY_AFTER_FAILURE_MS;
        return null;
      }
      return this.fromStore();
    });
  }

  private fromStore(): ActiveBootstrap | null {
    const row = this.shaStmt.get(RDAP_BOOTSTRAP_DATASET) as { sha256: string | null; version: string | null; built_at: string | null } | undefined;
    if (row === undefined || row.sha256 === null) return null;
    if (this.cached !== null && this.cached.sha256 === row.sha256) return this.cached.active;
    const stored = this.loadStmt.get() as { json: string; sha256: string } | undefined;
    if (stored === undefined) return null;
    try {
      const bootstrap = parseRdapBootstrap(stored.json);
      const active = { bootstrap, dataset: row.version ?? bootstrapLabel(bootstrap, stored.sha256), built_at: row.built_at };
      this.cached = { sha256: row.sha256, active };
      return active;
    } catch (e) {
      this.deps.log?.error({ err: e }, 'stored RDAP bootstrap does not parse');
      return null;
    }
  }
}
