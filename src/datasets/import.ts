// Import + activate a dataset from local files: the one code path of `netintel import`, the first-start
// defaults and (later) the refresh engine. Parse into a staging table (or staged mmdb files), validate,
// then swap in one transaction and rebuild the in-memory snapshot; on any failure the active data stays.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AppContext } from '../context.js';
import type { Db } from '../platform/sqlite.js';
import { forEachLine, isGzipFile, openInput } from './parse/lines.js';
import { FormatError, type LineParser, type Sink } from './parse/sink.js';
import { IeeeCsvParser, IeeeTxtParser, detectOuiFormat, parseOuiDataJson, type OuiRow } from './parse/oui.js';
import { AsNamesParser, RirParser, type AsNameRow, type RirRow } from './parse/asn.js';
import { PrefixParser, type PrefixRow } from './parse/prefixes.js';
import { v6ToBytes } from './ip.js';
import { inspectMmdb, InvalidMmdbError, type MmdbInfo } from './geo.js';
import { noProgress, type ProgressFactory } from './progress.js';
import {
  createStaging,
  dropStaging,
  geoDir,
  loadGeoFileRows,
  readDatasetRow,
  swapStaging,
  writeDatasetActivated,
  writeDatasetError,
} from './store.js';

export interface ImportOptions {
  /** Accept a version with fewer than 90% of the active version's records. */
  readonly force?: boolean;
  /** Version label for the `dataset` row (default: derived from the files). */
  readonly version?: string;
  /** Build time of the data (ISO 8601), when the caller knows it. */
  readonly builtAt?: string | null;
  /** What to record as the source (default: the file paths). */
  readonly source?: string;
  readonly progress?: ProgressFactory;
}

export interface RejectedLine {
  readonly file: string;
  readonly line: number;
  readonly reason: string;
}

export interface FileReport {
  readonly file: string;
  readonly format: string;
  readonly imported: number;
  readonly duplicates: number;
  readonly rejected: number;
  readonly sha256: string;
}

export interface ImportResult {
  readonly dataset: string;
  readonly version: string;
  readonly records: number;
  readonly previousRecords: number | null;
  readonly files: readonly FileReport[];
  /** The first rejected lines (at most 20 per file), with their line numbers. */
  readonly rejectedLines: readonly RejectedLine[];
  readonly durationMs: number;
}

/** A failed import: the message names the file and, where there is one, the line. */
export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}

/** An importer the CLI and the refresh engine dispatch to by name. */
export interface DatasetImporter {
  /** CLI name: geo, oui, rir, asnames, prefixes, rdap-bootstrap, ct-logs. */
  readonly name: string;
  /** Row name in the `dataset` table (rdap_bootstrap, ct_logs, ...). */
  readonly dataset: string;
  readonly description: string;
  run(ctx: AppContext, files: readonly string[], opts: ImportOptions): Promise<ImportResult>;
}

const importers = new Map<string, DatasetImporter>();
const BUILT_IN = new Set(['geo', 'oui', 'rir', 'asnames', 'prefixes']);

/** Other modules (RDAP bootstrap, CT logs) register theirs at module load time. */
export function registerImporter(importer: DatasetImporter): void {
  importers.set(importer.name, importer);
}

export function getImporter(name: string): DatasetImporter | undefined {
  return importers.get(name) ?? importers.get(name.replace(/_/g, '-'));
}

/** Every dataset name the import command accepts, registered or not yet. */
export const IMPORT_NAMES = ['geo', 'oui', 'rir', 'asnames', 'prefixes', 'rdap-bootstrap', 'ct-logs'] as const;

