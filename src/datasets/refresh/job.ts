// One refresh of one dataset: fetch every source to staging/ → import (full parse, sanity rules,
// atomic activation, in-memory swap: importDataset) → retain the source files. The cron job, SIGHUP and
// `netintel refresh` all come through here. A failure at any step leaves the active data and its
// metadata as they were (only last_error is recorded) and removes what was staged.
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../../context.js';
import { ImportError, getImporter, importDataset, type ImportResult } from '../import.js';
import { noProgress, type ProgressFactory } from '../progress.js';
import { readDatasetRow, writeDatasetError } from '../store.js';
import { RefreshError, createRefreshDispatcher, fetchSource, lastModifiedIso, type FetchOutcome } from './fetcher.js';
import { notifyDatasetChange } from './notify.js';
import {
  acquireLock,
  previousVersion,
  readSourceRows,
  retainActivated,
  sourcesDir,
  stagingDir,
  usableValidators,
  type RetainedInput,
} from './retention.js';
import { REFRESH_NAMES, describeSource, mergesSources, sourceBaseName, sourcesFor, type RefreshName } from './sources.js';

export type RefreshResult = 'success' | 'not_modified' | 'failure' | 'skipped';

export interface RefreshOutcome {
  readonly dataset: RefreshName;
  readonly result: RefreshResult;
  /** One line for logs and the CLI. */
  readonly message: string;
  readonly records: number | null;
  readonly previousRecords: number | null;
  readonly version: string | null;
  /** Whether the active data changed (success with different content). */
  readonly changed: boolean;
  readonly durationMs: number;
}

export interface RefreshOptions {
  /** Unconditional GET, and accept a version below 90% of the active record count. */
  readonly force?: boolean;
  readonly progress?: ProgressFactory;
  /** Aborts downloads (shutdown). */
  readonly signal?: AbortSignal;
  /** What started it: schedule, signal, cli. Logged only. */
  readonly trigger?: string;
}

/** Importers of other modules (RDAP bootstrap, CT logs) register when the lookups load. */
async function ensureImporters(): Promise<void> {
  await import('../../lookups/index.js');
}

function rowNameOf(name: RefreshName): string {
  return getImporter(name)?.dataset ?? name.replace(/-/g, '_');
}

// importDataset and some importers count (and record) their own outcomes, others do not: compare the
// counter around the import so that every attempt is counted exactly once, whoever counts it.
async function resultCount(ctx: AppContext, dataset: string, result: 'success' | 'failure'): Promise<number> {
  const m = await ctx.metrics.datasetRefresh.get();
  return m.values.find((v) => v.labels.dataset === dataset && v.labels.result === result)?.value ?? 0;
}

async function successCount(ctx: AppContext, dataset: string): Promise<number> {
  return resultCount(ctx, dataset, 'success');
}

/** Gauges from the `dataset` row: the one truth, whoever activated the version. */
export function publishDatasetGauges(ctx: AppContext, dataset: string): void {
  const row = readDatasetRow(ctx.db, dataset);
  if (row === null || row.loaded_at === null) return;
  if (row.records !== null) ctx.metrics.datasetRecords.set({ dataset }, row.records);
  if (row.built_at !== null && !Number.isNaN(Date.parse(row.built_at))) ctx.metrics.datasetBuilt.set({ dataset }, Date.parse(row.built_at) / 1000);
  if (row.last_success_at !== null && !Number.isNaN(Date.parse(row.last_success_at))) {
    ctx.metrics.datasetLastSuccess.set({ dataset }, Date.parse(row.last_success_at) / 1000);
  }
}

interface Fetched {
  readonly source: string;
  readonly outcome: FetchOutcome;
}

let stageSerial = 0;

function stagePath(ctx: AppContext, name: RefreshName, source: string): string {
  // `<pid>-` first: the datasets start-up cleanup removes such files when their process is gone.
  return path.join(stagingDir(ctx.config.dataDir), `${process.pid}-refresh-${name}-${++stageSerial}-${sourceBaseName(source)}`);
}

