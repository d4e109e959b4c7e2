// The cron wiring (triggered directly, never by waiting on the clock), the change hook, and the
// refresh of the two JSON datasets other modules own (RDAP bootstrap, CT log list).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { RefreshScheduler, cronLogger, pidFile } from '../../../../src/datasets/refresh/scheduler.js';
import { refreshDataset } from '../../../../src/datasets/refresh/job.js';
import { notifyDatasetChange } from '../../../../src/datasets/refresh/notify.js';
import { readDatasetRow } from '../../../../src/datasets/store.js';
import { importDataset } from '../../../../src/datasets/import.js';
import { removeRefreshLeftovers, acquireLock } from '../../../../src/datasets/refresh/retention.js';
import type { AppContext } from '../../../../src/context.js';
import { pfx2as, startMirror, type Mirror } from '../../../helpers/mirror.js';
import { testLogList } from '../../../helpers/tls-fixtures.js';
import { tempDir, testContext } from '../helpers.js';

let mirror: Mirror;
const contexts: AppContext[] = [];
const schedulers: RefreshScheduler[] = [];
beforeAll(async () => {
  mirror = await startMirror();
});
afterAll(async () => {
  for (const s of schedulers) await s.stop();
  for (const c of contexts) c.db.close();
  await mirror.close();
});

function ctxFor(env: Record<string, string>): AppContext {
  const ctx = testContext(tempDir('netintel-sched-'), env);
  contexts.push(ctx);
  return ctx;
}

describe('scheduler', () => {
  it('uses the configured expression and time zone', () => {
    const ctx = ctxFor({ NETINTEL_REFRESH_SCHEDULE: '30 3 * * *', NETINTEL_REFRESH_TZ: 'America/New_York', NETINTEL_SOURCE_PREFIXES: 'none' });
    // The clock runs (nothing is due for hours) so that getNextRun answers; stopped in afterAll.
    const s = new RefreshScheduler(ctx);
    schedulers.push(s);
    expect(s.task.getPattern()).toBe('30 3 * * *');
    expect(s.task.getNextRuns(1)[0]).toEqual(s.task.getNextRun());
    const next = s.task.getNextRun()!;
    // 03:30 in New York is 07:30 or 08:30 UTC depending on daylight saving time.
    expect([7, 8]).toContain(next.getUTCHours());
    expect(next.getUTCMinutes()).toBe(30);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(25 * 3600 * 1000);
    expect(fs.readFileSync(pidFile(ctx.config.dataDir), 'utf8').trim()).toBe(String(process.pid));
  });

  it('executing the cron task runs the refresh; SIGHUP-style calls coalesce; stop is clean', async () => {
    mirror.put('/s/pfx.txt', pfx2as(64600));
    const ctx = ctxFor({ NETINTEL_SOURCE_PREFIXES: `${mirror.url}/s/pfx.txt`, NETINTEL_SOURCE_OUI: 'none', NETINTEL_SOURCE_RIR: 'none', NETINTEL_SOURCE_ASNAMES: 'none', NETINTEL_RDAP_BOOTSTRAP: 'none', NETINTEL_CT_LOG_LIST: 'none' });
    const s = new RefreshScheduler(ctx, { start: false });
    await s.task.execute();
    expect(readDatasetRow(ctx.db, 'prefixes')?.records).toBe(201);
    expect(s.task.lastRun()?.error).toBeUndefined();
    // Two triggers while one runs: one more run after it, not two.
    const before = mirror.requests.length;
    const a = s.runAll('signal');
    const b = s.runAll('signal');
    const c = s.runAll('signal');
    expect(b).toBe(a);
    expect(c).toBe(a);
    const out = await a;
    expect(out.find((o) => o.dataset === 'prefixes')?.result).toBe('not_modified');
    expect(mirror.requests.length - before).toBe(2);
    await s.stop();
    expect(fs.existsSync(pidFile(ctx.config.dataDir))).toBe(false);
    expect(await s.runAll('signal')).toEqual([]);
  });

  it('SIGHUP picks up versions another process wrote to the store', async () => {
    const dir = tempDir('netintel-sched-');
    const daemonCtx = testContext(dir, { NETINTEL_SOURCE_PREFIXES: 'none' });
    const cliCtx = testContext(dir);
    contexts.push(daemonCtx, cliCtx);
    const s = new RefreshScheduler(daemonCtx, { start: false, writePidFile: false });
    schedulers.push(s);
    const seen: string[] = [];
    daemonCtx.datasets.onActivated((name) => seen.push(name));
    expect(daemonCtx.datasets.prefixes).toBeNull();
    const file = path.join(dir, 'p.txt');
    fs.writeFileSync(file, pfx2as(64601));
    await importDataset(cliCtx, 'prefixes', [file]);
    expect(daemonCtx.datasets.prefixes).toBeNull();
    expect(s.syncFromStore()).toEqual(['prefixes']);
    expect(seen).toEqual(['prefixes']);
    expect((daemonCtx.datasets.prefixes?.lookup('10.0.0.1') as { asn: number }).asn).toBe(64601);
    expect(s.syncFromStore()).toEqual([]);
  });

  it("node-cron's own messages go to pino", () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'debug' }, { write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) });
    const l = cronLogger(log);
    l.warn('task still running');
    l.error(new Error('boom'));
    expect(lines.map((x) => [x['level'], x['component'], x['msg']])).toEqual([
      [40, 'cron', 'task still running'],
      [50, 'cron', 'boom'],
    ]);
  });

  it('a lock held by a live process makes a refresh skip; a dead holder is taken over; leftovers go', async () => {
    mirror.put('/l/pfx.txt', pfx2as(64602));
    const ctx = ctxFor({ NETINTEL_SOURCE_PREFIXES: `${mirror.url}/l/pfx.txt` });
    const lock = acquireLock(ctx.config.dataDir, 'prefixes');
    expect('release' in lock).toBe(true);
    expect((await refreshDataset(ctx, 'prefixes')).result).toBe('skipped');
    (lock as { release(): void }).release();
    const staging = path.join(ctx.config.dataDir, 'staging');
    fs.writeFileSync(path.join(staging, 'refresh-prefixes.lock'), '999999999\n');
    fs.mkdirSync(path.join(ctx.config.dataDir, 'sources', '.prefixes.new-999999999'), { recursive: true });
    fs.writeFileSync(path.join(staging, '999999999-refresh-prefixes-1-pfx.txt'), 'partial');
    expect(removeRefreshLeftovers(ctx.config.dataDir)).toHaveLength(3);
    fs.writeFileSync(path.join(staging, 'refresh-prefixes.lock'), '999999999\n');
    expect((await refreshDataset(ctx, 'prefixes')).result).toBe('success');
  });
});

