#!/usr/bin/env node
// DNS lookup benchmark, loopback only, a few seconds per phase. Run after `npm run build`:
//   node bench/dns-bench.mjs [--duration 5] [--connections 50] [--samples 500]
//
// 1. Cached answers: GET /v1/dns/netintel.test?type=A on the daemon (1 worker, rate limits off,
//    warn-level logs) against a bare hyper-express "hello JSON" server, in the same run. The figure is
//    the ratio (target >= 0.7). With wrk and taskset on PATH (the default when present), both servers
//    are pinned to CPU 0 and wrk to CPU 1, interleaved over --rounds rounds: autocannon, a Node client,
//    saturates before either server does, so its ratio mostly measures itself. Without them, autocannon.
// 2. Uncached answers: `zero.netintel.test` has TTL 0, so every request goes to the resolver.
//    Sequential latency of a direct UDP query vs the same query through netintel over HTTP
//    (keep-alive); the difference of the percentiles is netintel's overhead.
// The loopback resolver, the hello server and the daemon each run in their own process.
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const role = process.argv[2];


// A tiny zone on UDP: netintel.test A (TTL 300) and zero.netintel.test A (TTL 0).
async function runResolver() {
  const { default: dns2 } = await import('dns2');
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (req, send) => {
      const res = Packet.createResponseFromRequest(req);
      const q = req.questions[0];
      const name = q?.name.toLowerCase();
      if (q?.type === 1 && (name === 'netintel.test' || name === 'zero.netintel.test')) {
        res.answers.push({ name: q.name, type: 1, class: 1, ttl: name === 'zero.netintel.test' ? 0 : 300, address: '192.0.2.1' });
      } else {
        res.header.rcode = 3;
      }
      send(res);
    },
  });
  const addrs = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  process.stdout.write(`${addrs.udp.port}\n`);
}

async function runHello(port) {
  const { default: HyperExpress } = await import('hyper-express');
  const app = new HyperExpress.Server();
  const body = JSON.stringify({ hello: 'world', domain: 'netintel.test', records: [{ name: 'netintel.test', type: 'A', ttl: 300, data: '192.0.2.1' }] });
  app.get('/hello', (_req, res) => {
    res.header('content-type', 'application/json; charset=utf-8');
    res.send(body);
  });
  await app.listen(port, '127.0.0.1');
  process.stdout.write('ready\n');
}

// Children die with the bench, whatever ends it (error, Ctrl-C, an outer `timeout`).
const children = new Set();
function killChildren() {
  for (const c of children) c.kill('SIGTERM');
}
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => { killChildren(); process.exit(130); });

function log(msg) {
  process.stderr.write(`[dns-bench] ${msg}\n`);
}

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const HAVE_WRK = ['wrk', 'taskset'].every((b) => (process.env.PATH ?? '').split(':').some((d) => fs.existsSync(path.join(d, b))));

