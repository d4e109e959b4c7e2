// Dataset refresh end to end against the built daemon and a loopback mirror: the CLI refreshes and
// signals the daemon; SIGHUP swaps under concurrent HTTP lookups with no failed or mixed answer; a
// daemon killed with SIGKILL in the middle of a refresh restarts on the last good data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CLI, ROOT, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';
import { startMirror, type Mirror } from '../helpers/mirror.js';

let mirror: Mirror;
const daemons: Daemon[] = [];
beforeAll(async () => {
  mirror = await startMirror();
});
afterAll(async () => {
  for (const d of daemons) if (d.proc.exitCode === null && d.proc.signalCode === null) await d.stop();
  await mirror.close();
});

// Version 1: /16 blocks of AS13335; version 2: /24 blocks of AS15169. A mixed answer would pair an AS
// with the other version's prefix length.
function v1(): string {
  return Array.from({ length: 200 }, (_, i) => `44.${i}.0.0\t16\t13335`).join('\n') + '\n';
}
function v2(): string {
  return Array.from({ length: 400 }, (_, i) => `44.${i >> 1}.${i & 1}.0\t24\t15169`).join('\n') + '\n';
}
const EXPECTED: Record<number, string> = { 13335: '44.5.0.0/16', 15169: '44.5.0.0/24' };

function env(dataDir: string, p: string): Record<string, string> {
  return {
    NETINTEL_DATA_DIR: dataDir,
    NETINTEL_SOURCE_PREFIXES: `${mirror.url}${p}`,
    NETINTEL_SOURCE_GEO: 'none',
    NETINTEL_SOURCE_OUI: 'none',
    NETINTEL_SOURCE_RIR: 'none',
    NETINTEL_SOURCE_ASNAMES: 'none',
    NETINTEL_RDAP_BOOTSTRAP: 'none',
    NETINTEL_CT_LOG_LIST: 'none',
    NETINTEL_REFRESH_TIMEOUT_MS: '20000',
  };
}

// Asynchronous: the mirror lives in this process and must keep answering while the CLI runs.
function cli(args: string[], e: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', NETINTEL_LOG_LEVEL: 'warn', NETINTEL_IMPORT_DEFAULTS: 'false', ...e },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function asnOf(d: Daemon, ip = '44.5.0.9'): Promise<{ status: number; asn: number | null; prefix: string | null }> {
  const res = await fetch(`${d.url}/v1/asn/${ip}`);
  const body = (await res.json()) as { asn?: number | null; prefix?: string | null };
  return { status: res.status, asn: body.asn ?? null, prefix: body.prefix ?? null };
}