export async function importDataset(ctx: AppContext, name: string, files: readonly string[], opts: ImportOptions = {}): Promise<ImportResult> {
  const importer = getImporter(name);
  if (importer === undefined) {
    throw new ImportError(
      (IMPORT_NAMES as readonly string[]).includes(name)
        ? `the ${name} importer is not available in this build`
        : `unknown dataset ${JSON.stringify(name)}: expected one of ${IMPORT_NAMES.join(', ')}`,
    );
  }
  if (files.length === 0) throw new ImportError(`import ${name}: no input files given`);
  for (const f of files) {
    let st: fs.Stats;
    try {
      st = fs.statSync(f);
    } catch {
      throw new ImportError(`${f}: no such file`);
    }
    if (!st.isFile()) throw new ImportError(`${f}: not a regular file`);
  }
  const started = Date.now();
  ctx.log.info({ step: 'import', dataset: name, files }, `importing ${name}`);
  try {
    const result = await importer.run(ctx, files, opts);
    // Built-in importers activate themselves; for the others, tell this thread's listeners (and
    // refresh the health view) here.
    if (!BUILT_IN.has(importer.name)) ctx.datasets.activated(importer.dataset);
    ctx.log.info(
      { step: 'import', dataset: name, records: result.records, rejected: result.rejectedLines.length, ms: Date.now() - started },
      `imported ${name}: ${result.records} records in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return result;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    try {
      writeDatasetError(ctx.db, importer.dataset, message);
    } catch {
      // The store itself failed; the original error is the one to report.
    }
    ctx.metrics.datasetRefresh.inc({ dataset: importer.dataset, result: 'failure' });
    throw e instanceof ImportError ? e : new ImportError(message);
  }
}

// ---- Table datasets (oui, rir, asnames, prefixes) ----

interface TableSpec<T> {
  readonly name: string;
  readonly table: string;
  readonly description: string;
  /** INSERT statement with `{table}` in place of the table name. */
  readonly insert: string;
  params(row: T): unknown[];
  /** A parser for one file, given its first decoded bytes; 'json' handlers parse the whole text. */
  parser(head: string, sink: Sink<T>, file: string): { format: string; lines: LineParser } | { format: string; whole: (text: string, sink: Sink<T>) => void };
}

const MAX_REJECTED_SHARE = 0.01;
const MIN_SHARE_OF_ACTIVE = 0.9;
const BATCH = 20_000;

function readHead(file: string, bytes = 8192): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(isGzipFile(file) ? 65536 : bytes);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    let raw = buf.subarray(0, n);
    if (isGzipFile(file)) {
      try {
        raw = zlib.gunzipSync(raw, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
      } catch (e) {
        throw new ImportError(`${file}: gzip data is corrupt (${(e as Error).message})`);
      }
    }
    return raw.subarray(0, bytes).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

function tableImporter<T>(spec: TableSpec<T>): DatasetImporter {
  return {
    name: spec.name,
    dataset: spec.name,
    description: spec.description,
    run: (ctx, files, opts) => runTableImport(ctx, spec, files, opts),
  };
}

async function runTableImport<T>(ctx: AppContext, spec: TableSpec<T>, files: readonly string[], opts: ImportOptions): Promise<ImportResult> {
  const started = Date.now();
  const db = ctx.db;
  const staging = createStaging(db, spec.table);
  const insert = db.prepare(spec.insert.replace('{table}', staging));
  const rejectedLines: RejectedLine[] = [];
  const reports: FileReport[] = [];
  try {
    for (const file of files) {
      reports.push(await importFile(db, spec, insert, file, rejectedLines, opts.progress ?? noProgress));
    }
    const records = (db.prepare(`SELECT COUNT(*) AS n FROM ${staging}`).get() as { n: number }).n;
    const active = readDatasetRow(db, spec.name);
    const previous = active?.loaded_at != null ? active.records : null;
    checkShrink(spec.name, records, previous, opts.force === true);
    const version = opts.version ?? files.map((f) => path.basename(f)).join(' + ');
    db.transaction(() => {
      swapStaging(db, spec.table, staging);
      writeDatasetActivated(db, spec.name, {
        source: opts.source ?? files.map((f) => path.resolve(f)).join(' '),
        version,
        builtAt: opts.builtAt ?? null,
        records,
        sha256: reports.map((r) => r.sha256).join(','),
      });
    })();
    afterActivation(ctx, spec.name, records, opts.builtAt ?? null);
    return { dataset: spec.name, version, records, previousRecords: previous, files: reports, rejectedLines, durationMs: Date.now() - started };
  } finally {
    dropStaging(db, staging);
  }
}

function checkShrink(name: string, records: number, previous: number | null, force: boolean): void {
  if (force || previous === null || previous <= 0) return;
  if (records < previous * MIN_SHARE_OF_ACTIVE) {
    throw new ImportError(
      `${name}: the new data has ${records} records, fewer than 90% of the active ${previous}; the active data is kept (use --force to accept it)`,
    );
  }
}

function afterActivation(ctx: AppContext, name: string, records: number, builtAt: string | null): void {
  ctx.metrics.datasetRefresh.inc({ dataset: name, result: 'success' });
  ctx.metrics.datasetRecords.set({ dataset: name }, records);
  ctx.metrics.datasetLastSuccess.set({ dataset: name }, Date.now() / 1000);
  if (builtAt !== null && !Number.isNaN(Date.parse(builtAt))) ctx.metrics.datasetBuilt.set({ dataset: name }, Date.parse(builtAt) / 1000);
  ctx.datasets.activated(name);
}

async function importFile<T>(
  db: Db,
  spec: TableSpec<T>,
  insert: ReturnType<Db['prepare']>,
  file: string,
  rejectedOut: RejectedLine[],
  progressFactory: ProgressFactory,
): Promise<FileReport> {
  const size = fs.statSync(file).size;
  if (size === 0) throw new ImportError(`${file}: empty file`);
  const head = readHead(file);
  let imported = 0;
  let duplicates = 0;
  let rejected = 0;
  const firstRejects: RejectedLine[] = [];
  let batch: T[] = [];
  const flush = db.transaction((rows: T[]) => {
    for (const r of rows) if (insert.run(spec.params(r)).changes === 0) duplicates++;
  });
  const sink: Sink<T> = {
    row(r) {
      imported++;
      batch.push(r);
      if (batch.length >= BATCH) {
        flush(batch);
        batch = [];
      }
    },
    reject(line, reason) {
      rejected++;
      if (firstRejects.length < 20) firstRejects.push({ file, line, reason });
    },
  };
  const handler = spec.parser(head, sink, file);
  const progress = progressFactory();
  progress.start(path.basename(file), size);
  const { stream, stats } = openInput(file, (n) => progress.update(n));
  try {
    if ('lines' in handler) {
      await forEachLine(stream, (line, no) => handler.lines.push(line, no));
      handler.lines.end();
    } else {
      const chunks: Buffer[] = [];
      for await (const c of stream) chunks.push(c as Buffer);
      handler.whole(Buffer.concat(chunks).toString('utf8').replace(/^\uFEFF/, ''), sink);
    }
  } catch (e) {
    if (e instanceof FormatError) throw new ImportError(`${file}:${e.lineNo}: ${e.message}`);
    if (e instanceof ImportError) throw e;
    const code = (e as { code?: string }).code;
    const hint = code === 'Z_BUF_ERROR' || /unexpected end/i.test(String(e)) ? ' (truncated gzip?)' : '';
    throw new ImportError(`${file}: read failed: ${(e as Error).message}${hint}`);
  } finally {
    progress.stop();
  }
  if (batch.length > 0) flush(batch);
  rejectedOut.push(...firstRejects);
  const where = (r: RejectedLine): string => `line ${r.line}: ${r.reason}`;
  if (imported === 0) {
    throw new ImportError(
      rejected > 0
        ? `${file}: no valid ${spec.name} rows (${rejected} rejected; first at ${where(firstRejects[0]!)})`
        : `${file}: no ${spec.name} rows found (empty or not a ${spec.description})`,
    );
  }
  if (rejected > (imported + rejected) * MAX_REJECTED_SHARE) {
    throw new ImportError(
      `${file}: ${rejected} of ${imported + rejected} data lines rejected (over 1%, wrong format?); ${firstRejects.slice(0, 3).map(where).join('; ')}`,
    );
  }
  return { file, format: handler.format, imported: imported - duplicates, duplicates, rejected, sha256: stats.sha256 ?? '' };
}

registerImporter(
  tableImporter<OuiRow>({
    name: 'oui',
    table: 'oui',
    description: 'IEEE registry CSV/TXT file or oui-data JSON',
    insert: 'INSERT OR IGNORE INTO {table} (prefix, bits, registry, vendor, address, country) VALUES (?, ?, ?, ?, ?, ?)',
    params: (r) => [r.prefix, r.bits, r.registry, r.vendor, r.address, r.country],
    parser(head, sink, file) {
      const format = detectOuiFormat(head);
      if (format === 'json') return { format: 'oui-data-json', whole: parseOuiDataJson };
      if (format === 'csv') return { format: 'ieee-csv', lines: new IeeeCsvParser(sink) };
      if (format === 'txt') return { format: 'ieee-txt', lines: new IeeeTxtParser(sink) };
      throw new ImportError(`${file}:1: not an IEEE registry file: expected a CSV with the header "Registry,Assignment,Organization Name,Organization Address", the IEEE .txt form, or oui-data JSON`);
    },
  }),
);

registerImporter(
  tableImporter<RirRow>({
    name: 'rir',
    table: 'asn_rir',
    description: 'RIR delegated-extended statistics file',
    insert: 'INSERT OR IGNORE INTO {table} (start, count, rir, country, allocated, status) VALUES (?, ?, ?, ?, ?, ?)',
    params: (r) => [r.start, r.count, r.rir, r.country, r.allocated, r.status],
    parser: (_head, sink) => ({ format: 'delegated-extended', lines: new RirParser(sink) }),
  }),
);

registerImporter(
  tableImporter<AsNameRow>({
    name: 'asnames',
    table: 'asn',
    description: 'AS names list (asn.txt)',
    insert: 'INSERT OR IGNORE INTO {table} (number, name, description, country) VALUES (?, ?, ?, ?)',
    params: (r) => [r.asn, r.name, r.description, r.country],
    parser: (_head, sink) => ({ format: 'asn.txt', lines: new AsNamesParser(sink) }),
  }),
);

registerImporter(
  tableImporter<PrefixRow>({
    name: 'prefixes',
    table: 'asn_prefix',
    description: 'prefix file (pfx2as, ip2asn TSV or ip-location-db CSV)',
    insert: 'INSERT INTO {table} (family, start, end, asn, org) VALUES (?, ?, ?, ?, ?)',
    params: (r) => (r.family === 4 ? [4, r.start, r.end, r.asn, r.org] : [6, v6ToBytes(r.start), v6ToBytes(r.end), r.asn, r.org]),
    parser: (_head, sink) => {
      const p = new PrefixParser(sink);
      return {
        get format() {
          return p.detected ?? 'prefixes';
        },
        lines: p,
      };
    },
  }),
);

// ---- Geo (mmdb files) ----

interface StagedMmdb {
  readonly input: string;
  readonly staged: string;
  readonly sha256: string;
  readonly size: number;
  readonly info: MmdbInfo;
}

/** Copies (and gunzips) an input into staging/, hashing it; never reads it whole into a string. */
async function stageFile(input: string, dir: string, progressFactory: ProgressFactory): Promise<{ staged: string; sha256: string; size: number }> {
  fs.mkdirSync(dir, { recursive: true });
  const staged = path.join(dir, `geo-${process.pid}-${Date.now()}-${crypto.randomBytes(4).toString('hex')}.mmdb`);
  const progress = progressFactory();
  progress.start(path.basename(input), fs.statSync(input).size);
  const { stream } = openInput(input, (n) => progress.update(n));
  const hash = crypto.createHash('sha256');
  const out = fs.createWriteStream(staged);
  let size = 0;
  try {
    for await (const chunk of stream) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', resolve));
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (e) {
    out.destroy();
    fs.rmSync(staged, { force: true });
    throw new ImportError(`${input}: read failed: ${(e as Error).message}${/unexpected end/i.test(String(e)) ? ' (truncated gzip?)' : ''}`);
  } finally {
    progress.stop();
  }
  return { staged, sha256: hash.digest('hex'), size };
}

async function runGeoImport(ctx: AppContext, files: readonly string[], opts: ImportOptions): Promise<ImportResult> {
  const started = Date.now();
  const dataDir = ctx.config.dataDir;
  const stagingDir = path.join(dataDir, 'staging');
  const staged: StagedMmdb[] = [];
  const cleanup = (): void => {
    for (const s of staged) fs.rmSync(s.staged, { force: true });
  };
  try {
    if (files.length > 2) throw new ImportError(`geo: give one dual-stack mmdb file, or one IPv4 and one IPv6 file (got ${files.length} files)`);
    for (const input of files) {
      if (fs.statSync(input).size === 0) throw new ImportError(`${input}: empty file`);
      const s = await stageFile(input, stagingDir, opts.progress ?? noProgress);
      let info: MmdbInfo;
      try {
        info = inspectMmdb(fs.readFileSync(s.staged));
      } catch (e) {
        fs.rmSync(s.staged, { force: true });
        if (e instanceof InvalidMmdbError) throw new ImportError(`${input}: ${e.message}`);
        throw e;
      }
      staged.push({ input, ...s, info });
    }
    if (staged.length === 2 && staged[0]!.info.ipVersion === staged[1]!.info.ipVersion) {
      throw new ImportError(`geo: ${staged[0]!.input} and ${staged[1]!.input} are both IPv${staged[0]!.info.ipVersion} databases; give one IPv4 and one IPv6 file`);
    }
    const records = staged.reduce((sum, s) => sum + s.info.nodeCount, 0);
    const active = readDatasetRow(ctx.db, 'geo');
    const previous = active?.loaded_at != null ? active.records : null;
    checkShrink('geo', records, previous, opts.force === true);

    // Activate: move into geo/ under content-addressed names, then switch the rows in one transaction.
    const dir = geoDir(dataDir);
    fs.mkdirSync(dir, { recursive: true });
    const oldFiles = loadGeoFileRows(ctx.db).map((r) => r.file);
    const placed: { name: string; s: StagedMmdb }[] = [];
    for (const s of staged) {
      const name = `geo-v${s.info.ipVersion}-${s.sha256.slice(0, 16)}.mmdb`;
      fs.renameSync(s.staged, path.join(dir, name));
      placed.push({ name, s });
    }
    staged.length = 0;
    const builtAt = opts.builtAt ?? placed.map((p) => p.s.info.buildEpoch).filter((b): b is string => b !== null).sort()[0] ?? null;
    const version = opts.version ?? [...new Set(placed.map((p) => p.s.info.databaseType || 'mmdb'))].join(' + ');
    try {
      ctx.db.transaction(() => {
        ctx.db.prepare('DELETE FROM geo_file').run();
        const ins = ctx.db.prepare('INSERT INTO geo_file (file, ip_version, database_type, build_epoch, node_count, size, sha256) VALUES (?, ?, ?, ?, ?, ?, ?)');
        for (const p of placed) ins.run(p.name, p.s.info.ipVersion, p.s.info.databaseType, p.s.info.buildEpoch, p.s.info.nodeCount, p.s.size, p.s.sha256);
        writeDatasetActivated(ctx.db, 'geo', {
          source: opts.source ?? files.map((f) => path.resolve(f)).join(' '),
          version,
          builtAt,
          records,
          sha256: placed.map((p) => p.s.sha256).join(','),
        });
      })();
    } catch (e) {
      for (const p of placed) if (!oldFiles.includes(p.name)) fs.rmSync(path.join(dir, p.name), { force: true });
      throw e;
    }
    retirePrevious(dataDir, oldFiles.filter((f) => !placed.some((p) => p.name === f)));
    afterActivation(ctx, 'geo', records, builtAt);
    return {
      dataset: 'geo',
      version,
      records,
      previousRecords: previous,
      files: placed.map((p) => ({ file: p.s.input, format: `mmdb ipv${p.s.info.ipVersion}`, imported: p.s.info.nodeCount, duplicates: 0, rejected: 0, sha256: p.s.sha256 })),
      rejectedLines: [],
      durationMs: Date.now() - started,
    };
  } finally {
    cleanup();
  }
}

/** Keeps the version just replaced in previous/geo (for rollback); older ones are removed. */
function retirePrevious(dataDir: string, files: readonly string[]): void {
  if (files.length === 0) return;
  const prev = path.join(dataDir, 'previous', 'geo');
  fs.rmSync(prev, { recursive: true, force: true });
  fs.mkdirSync(prev, { recursive: true });
  for (const f of files) {
    try {
      fs.renameSync(path.join(geoDir(dataDir), f), path.join(prev, f));
    } catch {
      // Already gone: nothing to keep.
    }
  }
}

registerImporter({ name: 'geo', dataset: 'geo', description: 'MaxMind DB (mmdb) files', run: runGeoImport });