describe('change hook', () => {
  it('runs a command with the change in its environment, only when the data changed', async () => {
    const dir = tempDir('netintel-hook-');
    const out = path.join(dir, 'hook.txt');
    mirror.put('/h/pfx.txt', pfx2as(64700));
    const ctx = ctxFor({ NETINTEL_SOURCE_PREFIXES: `${mirror.url}/h/pfx.txt`, NETINTEL_ON_DATASET_CHANGE: `echo "$NETINTEL_DATASET $NETINTEL_DATASET_RECORDS" >> ${out}` });
    expect((await refreshDataset(ctx, 'prefixes')).changed).toBe(true);
    expect((await refreshDataset(ctx, 'prefixes')).result).toBe('not_modified');
    expect(fs.readFileSync(out, 'utf8')).toBe('prefixes 201\n');
  });

  it('POSTs JSON to a webhook; a failing hook is a warning, not a failure', async () => {
    const bodies: unknown[] = [];
    let status = 204;
    const server = http.createServer((req, res) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(b));
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const log = pino({ level: 'silent' });
    const change = { dataset: 'geo', version: 'b', previous_version: 'a', records: 2, previous_records: 1, changed_at: '2026-11-22T00:00:00Z' };
    expect(await notifyDatasetChange(url, change, log, { extraCa: null })).toBe(true);
    expect(bodies).toEqual([{ event: 'dataset-changed', ...change }]);
    status = 500;
    expect(await notifyDatasetChange(url, change, log, { extraCa: null })).toBe(false);
    expect(await notifyDatasetChange('exit 3', change, log, { extraCa: null })).toBe(false);
    expect(await notifyDatasetChange('sleep 5', change, log, { extraCa: null, timeoutMs: 100 })).toBe(false);
    expect(await notifyDatasetChange(null, change, log, { extraCa: null })).toBe(false);
    await new Promise<void>((r) => server.close(() => r()));
  });
});

describe('JSON datasets of other modules', () => {
  it('refreshes the RDAP bootstrap and the CT log list, with fallback sources', async () => {
    mirror.put('/j/dns.json', JSON.stringify({ version: '1.0', publication: '2026-11-20T20:00:02Z', description: 'test', services: [[['com'], ['https://rdap.example.test/']]] }));
    mirror.put('/j/log_list.json', JSON.stringify(testLogList([{ logId: Buffer.alloc(32, 1).toString('base64'), description: 'Alpha', operator: 'Op' }], '9.1')));
    const ctx = ctxFor({
      NETINTEL_RDAP_BOOTSTRAP: `${mirror.url}/j/missing.json,${mirror.url}/j/dns.json`,
      NETINTEL_CT_LOG_LIST: `${mirror.url}/j/log_list.json`,
    });
    const rdap = await refreshDataset(ctx, 'rdap-bootstrap');
    expect(rdap).toMatchObject({ result: 'success', records: 1 });
    const ct = await refreshDataset(ctx, 'ct-logs');
    expect(ct).toMatchObject({ result: 'success', records: 1, version: 'log_list v9.1' });
    expect(readDatasetRow(ctx.db, 'ct_logs')?.records).toBe(1);
    const values = (await ctx.metrics.datasetRefresh.get()).values;
    // Counted once each, whoever counts.
    expect(values.filter((v) => v.labels.result === 'success').map((v) => [v.labels.dataset, v.value]).sort()).toEqual([
      ['ct_logs', 1],
      ['rdap_bootstrap', 1],
    ]);
    expect((await refreshDataset(ctx, 'rdap-bootstrap')).result).toBe('not_modified');
    mirror.update('/j/log_list.json', { body: Buffer.from('{"operators": "nope"}') });
    expect((await refreshDataset(ctx, 'ct-logs')).result).toBe('failure');
    expect(readDatasetRow(ctx.db, 'ct_logs')?.records).toBe(1);
  });
});
