// The common rules of API.md, checked over real HTTP against the built daemon.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type',
};

function expectCommonHeaders(res: Response): void {
  for (const [k, v] of Object.entries(CORS)) expect(res.headers.get(k), k).toBe(v);
  expect(res.headers.get('access-control-expose-headers')).toMatch(/RateLimit-Limit.*Retry-After.*X-Request-Id/);
  expect(res.headers.get('x-request-id')).toBeTruthy();
}

async function expectError(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expectCommonHeaders(res);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'docs', 'error']);
  expect(body['code']).toBe(code);
  expect(typeof body['error']).toBe('string');
  expect(String(body['error'])).not.toMatch(/\n\s+at |\/work\/|node_modules/);
  return body;
}

/** Sends a raw HTTP request line (fetch cannot send every method or path shape). */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => sock.end(text));
    let out = '';
    sock.on('data', (d) => (out += d.toString()));
    sock.on('end', () => resolve(out));
    sock.on('error', reject);
    sock.setTimeout(5000, () => sock.destroy(new Error('timeout')));
  });
}

describe('common HTTP rules', () => {
  let d: Daemon;
  beforeAll(async () => {
    d = await startDaemon();
  });
  afterAll(async () => {
    await d?.stop();
  });

  it('GET / answers the health resource', async () => {
    const res = await fetch(`${d.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expectCommonHeaders(res);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body['name']).toBe('netintel');
    expect(body['version']).toBe('v1');
    expect(['operational', 'degraded']).toContain(body['status']);
    expect(body['docs']).toBe(`${d.url}/docs`);
    expect(body['endpoints']).toEqual([
      'GET /v1/ip/{ip}', 'GET /v1/dns/{domain}?type=A', 'GET /v1/whois/{domain}', 'GET /v1/ssl/{domain}',
      'GET /v1/ping/{host}', 'GET /v1/mac/{mac}', 'GET /v1/asn/{asn_or_ip}',
    ]);
    const datasets = body['datasets'] as Record<string, Record<string, unknown>>;
    for (const k of ['geo', 'oui', 'asn', 'rdap_bootstrap', 'ct_logs']) expect(datasets[k], k).toHaveProperty('loaded');
    expect(typeof body['uptime_seconds']).toBe('number');
  });

  it('uses NETINTEL_DOCS_URL style docs address from the Host header', async () => {
    const out = await rawRequest(d.port, 'GET / HTTP/1.1\r\nHost: netintel.example:8080\r\nConnection: close\r\n\r\n');
    expect(out).toContain('"docs":"http://netintel.example:8080/docs"');
  });

  it('sends each common header exactly once as its own well-formed line, on every kind of answer', async () => {
    // The fixed headers leave uWS as one pre-encoded run: check the wire, not a parser's view of it.
    const paths = ['/', '/v1/asn/AS13335', '/v1/ip/not-an-ip', '/docs', '/nope', '/v1/dns/example.com?type=BOGUS'];
    for (const p of paths) {
      const out = await rawRequest(d.port, `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      const [head] = out.split('\r\n\r\n');
      const [statusLine, ...lines] = head!.split('\r\n');
      expect(statusLine, p).toMatch(/^HTTP\/1\.1 \d{3} [A-Za-z ]+$/);
      for (const line of lines) expect(line, `${p}: ${JSON.stringify(line)}`).toMatch(/^[A-Za-z][A-Za-z0-9-]*: [\x20-\x7e]*$/);
      const names = lines.map((l) => l.slice(0, l.indexOf(':')).toLowerCase());
      for (const name of [...Object.keys(CORS), 'access-control-expose-headers', 'cache-control', 'content-type', 'x-request-id', 'content-length']) {
        expect(names.filter((n) => n === name), `${p}: ${name}`).toHaveLength(1);
      }
    }
  });

  it('echoes a sane X-Request-Id and replaces an insane one', async () => {
    const ok = await fetch(`${d.url}/`, { headers: { 'x-request-id': 'abc-123.def' } });
    expect(ok.headers.get('x-request-id')).toBe('abc-123.def');
    const bad = await fetch(`${d.url}/`, { headers: { 'x-request-id': 'x'.repeat(300) } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const twice = [await fetch(`${d.url}/`), await fetch(`${d.url}/`)].map((r) => r.headers.get('x-request-id'));
    expect(twice[0]).not.toBe(twice[1]);
  });

  it('joins a repeated request header with ", " (so a doubled X-Request-Id is not sane and is replaced)', async () => {
    const out = await rawRequest(d.port, 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc\r\nX-Request-Id: abc\r\nConnection: close\r\n\r\n');
    expect(out).toMatch(/\r\nx-request-id: [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\r\n/i);
    const single = await rawRequest(d.port, 'GET /v1/ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc\r\nConnection: close\r\n\r\n');
    expect(single).toMatch(/\r\nx-request-id: abc\r\n/i);
  });

  it('echoes each id exactly, whatever the length of the one before, on every kind of answer', async () => {
    const ids = ['a'.repeat(128), 'b', 'c'.repeat(36), 'Z9._:@/+=-', 'd'.repeat(127), 'e'];
    for (const path of ['/', '/v1/ip/8.8.8.8', '/v1/mac/zz', '/nope']) {
      for (const id of ids) {
        const res = await fetch(`${d.url}${path}`, { headers: { 'x-request-id': id } });
        expect(res.headers.get('x-request-id'), `${path} ${id.length}`).toBe(id);
        await res.arrayBuffer();
      }
    }
  });

  it('answers unknown paths, including /v2, with a 404 JSON error', async () => {
    for (const p of ['/nope', '/v2/ip/8.8.8.8', '/v1/', '/v1/unknown/x', '/V1/ip/1.1.1.1']) {
      await expectError(await fetch(`${d.url}${p}`), 404, 'not_found');
    }
  });

  it('answers other methods with 405 and Allow', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${d.url}/v1/ip/8.8.8.8`, { method });
      await expectError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('GET, OPTIONS');
    }
    const res = await fetch(`${d.url}/`, { method: 'DELETE' });
    await expectError(res, 405, 'method_not_allowed');
  });

  it('answers CORS preflights with 204 on any path', async () => {
    for (const p of ['/v1/ip/8.8.8.8', '/', '/anything']) {
      const res = await fetch(`${d.url}${p}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://other.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      expect(res.status).toBe(204);
      expectCommonHeaders(res);
      expect(res.headers.get('access-control-max-age')).toBe('86400');
      expect(await res.text()).toBe('');
    }
  });

  it('answers paths over 2,048 bytes with 414', async () => {
    await expectError(await fetch(`${d.url}/v1/dns/${'a'.repeat(2100)}`), 414, 'uri_too_long');
    await expectError(await fetch(`${d.url}/v1/ip/${'1'.repeat(6000)}`), 414, 'uri_too_long');
  });

  it('serves /docs as HTML and /openapi.json as an OpenAPI 3.1 document', async () => {
    const docs = await fetch(`${d.url}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await docs.text();
    for (const p of ['/v1/ip/{ip}', '/v1/dns/{domain}', '/v1/asn/{asn_or_ip}']) expect(html).toContain(p);
    const api = await fetch(`${d.url}/openapi.json`);
    const doc = (await api.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/v1/ip/{ip}');
  });

  it('exports Prometheus metrics labelled by route template', async () => {
    await fetch(`${d.url}/`);
    await fetch(`${d.url}/v1/ip/8.8.8.8`);
    await fetch(`${d.url}/v1/mac/00:11:22:33:44:55`);
    const res = await fetch(`${d.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(/netintel_http_requests_total\{route="\/v1\/ip\/\{ip\}",status="\d{3}"\} \d+/);
    expect(text).toMatch(/netintel_http_request_duration_seconds_bucket\{le="0.0001",route="\/"\}/);
    expect(text).toContain('netintel_process_resident_memory_bytes');
    expect(text).not.toContain('8.8.8.8');
    const promtool = spawnSync('promtool', ['--version']);
    if (promtool.error === undefined) {
      const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(r.status, r.stdout + r.stderr).toBe(0);
    } else if (process.env['CI']) {
      throw new Error('promtool is not installed (Debian package prometheus); .ci/run installs it');
    }
  });

  it('logs one JSON line per request with id, route template, status and duration', async () => {
    await fetch(`${d.url}/v1/asn/AS13335`, { headers: { 'x-request-id': 'log-probe-1' } });
    await expect.poll(() => d.logs.find((l) => l['requestId'] === 'log-probe-1'), { timeout: 5000 }).toBeTruthy();
    const line = d.logs.find((l) => l['requestId'] === 'log-probe-1')!;
    expect(line['route']).toBe('/v1/asn/{asn_or_ip}');
    expect(typeof line['status']).toBe('number');
    expect(typeof line['durationMs']).toBe('number');
  });

  it('logs hostile request ids safely: a sane one verbatim, anything else replaced by a generated id', async () => {
    const sane = 'a.b_c:d@e/f+g=h-1';
    await fetch(`${d.url}/`, { headers: { 'x-request-id': sane } });
    await expect.poll(() => d.logs.find((l) => l['requestId'] === sane), { timeout: 5000 }).toBeTruthy();
    const hostile = 'x","status":200,"injected":"1';
    const res = await fetch(`${d.url}/v1/ip/8.8.8.8`, { headers: { 'x-request-id': hostile } });
    const generated = res.headers.get('x-request-id')!;
    expect(generated).not.toBe(hostile);
    await expect.poll(() => d.logs.find((l) => l['requestId'] === generated), { timeout: 5000 }).toBeTruthy();
    expect(d.logs.some((l) => 'injected' in l)).toBe(false);
  });
});

describe('process lifecycle', () => {
  it('refuses to start on a port another netintel already serves', async () => {
    const a = await startDaemon();
    try {
      const r = spawnSync(process.execPath, [CLI, 'serve'], {
        env: { PATH: process.env['PATH'], NETINTEL_HOST: '127.0.0.1', NETINTEL_PORT: String(a.port), NETINTEL_DATA_DIR: tempDir(), NETINTEL_IMPORT_DEFAULTS: 'false', NETINTEL_WORKERS: '1' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(r.status).toBe(1);
      expect(r.stdout + r.stderr).toContain('port is in use');
      expect((await fetch(`${a.url}/`)).status).toBe(200);
    } finally {
      await a.stop();
    }
  });

  it('stops with one clear line per bad config value and exit code 2', () => {
    const r = spawnSync(process.execPath, [CLI, 'serve'], {
      env: { PATH: process.env['PATH'], NETINTEL_PORT: 'eighty', NETINTEL_LOG_LEVEL: 'chatty' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('NETINTEL_PORT');
    expect(lines[1]).toContain('NETINTEL_LOG_LEVEL');
  });

  it('drains on SIGTERM: health says draining (503), then exit 0 well within 10 s', async () => {
    const d = await startDaemon({ env: { NETINTEL_DRAIN_DELAY_MS: '1500', NETINTEL_WORKERS: '2' } });
    const agent = await import('undici').then((u) => new u.Agent({ connections: 1 }));
    const { request } = await import('undici');
    const first = await request(`${d.url}/`, { dispatcher: agent });
    expect(first.statusCode).toBe(200);
    await first.body.text();
    const t0 = Date.now();
    d.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const during = await request(`${d.url}/`, { dispatcher: agent });
    expect(during.statusCode).toBe(503);
    const body = (await during.body.json()) as { status: string };
    expect(body.status).toBe('draining');
    expect(during.headers['retry-after']).toBeDefined();
    const code = await d.exited;
    expect(code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(d.logs.some((l) => l['step'] === 'stopped')).toBe(true);
    await agent.close().catch(() => undefined);
  });

  it('serves from several worker threads on one port and aggregates their metrics', async () => {
    const d = await startDaemon({ env: { NETINTEL_WORKERS: '2' } });
    try {
      // Fresh connections are spread over both workers by the kernel (SO_REUSEPORT).
      for (let i = 0; i < 40; i++) {
        const res = await fetch(`${d.url}/`, { headers: { connection: 'close' } });
        expect(res.status).toBe(200);
      }
      const text = await (await fetch(`${d.url}/metrics`)).text();
      const m = /netintel_http_requests_total\{route="\/",status="200"\} (\d+)/.exec(text);
      expect(Number(m?.[1])).toBe(40);
      const workersSeen = (): number => new Set(d.logs.filter((l) => l['msg'] === 'request').map((l) => l['worker'])).size;
      await expect.poll(workersSeen, { timeout: 5000 }).toBe(2);
    } finally {
      await d.stop();
    }
  });

  it.runIf(fs.existsSync('/proc/self/task'))('runs its main thread at a lower CPU priority (nice 10) and every other thread at the one it started with', async () => {
    const niceOf = (pid: number, tid: string): number => {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after "pid (comm) ": state is the 1st, nice the 17th (proc(5) field 19).
      return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[16]);
    };
    const base = os.getPriority(0);
    const d = await startDaemon({ env: { NETINTEL_WORKERS: '2' } });
    try {
      const pid = d.proc.pid!;
      const tids = fs.readdirSync(`/proc/${pid}/task`).filter((t) => Number(t) !== pid);
      expect(niceOf(pid, String(pid))).toBe(Math.max(base, os.constants.priority.PRIORITY_BELOW_NORMAL));
      // 2 HTTP workers, libuv's 4 pool threads and V8's platform threads: none inherited the main thread's.
      expect(tids.length).toBeGreaterThanOrEqual(2 + 4);
      expect(tids.map((t) => niceOf(pid, t))).toEqual(tids.map(() => base));
      expect((await fetch(`${d.url}/`)).status).toBe(200);
    } finally {
      await d.stop();
    }
  });

  it('serves metrics on NETINTEL_METRICS_PORT instead of the main port when set', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const d = await startDaemon({ env: { NETINTEL_METRICS_PORT: String(port) } });
    try {
      expect((await fetch(`${d.url}/metrics`)).status).toBe(404);
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('netintel_http_requests_total');
    } finally {
      await d.stop();
    }
  });

  it('prints its version and usage without any configuration', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(CLI), '../package.json'), 'utf8')) as { version: string };
    expect(execFileSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' }).trim()).toBe(`netintel ${pkg.version}`);
    expect(execFileSync(process.execPath, [CLI, '--help'], { encoding: 'utf8', env: { NETINTEL_PORT: 'bad', PATH: process.env['PATH'] } })).toContain('Usage: netintel');
    void os;
  });
});
