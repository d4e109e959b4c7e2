// The single executable (npm run build:binary), built once here into a temp directory and run from an
// empty directory with no node_modules and a PATH without node: CLI, HTTP, worker threads, embedded
// migrations, native addons extracted to a private cache, JSON logs, and a clean SIGTERM.
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMmdb, flatRecord } from '../unit/datasets/mmdb-writer.js';
import { spawnLogged } from '../helpers/daemon.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'netintel-binary-'));
const binary = path.join(work, 'bin/netintel');
// Where the binary runs: nothing in it, and nothing on PATH (so no node either).
const emptyCwd = path.join(work, 'cwd');
const emptyPath = path.join(work, 'empty-path');

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: emptyPath, HOME: emptyCwd, TMPDIR: path.join(work, 'tmp'), ...extra };
}

function run(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(binary, args, { cwd: emptyCwd, env: baseEnv(env), encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Served {
  readonly url: string;
  readonly proc: ChildProcess;
  readonly logs: Record<string, unknown>[];
  readonly nonJson: string[];
  readonly stderr: string[];
  readonly exited: Promise<number | null>;
  readonly listening: Record<string, unknown>;
}

async function serve(env: Record<string, string>): Promise<Served> {
  const p = await spawnLogged(binary, ['serve'], {
    cwd: emptyCwd,
    env: baseEnv({ NETINTEL_HOST: '127.0.0.1', NETINTEL_PORT: '0', NETINTEL_WORKERS: '1', NETINTEL_DRAIN_DELAY_MS: '0', NETINTEL_IMPORT_DEFAULTS: 'false', ...env }),
  });
  return { ...p, url: `http://127.0.0.1:${p.listening['port'] as number}` };
}

async function stop(s: Served): Promise<number | null> {
  if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000).unref());
  const r = await Promise.race([s.exited, timeout]);
  if (r === 'timeout') {
    s.proc.kill('SIGKILL');
    throw new Error('binary did not exit within 15 s of SIGTERM');
  }
  return r;
}

async function getJson(url: string): Promise<{ status: number; type: string | null; body: Record<string, unknown> }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${url}: not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
  return { status: res.status, type: res.headers.get('content-type'), body };
}

beforeAll(() => {
  for (const d of [emptyCwd, emptyPath, path.join(work, 'tmp')]) fs.mkdirSync(d, { recursive: true });
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build-binary.mjs'), '--out', binary, '--work', path.join(work, 'sea'), '--quiet'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 280_000,
  });
  if (r.status !== 0) throw new Error(`npm run build:binary failed (${r.status}): ${r.stdout}${r.stderr}`);
  // Nothing of the build may be needed at run time.
  fs.rmSync(path.join(work, 'sea'), { recursive: true, force: true });
}, 300_000);

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

