// The datasets layer end to end: swaps under concurrent lookups (same thread and a worker thread on
// shared memory), the `netintel import` CLI, and the daemon's health view of what was imported.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { CLI, ROOT, startDaemon, tempDir as makeTempDir, type Daemon } from '../helpers/daemon.js';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/main.js';
import { Metrics } from '../../src/platform/metrics.js';
import { importDataset } from '../../src/datasets/import.js';
import type { AppContext } from '../../src/context.js';
import { buildMmdb, flatRecord } from '../unit/datasets/mmdb-writer.js';

const daemons: Daemon[] = [];
const contexts: AppContext[] = [];
const dirs: string[] = [];
function tempDir(): string {
  const d = makeTempDir();
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of daemons) await d.stop();
  for (const c of contexts) c.db.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function context(dataDir: string): AppContext {
  const ctx = createContext(loadConfig({ NETINTEL_DATA_DIR: dataDir }), pino({ level: 'silent' }), new Metrics({ defaultMetrics: false }));
  contexts.push(ctx);
  return ctx;
}

/** A prefix file where every range of version `v` is originated by AS 1000+v. */
function version(dir: string, v: number, ranges = 2000): string {
  const lines: string[] = [];
  for (let i = 0; i < ranges; i++) lines.push(`${10 + (i >> 8)}.${i & 255}.0.0\t16\t${1000 + v}`);
  lines.push(`2001:db8:${v}::\t48\t${1000 + v}`);
  const file = path.join(dir, `pfx2as-${v}.txt`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

function cli(args: string[], dataDir: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', NETINTEL_DATA_DIR: dataDir, NETINTEL_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('swapping datasets under load', () => {
  it('a lookup never sees a mixed or empty answer while versions are swapped (same thread)', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const ctx = context(dir);
    const files = [1, 2, 3, 4].map((v) => version(dir, v));
    await importDataset(ctx, 'prefixes', [files[0]!]);
    let stop = false;
    let lookups = 0;
    const problems: string[] = [];
    const reader = (async () => {
      while (!stop && lookups < 2_000_000) {
        for (let k = 0; k < 200; k++) {
          const snap = ctx.datasets.prefixes;
          if (snap === null) {
            problems.push('no snapshot');
            continue;
          }
          const a = snap.lookup('10.3.4.5');
          const b = snap.lookup('17.200.0.1');
          const c = snap.lookup(`2001:db8:${a?.asn ? a.asn - 1000 : 0}::1`);
          lookups++;
          if (a === null || b === null || c === null) problems.push(`empty answer ${JSON.stringify([a, b, c])}`);
          else if (a.asn !== b.asn || a.asn !== c.asn) problems.push(`mixed answer ${a.asn}/${b.asn}/${c.asn}`);
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let round = 0; round < 6; round++) await importDataset(ctx, 'prefixes', [files[(round + 1) % 4]!], { force: true });
    stop = true;
    await reader;
    expect(problems.slice(0, 5)).toEqual([]);
    expect(lookups).toBeGreaterThan(100);
    expect(ctx.datasets.prefixes!.lookup('10.3.4.5')!.asn).toBe(1000 + ((6 % 4) + 1));
  });

  it('a worker thread on shared memory swaps on dataset-changed and never mixes versions', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const ctx = context(dir);
    const files = [1, 2, 3].map((v) => version(dir, v));
    await importDataset(ctx, 'prefixes', [files[0]!]);
    ctx.datasets.loadShared();
    const registry = path.join(ROOT, 'dist/datasets/registry.js');
    const dbModule = path.join(ROOT, 'dist/platform/sqlite.js');
    // The worker does what src/worker.ts does: new Datasets(db, staleAfter, share) and reload on messages.
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      (async () => {
        const { Datasets } = await import(${JSON.stringify(registry)});
        const { openDatabase } = await import(${JSON.stringify(dbModule)});
        const db = openDatabase(workerData.db);
        const ds = new Datasets(db, 3600, workerData.share);
        let lookups = 0, problems = [], seen = new Set(), stop = false;
        parentPort.on('message', (m) => {
          if (m.type === 'dataset-changed') ds.reload(m.name, m.share);
          if (m.type === 'stop') stop = true;
        });
        while (!stop && lookups < 5e6) {
          for (let k = 0; k < 500; k++) {
            const s = ds.prefixes;
            const a = s && s.lookup('10.3.4.5'), b = s && s.lookup('17.200.0.1');
            lookups++;
            if (!a || !b) problems.push('empty');
            else if (a.asn !== b.asn) problems.push('mixed ' + a.asn + '/' + b.asn);
            else seen.add(a.asn);
          }
          await new Promise((r) => setImmediate(r));
        }
        db.close();
        parentPort.postMessage({ lookups, problems: problems.slice(0, 5), seen: [...seen] });
      })().catch((e) => parentPort.postMessage({ error: String(e && e.stack || e) }));`;
    const worker = new Worker(code, { eval: true, workerData: { share: ctx.datasets.share(), db: path.join(dir, 'netintel.db') } });
    ctx.datasets.onActivated((name, share) => worker.postMessage({ type: 'dataset-changed', name, share }));
    const done = new Promise<{ lookups: number; problems: string[]; seen: number[]; error?: string }>((resolve) => worker.once('message', resolve));
    await new Promise((r) => setTimeout(r, 200));
    for (const f of [files[1]!, files[2]!]) {
      await importDataset(ctx, 'prefixes', [f], { force: true });
      await new Promise((r) => setTimeout(r, 200));
    }
    worker.postMessage({ type: 'stop' });
    const result = await done;
    await worker.terminate();
    expect(result.error).toBeUndefined();
    expect(result.problems).toEqual([]);
    expect(result.seen.sort()).toEqual([1001, 1002, 1003]);
  });
});

describe('netintel import (CLI) and the daemon', () => {
  it('imports files, reports rows and rejects, and the daemon serves them in health', { timeout: 90_000 }, async () => {
    const dataDir = tempDir();
    const src = tempDir();
    const oui = path.join(src, 'oui.csv');
    fs.writeFileSync(oui, 'Registry,Assignment,Organization Name,Organization Address\nMA-L,B827EB,Raspberry Pi Foundation,Mitchell Wood House Caldecote Cambridgeshire GB CB23 7NU\nMA-L,00000C,"Cisco Systems, Inc",170 WEST TASMAN DRIVE SAN JOSE CA US 95134-1706\n');
    let r = cli(['import', 'oui', oui], dataDir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${oui}: ieee-csv, 2 rows imported, 0 rejected`);
    expect(r.stdout).toContain('oui: 2 records active (was none)');

    const bad = path.join(src, 'bad.csv');
    fs.writeFileSync(bad, 'not,an,ieee,file\n');
    r = cli(['import', 'oui', bad], dataDir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}:1: not an IEEE registry file`);

    r = cli(['import', 'prefixes', version(src, 7)], dataDir);
    expect(r.code).toBe(0);
    const geo = path.join(src, 'geo.mmdb');
    fs.writeFileSync(geo, buildMmdb({ ipVersion: 4, databaseType: 'test-city', networks: [{ cidr: '8.8.8.0/24', data: flatRecord('US', 'Mountain View', 37.422, -122.085) }] }));
    r = cli(['import', 'geo', geo, '--label', 'test-geo'], dataDir);
    expect(r.code).toBe(0);

    r = cli(['import', 'nonsense', oui], dataDir);
    expect(r.code).toBe(2);

    const d = await startDaemon({ dataDir });
    daemons.push(d);
    const res = await fetch(`${d.url}/`);
    const body = (await res.json()) as { datasets: Record<string, { loaded: boolean; records: number | null; dataset: string | null; last_error: string | null }> };
    expect(Object.keys(body.datasets)).toEqual(expect.arrayContaining(['geo', 'oui', 'asn', 'rdap_bootstrap', 'ct_logs']));
    expect(body.datasets['oui']).toMatchObject({ loaded: true, records: 2 });
    expect(body.datasets['oui']!.last_error).toContain('bad.csv:1');
    expect(body.datasets['asn']).toMatchObject({ loaded: true, records: 2001 });
    expect(body.datasets['geo']).toMatchObject({ loaded: true, dataset: 'test-geo' });
    expect(d.logs.some((l) => l['msg'] === 'datasets loaded')).toBe(true);
  });
});