async function until<T>(what: string, f: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  let last: T | undefined;
  for (let i = 0; i < 600 && Date.now() < end; i++) {
    last = await f();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: still ${JSON.stringify(last)}`);
}

describe('refresh (daemon)', () => {
  it('CLI refresh signals the daemon; SIGHUP swaps under concurrent lookups without a failed or mixed answer', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const e = env(dataDir, '/swap/pfx2as.txt');
    mirror.put('/swap/pfx2as.txt', v1());
    const d = await startDaemon({ dataDir, env: e });
    daemons.push(d);
    expect((await asnOf(d)).asn).toBeNull();

    const r = await cli(['refresh', 'prefixes'], e);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/success: prefixes: 200 records active/);
    expect(r.stdout).toMatch(/Sent SIGHUP to the daemon/);
    expect(await until('daemon picks up the CLI refresh', () => asnOf(d), (a) => a.asn === 13335)).toEqual({ status: 200, asn: 13335, prefix: '44.5.0.0/16' });

    // A second CLI run: every source unchanged.
    const again = await cli(['refresh', 'prefixes'], e);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/not modified/);

    mirror.put('/swap/pfx2as.txt', v2());
    const problems: string[] = [];
    const seen = new Map<number, number>();
    let stop = false;
    let after = 0;
    const reader = async (): Promise<void> => {
      for (let i = 0; i < 5000 && !stop; i++) {
        try {
          const a = await asnOf(d);
          if (a.status !== 200 || a.asn === null || EXPECTED[a.asn] !== a.prefix) problems.push(JSON.stringify(a));
          else seen.set(a.asn, (seen.get(a.asn) ?? 0) + 1);
          if (a.asn === 15169 && ++after >= 200) stop = true;
        } catch (err) {
          problems.push(String(err));
        }
      }
    };
    const readers = Promise.all([reader(), reader(), reader(), reader()]);
    await until('readers running', async () => seen.get(13335) ?? 0, (n) => n >= 50);
    d.proc.kill('SIGHUP');
    await readers;
    expect(problems).toEqual([]);
    expect(seen.get(15169) ?? 0).toBeGreaterThanOrEqual(200);
    expect(d.proc.exitCode).toBeNull();

    const health = (await (await fetch(`${d.url}/`)).json()) as { datasets: { asn: { parts: Record<string, { records: number; last_error: string | null; dataset: string }> } } };
    expect(health.datasets.asn.parts['prefixes']).toMatchObject({ records: 400, last_error: null, dataset: 'pfx2as.txt' });
    // The refresh's bookkeeping (rollback copy, counters) follows activation on the main thread.
    const metrics = await until('refresh counted', async () => (await fetch(`${d.url}/metrics`)).text(), (t) => /refresh_total\{dataset="prefixes",result="success"\}/.test(t));
    expect(metrics).toMatch(/netintel_dataset_refresh_total\{dataset="prefixes",result="success"\} 1/);
    expect(metrics).toMatch(/netintel_dataset_records\{dataset="prefixes"\} 400/);

    // A failing upstream: the daemon keeps serving, health shows the error.
    mirror.update('/swap/pfx2as.txt', { status: 500 });
    d.proc.kill('SIGHUP');
    await until('failure recorded', async () => (await (await fetch(`${d.url}/metrics`)).text()).match(/dataset_refresh_total\{dataset="prefixes",result="failure"\} (\d+)/)?.[1], (n) => n === '1');
    expect(await asnOf(d)).toEqual({ status: 200, asn: 15169, prefix: '44.5.0.0/24' });
    const h2 = await until(
      'health shows the error',
      async () => ((await (await fetch(`${d.url}/`)).json()) as { datasets: { asn: { last_error: string | null } } }).datasets.asn.last_error,
      (err) => err !== null,
    );
    expect(h2).toMatch(/HTTP 500/);

    // Rollback through the CLI: back to version 1, picked up by the daemon.
    const rb = await cli(['refresh', 'prefixes', '--rollback'], e);
    expect(rb.code, rb.stderr).toBe(0);
    expect(await until('rollback picked up', () => asnOf(d), (a) => a.asn === 13335)).toEqual({ status: 200, asn: 13335, prefix: '44.5.0.0/16' });
    mirror.update('/swap/pfx2as.txt', { status: undefined });
    await d.stop();
  });

  it('a daemon killed with SIGKILL mid-refresh restarts on the previous data, and refreshes cleanly', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const e = env(dataDir, '/kill/pfx2as.txt');
    mirror.put('/kill/pfx2as.txt', v1());
    expect((await cli(['refresh'], e)).code).toBe(0);
    const d = await startDaemon({ dataDir, env: e });
    daemons.push(d);
    expect((await asnOf(d)).asn).toBe(13335);

    mirror.put('/kill/pfx2as.txt', v2(), { stallAt: 2000 });
    const before = mirror.requests.length;
    d.proc.kill('SIGHUP');
    await until('download started', async () => mirror.requests.slice(before).some((r) => r.path === '/kill/pfx2as.txt' && r.status === 200), (v) => v);
    const staging = path.join(dataDir, 'staging');
    await until('staged file written', async () => fs.readdirSync(staging).some((f) => /^\d+-refresh-prefixes-/.test(f)), (v) => v);
    d.proc.kill('SIGKILL');
    await d.exited;
    expect(fs.readdirSync(staging).some((f) => f.endsWith('.lock'))).toBe(true);

    mirror.update('/kill/pfx2as.txt', { stallAt: undefined });
    const d2 = await startDaemon({ dataDir, env: e });
    daemons.push(d2);
    expect(await asnOf(d2)).toEqual({ status: 200, asn: 13335, prefix: '44.5.0.0/16' });
    expect(fs.readdirSync(staging).filter((f) => /^\d+-refresh-/.test(f) || f.endsWith('.lock'))).toEqual([]);
    d2.proc.kill('SIGHUP');
    expect(await until('refresh after restart', () => asnOf(d2), (a) => a.asn === 15169)).toEqual({ status: 200, asn: 15169, prefix: '44.5.0.0/24' });
    // The copy kept for rollback is written right after activation, so it may trail the first new answer.
    const kept = path.join(dataDir, 'previous', 'prefixes');
    const listing = async (): Promise<string[]> => (fs.existsSync(kept) ? fs.readdirSync(kept).sort() : []);
    expect(await until('previous version kept', listing, (l) => l.includes('meta.json'))).toEqual(['00-pfx2as.txt', 'meta.json']);
    await d2.stop();
  });

  it('a refresh killed with SIGKILL in the middle of its import leaves the last good data', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const e = env(dataDir, '/import-kill/pfx2as.txt');
    mirror.put('/import-kill/pfx2as.txt', v1());
    expect((await cli(['refresh', 'prefixes'], e)).code).toBe(0);
    // Big enough that the import takes a while: 200k /24 blocks of AS15169.
    const big = Array.from({ length: 200_000 }, (_, i) => `45.${i >> 8 & 255}.${i & 255}.0\t24\t15169`);
    big.unshift('44.5.0.0\t24\t15169');
    mirror.put('/import-kill/pfx2as.txt', big.join('\n') + '\n');
    const child = spawn(process.execPath, [CLI, 'refresh', 'prefixes'], {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', NETINTEL_LOG_LEVEL: 'warn', ...e },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const db = new Database(path.join(dataDir, 'netintel.db'), { readonly: true, fileMustExist: true });
    try {
      await until(
        'import under way',
        async () => db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name GLOB 'asn_prefix_staging_*'").pluck().get() as number,
        (n) => n > 0,
        60_000,
      );
    } finally {
      db.close();
    }
    child.kill('SIGKILL');
    await exited;
    const d = await startDaemon({ dataDir, env: e });
    daemons.push(d);
    expect(await asnOf(d)).toEqual({ status: 200, asn: 13335, prefix: '44.5.0.0/16' });
    const health = (await (await fetch(`${d.url}/`)).json()) as { datasets: { asn: { parts: Record<string, { records: number }> } } };
    expect(health.datasets.asn.parts['prefixes']!.records).toBe(200);
    await d.stop();
    const check = new Database(path.join(dataDir, 'netintel.db'), { readonly: true });
    try {
      expect(check.prepare("SELECT name FROM sqlite_master WHERE name GLOB '*_staging_*'").pluck().all()).toEqual([]);
    } finally {
      check.close();
    }
    expect(fs.readdirSync(path.join(dataDir, 'staging')).filter((f) => /^\d+-/.test(f) || f.endsWith('.lock'))).toEqual([]);
  });

  it('the CLI exits non-zero on failure, rejects bad arguments, and needs a kept version to roll back', { timeout: 60_000 }, async () => {
    const dataDir = tempDir();
    const e = env(dataDir, '/cli/missing.txt');
    const r = await cli(['refresh', 'prefixes'], e);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/FAILED: prefixes: .*HTTP 404/);
    expect((await cli(['refresh', 'nope'], e)).code).toBe(2);
    expect((await cli(['refresh', '--rollback'], e)).code).toBe(2);
    const rb = await cli(['refresh', 'oui', '--rollback'], e);
    expect(rb.code).toBe(1);
    expect(rb.stderr).toMatch(/no previous version/);
  });
});