export async function refreshDataset(ctx: AppContext, name: RefreshName, opts: RefreshOptions = {}): Promise<RefreshOutcome> {
  const started = Date.now();
  const sources = sourcesFor(ctx.config, name);
  const base = { dataset: name, records: null, previousRecords: null, version: null, changed: false };
  if (sources.length === 0) {
    return { ...base, result: 'skipped', message: `${name}: no sources configured`, durationMs: 0 };
  }
  await ensureImporters();
  const rowName = rowNameOf(name);
  const lock = acquireLock(ctx.config.dataDir, name);
  if ('holder' in lock) {
    const message = `${name}: a refresh is already running (pid ${lock.holder}); skipped`;
    ctx.log.info({ step: 'refresh', dataset: name, holder: lock.holder }, message);
    return { ...base, result: 'skipped', message, durationMs: 0 };
  }
  const log = ctx.log.child({ step: 'refresh', dataset: name, trigger: opts.trigger ?? 'manual' });
  const staged: string[] = [];
  let phase: 'fetch' | 'import' | 'retain' = 'fetch';
  let failuresBeforeImport = 0;
  const endTimer = ctx.metrics.datasetRefreshDuration.startTimer({ dataset: rowName });
  try {
    const fetched = await fetchAll(ctx, name, sources, opts, staged);
    if (fetched.every((f) => f.outcome.kind === 'not_modified')) {
      // Nothing new upstream: a success that changes nothing, except that an earlier failure is over.
      ctx.db.prepare('UPDATE dataset SET last_error = NULL, last_error_at = NULL WHERE name = ? AND loaded_at IS NOT NULL').run(rowName);
      ctx.metrics.datasetRefresh.inc({ dataset: rowName, result: 'not_modified' });
      const row = readDatasetRow(ctx.db, rowName);
      const message = `${name}: not modified (${fetched.length} source${fetched.length === 1 ? '' : 's'} unchanged)`;
      log.info({ result: 'not_modified' }, message);
      return { ...base, result: 'not_modified', message, records: row?.records ?? null, previousRecords: row?.records ?? null, version: row?.version ?? null, durationMs: Date.now() - started };
    }

    const rows = readSourceRows(ctx.db, name);
    const currentDir = sourcesDir(ctx.config.dataDir, name);
    const inputs: RetainedInput[] = fetched.map(({ source, outcome }) => {
      if (outcome.kind === 'fetched') {
        return { source, staged: outcome.file, keptFile: null, baseName: sourceBaseName(source), etag: outcome.etag, lastModified: outcome.lastModified, sha256: outcome.sha256, size: outcome.size };
      }
      const row = rows.get(source)!;
      return { source, staged: null, keptFile: row.file, baseName: sourceBaseName(source), etag: row.etag, lastModified: row.last_modified, sha256: row.sha256, size: row.size };
    });
    const files = inputs.map((i) => i.staged ?? path.join(currentDir, i.keptFile!));
    const before = readDatasetRow(ctx.db, rowName);
    const countedBefore = await successCount(ctx, rowName);
    failuresBeforeImport = await resultCount(ctx, rowName, 'failure');
    phase = 'import';
    const result = await importDataset(ctx, name, files, {
      force: opts.force === true,
      source: fetched.map((f) => describeSource(f.source)).join(' '),
      progress: opts.progress ?? noProgress,
      ...tableVersion(name, inputs),
    });
    phase = 'retain';
    const after = readDatasetRow(ctx.db, rowName);
    try {
      retainActivated(ctx.db, ctx.config.dataDir, name, inputs, { version: after?.version ?? null, built_at: after?.built_at ?? null, source: after?.source ?? null });
      for (const i of inputs) if (i.staged !== null) staged.splice(staged.indexOf(i.staged), 1);
    } catch (e) {
      // The new version is active; only the retained copies (rollback, conditional GET) are missing.
      log.warn({ err: (e as Error).message }, `${name}: activated, but keeping its source files failed: ${(e as Error).message}`);
    }
    if ((await successCount(ctx, rowName)) === countedBefore) ctx.metrics.datasetRefresh.inc({ dataset: rowName, result: 'success' });
    publishDatasetGauges(ctx, rowName);
    const changed = before?.sha256 !== after?.sha256 || before?.loaded_at === null;
    const message = `${name}: ${result.records} records active (was ${result.previousRecords ?? 'none'}), version ${JSON.stringify(result.version)}${changed ? '' : ' (same content)'}`;
    log.info({ result: 'success', records: result.records, previous: result.previousRecords, version: result.version, changed }, message);
    if (changed) {
      await notifyDatasetChange(
        ctx.config.onDatasetChange,
        {
          dataset: rowName,
          version: result.version,
          previous_version: before?.version ?? null,
          records: result.records,
          previous_records: before?.records ?? null,
          changed_at: after?.loaded_at ?? new Date().toISOString(),
        },
        ctx.log,
        { extraCa: ctx.config.extraCa },
      );
    }
    return { ...base, result: 'success', message, records: result.records, previousRecords: result.previousRecords, version: result.version, changed, durationMs: Date.now() - started };
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    // importDataset records its own failures (last_error, metrics); the fetch phase is ours to record.
    if (phase !== 'import' || (await resultCount(ctx, rowName, 'failure')) === failuresBeforeImport) {
      try {
        writeDatasetError(ctx.db, rowName, reason);
      } catch {
        // The store itself failed; the warning below still says why the refresh failed.
      }
      ctx.metrics.datasetRefresh.inc({ dataset: rowName, result: 'failure' });
    }
    if (!(e instanceof RefreshError || e instanceof ImportError)) log.error({ err: e }, `${name}: refresh failed unexpectedly`);
    log.warn({ result: 'failure', reason }, `${name}: refresh failed, the active data is kept: ${reason}`);
    const row = readDatasetRowSafe(ctx, rowName);
    return { ...base, result: 'failure', message: `${name}: ${reason}`, records: row?.records ?? null, previousRecords: row?.records ?? null, version: row?.version ?? null, durationMs: Date.now() - started };
  } finally {
    for (const f of staged) fs.rmSync(f, { force: true });
    endTimer();
    lock.release();
  }
}

