#!/usr/bin/env node
// CPU time of one /v1/ip, /v1/mac and /v1/asn answer in process: the bytes each route sends, from the
// parameter, over the benchmark's own inputs (ips.txt; macs.txt and asns.txt from local-lookups.mjs gen).
// Each answer can be preceded by writes over POLLUTE_KB of other memory (default 64): under HTTP load
// the kernel's networking evicts the lookup's data between requests, so its cache misses are what an
// answer costs there. Without it ("unpolluted") the 10,000 inputs' own data still outgrows the core's caches.
// With --against <dist dir of another build> the same datasets are answered by both builds' answerers
// in alternating rounds (an A/B that the host's noise does not swamp; that build's answerers must only
// need interfaces this build's datasets still offer).
//   node bench/answer-cost.mjs [--data DIR] [--against DIR] [--rounds N]   (after npm run build)
// Without --data the default data is imported into a temporary directory first (~10 s).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';

const root = path.resolve(import.meta.dirname, '..');
const shared = path.resolve(root, '..', 'shared', 'bench');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const rounds = Number(opt('--rounds', 8));
const perRound = 100_000;
const polluteBytes = Number(process.env.POLLUTE_KB ?? 64) * 1024;

const load = (dir, file) => import(path.resolve(dir, file));
const { loadConfig } = await load(path.join(root, 'dist'), 'config.js');
const { createContext } = await load(path.join(root, 'dist'), 'main.js');
const { Metrics } = await load(path.join(root, 'dist'), 'platform/metrics.js');
const { prepareDatasets } = await load(path.join(root, 'dist'), 'datasets/defaults.js');

let dataDir = opt('--data');
let scratch = null;
if (dataDir === undefined) scratch = dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netintel-answer-cost-'));
const ctx = createContext(loadConfig({ NETINTEL_DATA_DIR: dataDir, NETINTEL_IMPORT_DEFAULTS: scratch === null ? 'false' : 'true' }), pino({ level: 'silent' }), new Metrics({ defaultMetrics: false }));
await prepareDatasets(ctx);

const lists = fs.mkdtempSync(path.join(os.tmpdir(), 'netintel-answer-lists-'));
execFileSync(process.execPath, [path.join(root, 'bench', 'local-lookups.mjs'), 'gen', lists, path.join(shared, 'ips.txt')], { stdio: 'ignore' });
const read = (f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean);
const inputs = { ip: read(path.join(shared, 'ips.txt')), mac: read(path.join(lists, 'macs.txt')), asn: read(path.join(lists, 'asns.txt')) };

async function answerers(dist) {
  return {
    ip: (await load(dist, 'lookups/ip/index.js')).createIpBytesAnswerer(ctx.datasets),
    mac: (await load(dist, 'lookups/mac/index.js')).createMacBytesAnswerer(ctx.datasets),
    asn: (await load(dist, 'lookups/asn/index.js')).createAsnBytesAnswerer(ctx.datasets),
  };
}
const builds = [{ name: 'this build', fns: await answerers(path.join(root, 'dist')) }];
const against = opt('--against');
if (against !== undefined) builds.push({ name: path.basename(path.resolve(against)), fns: await answerers(path.resolve(against)) });
// Both builds must give the same bytes, or the comparison means nothing.
for (const kind of Object.keys(inputs)) {
  for (const q of inputs[kind]) {
    const texts = builds.map((b) => Buffer.from(b.fns[kind](q)).toString());
    if (texts.some((t) => t !== texts[0])) throw new Error(`the builds answer ${kind} ${q} differently`);
  }
}

const junk = new Uint8Array(Math.max(64, polluteBytes) * 2);
let half = 0;
const pollute = (bytes) => {
  // Alternate halves, one write per cache line: a fresh 64 KB of lines each time.
  const start = half;
  for (let p = start; p < start + bytes; p += 64) junk[p]++;
  half = half === 0 ? bytes : 0;
};
let sink = 0;
const cpu = (fn) => {
  const t = process.cpuUsage();
  fn();
  const c = process.cpuUsage(t);
  return (c.user + c.system) / perRound;
};
const run = (fn, list, bytes) => cpu(() => {
  for (let i = 0; i < perRound; i++) {
    if (bytes > 0) pollute(bytes);
    sink += fn(list[i % list.length]).length;
  }
});
const baseline = (bytes) => cpu(() => {
  for (let i = 0; i < perRound; i++) if (bytes > 0) pollute(bytes);
});

const results = {};
for (const kind of Object.keys(inputs)) {
  for (const b of builds) for (let i = 0; i < 2; i++) run(b.fns[kind], inputs[kind], polluteBytes); // JIT and caches
  for (const [label, bytes] of [['polluted', polluteBytes], ['unpolluted', 0]]) {
    const samples = builds.map(() => []);
    for (let r = 0; r < rounds; r++) {
      const base = baseline(bytes);
      const order = r % 2 === 0 ? builds.map((_, k) => k) : builds.map((_, k) => builds.length - 1 - k);
      for (const k of order) samples[k].push(run(builds[k].fns[kind], inputs[kind], bytes) - base);
    }
    builds.forEach((b, k) => {
      const s = samples[k].sort((x, y) => x - y);
      results[`${kind} ${label} (${b.name})`] = { median_us: +s[s.length >> 1].toFixed(3), min_us: +s[0].toFixed(3), max_us: +s[s.length - 1].toFixed(3) };
    });
  }
}
console.table(results);
console.log(`µs of CPU per answer (median of ${rounds} rounds of ${perRound}); polluted = after ${polluteBytes / 1024} KB of other writes; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
fs.rmSync(lists, { recursive: true, force: true });
if (scratch !== null) fs.rmSync(scratch, { recursive: true, force: true });
ctx.db.close();
process.exit(sink === -1 ? 1 : 0);