function child(args, env = {}) {
  const [cmd, argv] = HAVE_WRK ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args];
  const p = spawn(cmd, argv, { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  p.stderr.on('data', (c) => process.stderr.write(c));
  children.add(p);
  p.once('exit', () => children.delete(p));
  const firstLine = new Promise((resolve, reject) => {
    let buf = '';
    let done = false;
    p.stdout.on('data', (c) => {
      buf += c;
      const nl = buf.indexOf('\n');
      if (nl >= 0 && !done) { done = true; resolve(buf.slice(0, nl)); }
    });
    p.once('exit', (code) => { if (!done) reject(new Error(`${args.join(' ')} exited with ${code} before it was ready`)); });
  });
  // Marked handled: a child that is never awaited (the daemon logs nothing at warn) must not turn its
  // normal exit into an unhandled rejection.
  firstLine.catch(() => undefined);
  return { proc: p, firstLine };
}

async function waitForHttp(url, deadlineMs = 30_000) {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    try {
      const r = await fetch(url);
      await r.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not come up`);
}

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: pct(s, 50), p99: pct(s, 99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

async function directQuery(port, Packet, n) {
  const sock = dgram.createSocket('udp4');
  await new Promise((r) => sock.connect(port, '127.0.0.1', r));
  const out = [];
  for (let i = 0; i < n; i++) {
    const id = (i * 7919) & 0xffff;
    const q = new Packet();
    q.header.id = id;
    q.header.rd = 1;
    q.questions.push({ name: 'zero.netintel.test', type: 1, class: 1 });
    const buf = q.toBuffer();
    const t = performance.now();
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('direct query timed out')), 2000);
      sock.once('message', (msg) => {
        clearTimeout(timer);
        Packet.parse(msg);
        resolve();
      });
      sock.send(buf);
    });
    out.push(performance.now() - t);
  }
  sock.close();
  return out;
}

async function viaNetintel(url, n) {
  const { request, Agent } = await import('undici');
  const agent = new Agent({ connections: 1 });
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await request(url, { dispatcher: agent });
    const body = await res.body.json();
    if (res.statusCode !== 200 || body.cached !== false) throw new Error(`unexpected answer ${res.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
    out.push(performance.now() - t);
  }
  await agent.close();
  return out;
}

/** req/s, p99 ms and non-2xx/socket errors of one pinned wrk run. */
function wrk(url, duration, connections) {
  return new Promise((resolve, reject) => {
    const p = spawn('taskset', ['-c', '1', 'wrk', '-t1', `-c${connections}`, `-d${duration}s`, '--latency', url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c) => { out += c; });
    p.once('exit', (code) => {
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
      if (code !== 0 || rps === null) return reject(new Error(`wrk failed (${code}): ${out}`));
      const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
      const ms = p99 === null ? null : Number(p99[1]) * { us: 1e-3, ms: 1, s: 1e3 }[p99[2]];
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const errors = non2xx + (sock === null ? 0 : sock.slice(1).reduce((a, b) => a + Number(b), 0));
      resolve({ rps: Number(rps[1]), p99: ms, errors });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Cached phase with pinned wrk, interleaved: hello, cached, 400, round after round. */
async function cachedWithWrk(urls, duration, rounds) {
  const runs = { hello: [], cached: [], floor: [] };
  for (const name of Object.keys(runs)) await wrk(urls[name], 1, 64); // warm-up
  for (let r = 1; r <= rounds; r++) {
    for (const name of Object.keys(runs)) {
      const res = await wrk(urls[name], duration, 64);
      runs[name].push(res);
      log(`round ${r} ${name.padEnd(6)} ${Math.round(res.rps)} req/s  p99 ${res.p99} ms`);
    }
  }
  const ratios = runs.cached.map((c, i) => c.rps / runs.hello[i].rps);
  return {
    client: 'wrk -t1 -c64, pinned (servers CPU 0, wrk CPU 1)',
    rounds,
    hello: median(runs.hello.map((x) => x.rps)),
    cached: median(runs.cached.map((x) => x.rps)),
    floor: median(runs.floor.map((x) => x.rps)),
    ratio: median(ratios),
    p99: median(runs.cached.map((x) => x.p99)),
    errors: runs.cached.reduce((a, x) => a + x.errors, 0),
  };
}

async function main() {
  const duration = arg('duration', 5);
  const connections = arg('connections', 50);
  const samples = arg('samples', 500);
  if (!fs.existsSync(path.join(ROOT, 'dist/cli.js'))) throw new Error('build first: npm run build');
  const self = fileURLToPath(import.meta.url);
  const { default: autocannon } = await import('autocannon');
  const { default: dns2 } = await import('dns2');

  const resolver = child([self, '--role-resolver']);
  const dnsPort = Number(await resolver.firstLine);
  const helloPort = await freePort();
  const hello = child([self, '--role-hello', String(helloPort)]);
  await hello.firstLine;
  const daemonPort = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netintel-bench-'));
  const daemon = child([path.join(ROOT, 'dist/cli.js'), 'serve'], {
    NETINTEL_HOST: '127.0.0.1', NETINTEL_PORT: String(daemonPort), NETINTEL_DATA_DIR: dataDir, NETINTEL_WORKERS: '1',
    NETINTEL_IMPORT_DEFAULTS: 'false', NETINTEL_LOG_LEVEL: 'warn', NETINTEL_RATE_LIMIT_NETWORK: '0', NETINTEL_RATE_LIMIT_LOCAL: '0',
    NETINTEL_DOH_URL: `udp://127.0.0.1:${dnsPort}`, NETINTEL_DRAIN_DELAY_MS: '0',
  });
  const cachedUrl = `http://127.0.0.1:${daemonPort}/v1/dns/netintel.test?type=A`;
  try {
    log('waiting for the daemon');
    await waitForHttp(cachedUrl);
    let cached;
    const floorUrl = `http://127.0.0.1:${daemonPort}/v1/dns/netintel.test?type=BOGUS`;
    if (HAVE_WRK) {
      cached = await cachedWithWrk({ hello: `http://127.0.0.1:${helloPort}/hello`, cached: cachedUrl, floor: floorUrl }, duration, arg('rounds', 3));
    } else {
      log('warm-up (wrk or taskset not found: autocannon)');
      const ac = (url) => autocannon({ url, connections, duration, pipelining: 1 });
      // Warm both servers briefly so JIT state is comparable.
      await autocannon({ url: `http://127.0.0.1:${helloPort}/hello`, connections, duration: 1 });
      await autocannon({ url: cachedUrl, connections, duration: 1 });
      const helloRes = await ac(`http://127.0.0.1:${helloPort}/hello`);
      const cachedRes = await ac(cachedUrl);
      // The same route answered 400 before any DNS work: what the HTTP layer alone costs, for scale.
      const floorRes = await ac(floorUrl);
      cached = {
        client: `autocannon, ${connections} connections`, rounds: 1,
        hello: helloRes.requests.average, cached: cachedRes.requests.average, floor: floorRes.requests.average,
        ratio: cachedRes.requests.average / helloRes.requests.average, p99: cachedRes.latency.p99,
        errors: cachedRes.errors + cachedRes.non2xx,
      };
    }
    const ratio = cached.ratio;

    log(`uncached: ${samples} direct queries, then ${samples} through netintel`);
    const direct = stats(await directQuery(dnsPort, dns2.Packet, samples));
    const through = stats(await viaNetintel(`http://127.0.0.1:${daemonPort}/v1/dns/zero.netintel.test?type=A`, samples));
    const r2 = (x) => Math.round(x * 1000) / 1000;
    const report = {
      cached: {
        client: cached.client,
        rounds: cached.rounds,
        hello_req_per_s: Math.round(cached.hello),
        netintel_req_per_s: Math.round(cached.cached),
        ratio: r2(ratio),
        target: 0.7,
        pass: ratio >= 0.7,
        netintel_p99_ms: cached.p99,
        netintel_400_req_per_s: Math.round(cached.floor),
        cached_vs_400_ratio: r2(cached.cached / cached.floor),
        errors: cached.errors,
        duration_s: duration,
      },
      uncached: {
        samples,
        direct_udp_ms: { p50: r2(direct.p50), p99: r2(direct.p99) },
        via_netintel_ms: { p50: r2(through.p50), p99: r2(through.p99) },
        overhead_ms: { p50: r2(through.p50 - direct.p50), p99: r2(through.p99 - direct.p99) },
      },
      machine: { cpus: os.cpus().length, node: process.version },
    };
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } finally {
    killChildren();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (role === '--role-resolver') await runResolver();
else if (role === '--role-hello') await runHello(Number(process.argv[3]));
else await main();
