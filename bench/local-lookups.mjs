#!/usr/bin/env node
// Helpers for bench/local-lookups.sh (loopback only, bounded: rounds × duration).
//   node bench/local-lookups.mjs gen <dir> <ips.txt>
//       writes <dir>/macs.txt (10,000 MACs under registered prefixes, mixed notations) and
//       <dir>/asns.txt (10,000 queries: AS numbers from the default prefix data and IPs from ips.txt)
//   node bench/local-lookups.mjs interleave --url http://127.0.0.1:8090 --pid N --ips ips.txt --macs macs.txt --asns asns.txt
//       [--rounds 5 --duration 10 --warmup 3 --connections 64 --cpu 1]
//       runs wrk (the shared ips.lua) against /v1/ip, /v1/mac and /v1/asn of ONE daemon in interleaved
//       rounds (ip mac asn, ip mac asn, ...) and prints medians and per-round ratios against /v1/ip.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SHARED = process.env.SHARED_BENCH ?? path.resolve(ROOT, '../shared/bench');

// Deterministic PRNG (mulberry32) so every run uses the same lists.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gen(dir, ipsFile) {
  const rand = rng(20261122);
  const hex = '0123456789ABCDEF';
  const oui = Object.keys(JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/oui-data/index.json'), 'utf8')));
  const macs = [];
  for (let i = 0; i < 10000; i++) {
    let h = oui[Math.floor(rand() * oui.length)];
    while (h.length < 12) h += hex[Math.floor(rand() * 16)];
    const style = i % 4;
    const pairs = h.match(/../g);
    macs.push(style === 0 ? pairs.join(':') : style === 1 ? pairs.join('-').toLowerCase() : style === 2 ? h.match(/..../g).join('.').toLowerCase() : h);
  }
  fs.writeFileSync(path.join(dir, 'macs.txt'), macs.join('\n') + '\n');

  const csv = fs.readFileSync(path.join(ROOT, 'node_modules/@ip-location-db/asn/asn-ipv4.csv'), 'utf8').split('\n');
  const ips = fs.readFileSync(ipsFile, 'utf8').split('\n').filter((l) => l.trim());
  const asns = [];
  for (let i = 0; i < 10000; i++) {
    if (i % 2 === 0) {
      const line = csv[Math.floor(rand() * (csv.length - 1))];
      const asn = line.split(',')[2];
      asns.push(`AS${asn}`);
    } else {
      asns.push(ips[Math.floor(rand() * ips.length)]);
    }
  }
  fs.writeFileSync(path.join(dir, 'asns.txt'), asns.join('\n') + '\n');
  console.log(`wrote ${dir}/macs.txt and ${dir}/asns.txt`);
}

function cpuTicks(pid) {
  try {
    const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return NaN;
  }
}

function wrk(o, list, prefix, seconds) {
  const s0 = cpuTicks(o.pid);
  const w0 = Date.now();
  const args = ['-c', String(o.cpu), 'wrk', '-t1', `-c${o.connections}`, `-d${seconds}s`, '--timeout', '5s', '-s', path.join(SHARED, 'ips.lua'), o.url];
  const r = spawnSync('taskset', args, { env: { ...process.env, IPS_FILE: list, PATH_PREFIX: prefix }, encoding: 'utf8', timeout: (seconds + 30) * 1000 });
  const line = (r.stdout || '').split('\n').find((l) => l.startsWith('WRKRESULT'));
  if (!line) throw new Error(`wrk failed: ${(r.stderr || r.stdout || '').slice(0, 300)}`);
  const out = {};
  for (const kv of line.slice(10).trim().split(/\s+/)) {
    const [k, v] = kv.split('=');
    out[k] = Number(v);
  }
  out.server_cpu = ((cpuTicks(o.pid) - s0) / 100 / ((Date.now() - w0) / 1000)) * 100;
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

async function interleave(o) {
  const targets = [
    { name: '/v1/ip', prefix: '/v1/ip/', list: o.ips },
    { name: '/v1/mac', prefix: '/v1/mac/', list: o.macs },
    { name: '/v1/asn', prefix: '/v1/asn/', list: o.asns },
  ];
  for (const t of targets) {
    const first = fs.readFileSync(t.list, 'utf8').split('\n').find((l) => l.trim());
    const res = await fetch(o.url + t.prefix + first);
    const body = await res.text();
    console.log(`check ${t.name}/${first}: HTTP ${res.status} ${body.slice(0, 200)}`);
    if (res.status !== 200) throw new Error(`${t.name} did not answer 200`);
    t.samples = [];
  }
  if (o.warmup > 0) for (const t of targets) wrk(o, t.list, t.prefix, o.warmup);
  for (let r = 1; r <= o.rounds; r++) {
    for (const t of targets) {
      const s = wrk(o, t.list, t.prefix, o.duration);
      t.samples.push(s);
      const bad = s.non2xx + s.sockerr + s.timeouts;
      console.log(`round ${r} ${t.name.padEnd(8)} ${Math.round(s.rps).toLocaleString('en-US').padStart(9)} req/s  p50 ${(s.p50_us / 1000).toFixed(2)} ms  p99 ${(s.p99_us / 1000).toFixed(2)} ms  server cpu ${s.server_cpu.toFixed(0)}%${bad ? `  errors=${bad}` : ''}`);
      spawnSync('sleep', ['1']);
    }
  }
  console.log('\n| endpoint | req/s median | p50 ms | p99 ms | req/s ÷ /v1/ip (median of per-round ratios) | errors |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const base = targets[0];
  for (const t of targets) {
    const ratio = median(t.samples.map((s, k) => s.rps / base.samples[k].rps));
    const errors = t.samples.reduce((a, s) => a + s.non2xx + s.sockerr + s.timeouts, 0);
    console.log(`| ${t.name} | ${Math.round(median(t.samples.map((s) => s.rps))).toLocaleString('en-US')} | ${(median(t.samples.map((s) => s.p50_us)) / 1000).toFixed(2)} | ${(median(t.samples.map((s) => s.p99_us)) / 1000).toFixed(2)} | ${ratio.toFixed(2)} | ${errors} |`);
  }
}

const [cmd, ...rest] = process.argv.slice(2);
if (cmd === 'gen') {
  gen(rest[0], rest[1]);
} else if (cmd === 'interleave') {
  const o = { url: 'http://127.0.0.1:8090', pid: 0, ips: path.join(SHARED, 'ips.txt'), macs: '', asns: '', rounds: 5, duration: 10, warmup: 3, connections: 64, cpu: '1' };
  for (let k = 0; k < rest.length; k += 2) {
    const key = rest[k].replace(/^--/, '');
    if (!(key in o)) throw new Error(`unknown option ${rest[k]}`);
    o[key] = typeof o[key] === 'number' ? Number(rest[k + 1]) : rest[k + 1];
  }
  await interleave(o);
} else {
  console.error('usage: local-lookups.mjs gen <dir> <ips.txt> | interleave --url U --pid N --ips F --macs F --asns F [...]');
  process.exit(2);
}