function readDatasetRowSafe(ctx: AppContext, name: string): ReturnType<typeof readDatasetRow> {
  try {
    return readDatasetRow(ctx.db, name);
  } catch {
    return null;
  }
}

/**
 * Table datasets get their version label from the source names and their build time from the newest
 * Last-Modified; geo, the bootstrap and the CT list carry their own inside the data.
 */
function tableVersion(name: RefreshName, inputs: readonly RetainedInput[]): { version?: string; builtAt?: string | null } {
  if (name === 'geo' || name === 'rdap-bootstrap' || name === 'ct-logs') return {};
  const dates = inputs.map((i) => lastModifiedIso(i.lastModified)).filter((d): d is string => d !== null).sort();
  return { version: inputs.map((i) => i.baseName).join(' + '), builtAt: dates.at(-1) ?? null };
}

async function fetchAll(ctx: AppContext, name: RefreshName, sources: readonly string[], opts: RefreshOptions, staged: string[]): Promise<Fetched[]> {
  const cfg = ctx.config;
  fs.mkdirSync(stagingDir(cfg.dataDir), { recursive: true });
  const rows = readSourceRows(ctx.db, name);
  const dispatcher = createRefreshDispatcher(cfg.extraCa, cfg.refreshTimeoutMs);
  const progress = opts.progress ?? noProgress;
  const one = async (source: string): Promise<Fetched> => {
    const dest = stagePath(ctx, name, source);
    staged.push(dest);
    const outcome = await fetchSource(source, {
      dest,
      previous: opts.force === true ? null : usableValidators(cfg.dataDir, name, rows.get(source)),
      timeoutMs: cfg.refreshTimeoutMs,
      maxBytes: cfg.refreshMaxBytes,
      dispatcher,
      progress: progress(),
      ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    });
    return { source, outcome };
  };
  try {
    if (mergesSources(name)) {
      const out: Fetched[] = [];
      // One at a time: a mirror serves a fleet, and a failure stops the rest early.
      for (const s of sources) out.push(await one(s));
      return out;
    }
    // The bootstrap and the CT list: further sources are fallbacks.
    const errors: string[] = [];
    for (const s of sources) {
      try {
        return [await one(s)];
      } catch (e) {
        if (opts.signal?.aborted === true) throw e;
        errors.push((e as Error).message);
      }
    }
    throw new RefreshError(errors.join('; '));
  } finally {
    await dispatcher.close();
  }
}