describe('the single executable', () => {
  it('is one executable file that prints its version without node or node_modules', () => {
    const st = fs.statSync(binary);
    expect(st.isFile()).toBe(true);
    expect(st.mode & 0o111).not.toBe(0);
    expect(fs.readdirSync(emptyCwd)).toEqual([]);
    const r = run(['--version']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`netintel ${VERSION}\n`);
    expect(r.status).toBe(0);
    expect(run(['version']).stdout).toBe(`netintel ${VERSION}\n`);
    // Outside systemd the addons go to a per-user 0700 directory under $TMPDIR.
    const cache = path.join(work, 'tmp', `netintel-native-${process.getuid!()}`);
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
    // uWS loads with the modules; better-sqlite3 only once a store is opened.
    expect(fs.readdirSync(cache)).toContainEqual(expect.stringMatching(/^[0-9a-f]{32}-uws\.node$/));
  });

  it('answers usage errors like the source build', () => {
    const r = run(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });

  it('reports a bad setting with one line and exit code 2', () => {
    const r = run(['serve'], { NETINTEL_PORT: 'eighty' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^netintel: config: NETINTEL_PORT/m);
  });

  it('runs a CLI lookup with the embedded code (no server)', () => {
    const r = run(['lookup', 'ip', '192.168.1.1'], { NETINTEL_DATA_DIR: path.join(work, 'cli-data'), NETINTEL_LOG_LEVEL: 'warn' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ip: '192.168.1.1', bogon: true });
  });
});

describe('serve from an empty data directory (one worker)', () => {
  let s: Served;
  const dataDir = path.join(work, 'data-empty');
  const cacheDir = path.join(work, 'systemd-cache');

  beforeAll(async () => {
    s = await serve({ NETINTEL_DATA_DIR: dataDir, CACHE_DIRECTORY: cacheDir });
  }, 90_000);
  afterAll(async () => {
    if (s !== undefined && s.proc.exitCode === null) await stop(s);
  });

  it('logs the chosen port in its JSON "listening" line', () => {
    expect(s.listening).toMatchObject({ step: 'listening', host: '127.0.0.1', workers: 1 });
    expect(s.listening['port']).toBeGreaterThan(0);
  });

  it('applied the embedded migrations to a new store', () => {
    const db = new Database(path.join(dataDir, 'netintel.db'), { readonly: true });
    const userVersion = db.pragma('user_version', { simple: true });
    db.close();
    const newest = Math.max(...fs.readdirSync(path.join(ROOT, 'migrations')).map((f) => Number(/^(\d+)_/.exec(f)?.[1] ?? 0)));
    expect(userVersion).toBe(newest);
  });

  it('extracted the native addons into $CACHE_DIRECTORY/native, private and keyed by hash', () => {
    const dir = path.join(cacheDir, 'native');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const files = fs.readdirSync(dir);
    expect(files.every((f) => /^[0-9a-f]{32}-\w+\.node$/.test(f))).toBe(true);
    expect(files.map((f) => f.replace(/^[0-9a-f]{32}-/, '')).sort()).toEqual(['better_sqlite3.node', 'uws.node']);
  });

  it('GET / answers health JSON', async () => {
    const r = await getJson(`${s.url}/`);
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/json; charset=utf-8');
    expect(r.body).toMatchObject({ name: 'netintel', version: 'v1' });
    expect(r.body['datasets']).toBeTypeOf('object');
  });

  it.each(['/v1/ip/8.8.8.8', '/v1/mac/B8:27:EB:12:34:56', '/v1/asn/AS13335', '/v1/asn/1.1.1.1'])(
    'GET %s answers JSON without data (a dataset error, not a crash)',
    async (p) => {
      const r = await getJson(s.url + p);
      expect(r.type).toBe('application/json; charset=utf-8');
      expect([200, 501, 503]).toContain(r.status);
      if (r.status !== 200) expect(r.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    },
  );

  it('validates input inside the binary', async () => {
    const r = await getJson(`${s.url}/v1/ip/1.2.3`);
    expect(r.status).toBe(400);
    expect(r.body['code']).toBe('invalid_ip');
  });

  it('serves the embedded docs page and OpenAPI document', async () => {
    const docs = await fetch(`${s.url}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('netintel API reference');
    const api = await getJson(`${s.url}/openapi.json`);
    expect(api.status).toBe(200);
    expect(api.body['openapi']).toMatch(/^3\.1/);
  });

  it('serves Prometheus metrics', async () => {
    const res = await fetch(`${s.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^# TYPE netintel_\w+/m);
    expect(text).toMatch(/^\w*process_resident_memory_bytes /m);
  });

  it('exits 0 on SIGTERM, having logged only JSON lines and nothing on stderr', async () => {
    expect(await stop(s)).toBe(0);
    expect(s.nonJson).toEqual([]);
    expect(s.stderr.join('')).toBe('');
    expect(s.logs.some((l) => l['step'] === 'stopped')).toBe(true);
    for (const l of s.logs) expect(l).toMatchObject({ service: 'netintel', level: expect.any(Number), time: expect.any(String) });
  });
});

// Small generated datasets (invented names), imported by the binary's own `netintel import`.
const PREFIXES_CSV = ['8.8.8.0,8.8.8.255,15169,Elbonia Search LLC', '1.1.1.0,1.1.1.255,13335,Mudflare Inc'].join('\n') + '\n';
const ASNAMES_TXT = ['13335 MUDFLARENET - Mudflare Inc, US', '15169 ELBONIA-SEARCH - Elbonia Search LLC, US'].join('\n') + '\n';
const RIR_STATS = [
  '2.3|arin|20260601|2|19700101|20260601|+0000',
  'arin|*|asn|*|2|summary',
  'arin|US|asn|13335|1|20100714|assigned|0001',
  'arin|US|asn|15169|1|20000330|assigned|0002',
].join('\n') + '\n';
const OUI_CSV = ['Registry,Assignment,Organization Name,Organization Address', 'MA-L,B827EB,Mudberry Pi Trading Ltd,"1 Mud Street Cambridge  GB CB4 0DS "'].join('\n') + '\n';

describe('serve with imported data and two worker threads', () => {
  let s: Served;
  const dataDir = path.join(work, 'data-imported');

  beforeAll(async () => {
    const fixtures = path.join(work, 'fixtures');
    fs.mkdirSync(fixtures, { recursive: true });
    const files = {
      prefixes: path.join(fixtures, 'asn-ipv4.csv'),
      oui: path.join(fixtures, 'oui.csv'),
      geo: path.join(fixtures, 'geo.mmdb'),
      asnames: path.join(fixtures, 'asn.txt'),
      rir: path.join(fixtures, 'delegated-arin-extended-latest'),
    };
    fs.writeFileSync(files.asnames, ASNAMES_TXT);
    fs.writeFileSync(files.rir, RIR_STATS);
    fs.writeFileSync(files.prefixes, PREFIXES_CSV);
    fs.writeFileSync(files.oui, OUI_CSV);
    fs.writeFileSync(
      files.geo,
      buildMmdb({ ipVersion: 6, databaseType: 'DBIP-City-Lite', networks: [{ cidr: '8.8.8.0/24', data: flatRecord('US', 'Mudville', 37.422, -122.085) }] }),
    );
    for (const [name, file] of Object.entries(files)) {
      const r = run(['import', name, file], { NETINTEL_DATA_DIR: dataDir, NETINTEL_LOG_LEVEL: 'warn' });
      if (r.status !== 0) throw new Error(`netintel import ${name} inside the binary failed (${r.status}): ${r.stdout}${r.stderr}`);
    }
    s = await serve({ NETINTEL_DATA_DIR: dataDir, NETINTEL_WORKERS: '2' });
  }, 120_000);
  afterAll(async () => {
    if (s !== undefined && s.proc.exitCode === null) await stop(s);
  });

  it('starts both workers', () => {
    expect(s.listening['workers']).toBe(2);
  });

  it.each([
    ['/v1/ip/8.8.8.8', { ip: '8.8.8.8', city: 'Mudville', country_code: 'US', asn: 15169 }],
    ['/v1/mac/B8:27:EB:12:34:56', { vendor: 'Mudberry Pi Trading Ltd' }],
    ['/v1/asn/1.1.1.1', { asn: 13335 }],
    ['/v1/asn/AS15169', { asn: 15169 }],
  ])('GET %s answers 200 from the data directory', async (p, expected) => {
    const r = await getJson(s.url + p);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.type).toBe('application/json; charset=utf-8');
    expect(r.body).toMatchObject(expected);
  });

  it('serves many fresh connections across the workers without errors', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const res = await fetch(`${s.url}/v1/ip/8.8.8.8`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(10_000) });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses.every((x) => x === 200)).toBe(true);
  });

  it('aggregates metrics over both workers and exits 0 on SIGTERM', async () => {
    const text = await (await fetch(`${s.url}/metrics`)).text();
    expect(text).toMatch(/^# TYPE netintel_\w+/m);
    expect(await stop(s)).toBe(0);
    expect(s.stderr.join('')).toBe('');
    expect(s.nonJson).toEqual([]);
  });
});
