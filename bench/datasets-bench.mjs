#!/usr/bin/env node
// Datasets benchmark (run after `npm run build`): full default import, in-process lookup rates, and the
// resident size of `node dist/cli.js serve` with all default data loaded. Loopback only, bounded in time.
//   node bench/datasets-bench.mjs [--keep]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';

const root = path.resolve(import.meta.dirname, '..');
const dist = (p) => path.join(root, 'dist', p);
const { loadConfig } = await import(dist('config.js'));
const { createContext } = await import(dist('main.js'));
const { Metrics } = await import(dist('platform/metrics.js'));
const { prepareDatasets } = await import(dist('datasets/defaults.js'));
const { createIpBytesAnswerer } = await import(dist('lookups/ip/index.js'));

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netintel-bench-'));
const results = {};

// 1. Full default import (what a first start does), then the index build.
{
  const log = pino({ level: 'silent' });
  const ctx = createContext(loadConfig({ NETINTEL_DATA_DIR: dataDir }), log, new Metrics({ defaultMetrics: false }));
  const t0 = performance.now();
  await prepareDatasets(ctx);
  results.default_import_and_load_s = +((performance.now() - t0) / 1000).toFixed(2);
  results.records = Object.fromEntries(Object.entries(ctx.datasets.status()).map(([k, v]) => [k, v.records]));

  // 2. In-process lookups, each for a bounded time on pre-generated inputs.
  const rand = (n) => Math.floor(Math.random() * n);
  const v4 = Array.from({ length: 100_000 }, () => `${1 + rand(223)}.${rand(256)}.${rand(256)}.${rand(256)}`);
  const v6 = Array.from({ length: 100_000 }, () => `2${rand(16).toString(16)}0${rand(16).toString(16)}:${rand(65536).toString(16)}:${rand(65536).toString(16)}::${rand(65536).toString(16)}`);
  const ouiKeys = ctx.db.prepare('SELECT prefix FROM oui').pluck().all();
  const macs = Array.from({ length: 100_000 }, () => (ouiKeys[rand(ouiKeys.length)] + '000000000').slice(0, 6) + rand(0xffffff).toString(16).toUpperCase().padStart(6, '0'));
  // Wall-clock and CPU rates: the machine is shared, so CPU time is the fairer figure under load.
  const rate = (label, inputs, fn) => {
    // Warm-up: JIT, and each input's first answer (formatted once, then cached per range/record).
    for (let i = 0; i < inputs.length; i++) fn(inputs[i]);
    let n = 0;
    let hits = 0;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    while (performance.now() - t0 < 2000) {
      for (let i = 0; i < 1000; i++) if (fn(inputs[(n + i) % inputs.length]) !== null) hits++;
      n += 1000;
    }
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(c0);
    const cpuSecs = (cpu.user + cpu.system) / 1e6;
    results[label] = { per_wall_second: Math.round(n / wall), per_cpu_second: Math.round(n / cpuSecs), hit_rate: +(hits / n).toFixed(3) };
  };
  const prefixes = ctx.datasets.prefixes;
  const oui = ctx.datasets.oui;
  const geo = ctx.datasets.geo;
  rate('ip_to_prefix_v4', v4, (ip) => prefixes.lookup(ip));
  rate('ip_to_prefix_v6', v6, (ip) => prefixes.lookup(ip));
  rate('oui', macs, (m) => oui.lookup(m));
  rate('geo_mmdb_v4_random', v4, (ip) => geo.lookup(ip));
  const hot = v4.slice(0, 1000);
  rate('geo_mmdb_v4_hot1000', hot, (ip) => geo.lookup(ip));
  rate('geo_mmdb_v6_random', v6, (ip) => geo.lookup(ip));
  // The whole /v1/ip answer as the HTTP route sends it (parse, bogon check, geo + prefix lookups, the
  // per-record and per-range caches, the bytes copied together): what the lookup adds to a request.
  const answer = createIpBytesAnswerer(ctx.datasets);
  rate('ip_answer_bytes_v4_random', v4, (ip) => answer(ip));
  rate('ip_answer_bytes_v4_hot1000', hot, (ip) => answer(ip));
  results.load_average = os.loadavg().map((l) => +l.toFixed(1));
  results.bench_process_rss_mb = Math.round(process.memoryUsage().rss / 1048576);
  ctx.db.close();
}

// 3. RSS of the daemon (2 HTTP workers + main thread) with all default data loaded: at "listening", then
//    SETTLE_S (30) seconds later, and the peak.
{
  const proc = spawn(process.execPath, [dist('cli.js'), 'serve'], {
    env: { PATH: process.env.PATH, NETINTEL_HOST: '127.0.0.1', NETINTEL_PORT: '0', NETINTEL_DATA_DIR: dataDir, NETINTEL_WORKERS: '2', NETINTEL_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const t0 = performance.now();
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('daemon did not start in 60 s')), 60_000);
    let buf = '';
    proc.stdout.on('data', (c) => {
      buf += c;
      for (const line of buf.split('\n')) {
        try {
          const e = JSON.parse(line);
          if (e.step === 'listening') {
            clearTimeout(timer);
            resolve(e.port);
          }
        } catch {}
      }
      buf = buf.slice(buf.lastIndexOf('\n') + 1);
    });
  });
  results.daemon_start_with_loaded_data_s = +((performance.now() - t0) / 1000).toFixed(2);
  for (let i = 0; i < 200; i++) await (await fetch(`http://127.0.0.1:${port}/`)).arrayBuffer();
  const memory = () => {
    const status = fs.readFileSync(`/proc/${proc.pid}/status`, 'utf8');
    return { rss: Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024), peak: Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024) };
  };
  results.daemon_rss_mb = memory().rss;
  // Loading leaves garbage on the main thread that V8's memory reducer collects once the thread has
  // been idle for a while (~20 s here): the footprint after that is what the daemon keeps.
  await new Promise((r) => setTimeout(r, Number(process.env.SETTLE_S ?? 30) * 1000));
  const settled = memory();
  results.daemon_rss_settled_mb = settled.rss;
  results.daemon_rss_peak_mb = settled.peak;
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
}

if (!process.argv.includes('--keep')) fs.rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify(results, null, 2));