/** Every dataset with sources, one after the other (what the cron job and SIGHUP run). */
export async function refreshAll(ctx: AppContext, opts: RefreshOptions = {}, names: readonly RefreshName[] = REFRESH_NAMES): Promise<RefreshOutcome[]> {
  const out: RefreshOutcome[] = [];
  for (const name of names) {
    if (opts.signal?.aborted === true) break;
    out.push(await refreshDataset(ctx, name, opts));
  }
  return out;
}

/**
 * `netintel refresh --rollback <dataset>`: re-activates the version kept in previous/ (forced: it may
 * well be smaller). The retained sources and their validators stay those of the newest fetch, so the
 * next refresh keeps the rolled-back data until the upstream publishes something new.
 */
export async function rollbackDataset(ctx: AppContext, name: RefreshName, opts: Pick<RefreshOptions, 'progress'> = {}): Promise<RefreshOutcome> {
  const started = Date.now();
  await ensureImporters();
  const rowName = rowNameOf(name);
  const base = { dataset: name, changed: false };
  const kept = previousVersion(ctx.config.dataDir, name);
  if (kept === null) {
    return { ...base, result: 'failure', message: `${name}: no previous version is kept (previous/${name} is empty); nothing to roll back to`, records: null, previousRecords: null, version: null, durationMs: 0 };
  }
  const lock = acquireLock(ctx.config.dataDir, name);
  if ('holder' in lock) {
    return { ...base, result: 'failure', message: `${name}: a refresh is running (pid ${lock.holder}); try again when it is done`, records: null, previousRecords: null, version: null, durationMs: 0 };
  }
  try {
    const before = readDatasetRow(ctx.db, rowName);
    const countedBefore = await successCount(ctx, rowName);
    let result: ImportResult;
    try {
      result = await importDataset(ctx, name, kept.files, {
        force: true,
        progress: opts.progress ?? noProgress,
        source: `rollback: ${kept.meta?.source ?? `previous/${name}`}`,
        ...(kept.meta?.version == null || name === 'geo' || name === 'rdap-bootstrap' || name === 'ct-logs' ? {} : { version: kept.meta.version }),
        ...(kept.meta?.built_at === undefined || name === 'geo' || name === 'rdap-bootstrap' || name === 'ct-logs' ? {} : { builtAt: kept.meta.built_at }),
      });
    } catch (e) {
      const reason = (e as Error).message;
      ctx.log.warn({ step: 'refresh', dataset: name, reason }, `${name}: rollback failed, the active data is kept: ${reason}`);
      return { ...base, result: 'failure', message: `${name}: rollback failed: ${reason}`, records: before?.records ?? null, previousRecords: before?.records ?? null, version: before?.version ?? null, durationMs: Date.now() - started };
    }
    if ((await successCount(ctx, rowName)) === countedBefore) ctx.metrics.datasetRefresh.inc({ dataset: rowName, result: 'success' });
    publishDatasetGauges(ctx, rowName);
    const message = `${name}: rolled back to ${JSON.stringify(result.version)}, ${result.records} records (was ${result.previousRecords ?? 'none'})`;
    ctx.log.info({ step: 'refresh', dataset: name, result: 'rollback', records: result.records, version: result.version }, message);
    await notifyDatasetChange(
      ctx.config.onDatasetChange,
      { dataset: rowName, version: result.version, previous_version: before?.version ?? null, records: result.records, previous_records: before?.records ?? null, changed_at: new Date().toISOString() },
      ctx.log,
      { extraCa: ctx.config.extraCa },
    );
    return { ...base, changed: true, result: 'success', message, records: result.records, previousRecords: result.previousRecords, version: result.version, durationMs: Date.now() - started };
  } finally {
    lock.release();
  }
}
