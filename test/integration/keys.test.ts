// API keys end to end: the CLI creates, lists and revokes; the daemon applies each plan's daily allowance,
// answers 401 to bad keys, keeps usage across a restart, and never writes a key to its logs or metrics.
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CLI, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';

const OFFLINE = {
  NETINTEL_DOH_URL: 'udp://127.0.0.1:9',
  NETINTEL_WHOIS_SERVER: '127.0.0.1:9',
  NETINTEL_RDAP_BOOTSTRAP: 'none',
  NETINTEL_CT_LOG_LIST: 'none',
};

function cli(dataDir: string, ...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, 'keys', ...args], {
    env: { PATH: process.env['PATH'] ?? '', NETINTEL_DATA_DIR: dataDir, NETINTEL_IMPORT_DEFAULTS: 'false' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function createKey(dataDir: string, plan: string, name: string): string {
  const out = execFileSync(process.execPath, [CLI, 'keys', 'create', '--plan', plan, '--name', name], {
    env: { PATH: process.env['PATH'] ?? '', NETINTEL_DATA_DIR: dataDir },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out.trim();
}

interface ListedKey {
  id: number;
  name: string;
  plan: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  today: number;
}

const listJson = (dataDir: string): ListedKey[] => JSON.parse(cli(dataDir, 'list', '--json').stdout) as ListedKey[];

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * An admitted request that does not depend on any dataset or lookup being complete: a malformed IP is
 * refused by the lookup (400 invalid_ip) only after the gate has counted it.
 */
async function lookup(d: Daemon, headers: Record<string, string> = {}, path = '/v1/ip/not-an-ip'): Promise<Response> {
  return fetch(`${d.url}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
}

const running: Daemon[] = [];
async function daemon(dataDir: string, env: Record<string, string> = {}): Promise<Daemon> {
  const d = await startDaemon({ dataDir, env: { ...OFFLINE, ...env } });
  running.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((d) => d.stop()));
});
afterAll(async () => {
  await Promise.all(running.splice(0).map((d) => d.stop()));
});

describe('netintel keys', () => {
  it('creates (printing the key once), lists and revokes', () => {
    const dir = tempDir();
    const created = cli(dir, 'create', '--plan', 'pro', '--name', 'ci-bot');
    expect(created.status).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^ni_[A-Za-z0-9_-]{32}$/);
    expect(created.stderr).toMatch(/created key 1 "ci-bot" \(plan pro, 100000 requests\/day\); it is shown only this once/);

    expect(cli(dir, 'create', '--plan', 'pro', '--name', 'ci-bot').status).toBe(1);
    expect(cli(dir, 'create', '--plan', 'gold', '--name', 'x').status).toBe(2);
    expect(cli(dir, 'create', '--plan', 'pro').status).toBe(2);
    expect(cli(dir, 'create', '--plan', 'pro', '--name', '42').status).toBe(2);
    expect(cli(dir, 'create', '--plan', 'business', '--name', 'ops')).toMatchObject({ status: 0 });

    const table = cli(dir, 'list');
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+PLAN\s+KEY\s+CREATED\s+LAST USED\s+TODAY\s+STATUS$/m);
    expect(table.stdout).toMatch(/^1\s+ci-bot\s+pro\s+ni_\S{4}…\s+\d{4}-\d\d-\d\dT\S+Z\s+-\s+0\s+active$/m);
    expect(table.stdout).not.toContain(key.slice(7));
    const listed = listJson(dir);
    expect(listed.map((k) => [k.id, k.name, k.plan, k.today, k.revoked_at])).toEqual([[1, 'ci-bot', 'pro', 0, null], [2, 'ops', 'business', 0, null]]);

    expect(cli(dir, 'revoke', 'ci-bot')).toMatchObject({ status: 0, stdout: 'revoked key 1 "ci-bot"\n' });
    expect(cli(dir, 'revoke', 'ci-bot').status).toBe(1);
    expect(cli(dir, 'revoke', '2').status).toBe(0);
    expect(cli(dir, 'revoke').status).toBe(2);
    expect(listJson(dir).every((k) => k.revoked_at !== null)).toBe(true);
  }, 90_000); // a dozen CLI processes: slow on a busy 2-core machine
});

describe('keys at the daemon', () => {
  it("applies each plan's daily allowance and reflects it in the RateLimit headers", async () => {
    const dir = tempDir();
    const dev = createKey(dir, 'developer', 'dev');
    const pro = createKey(dir, 'pro', 'pro');
    const biz = createKey(dir, 'business', 'biz');
    const d = await daemon(dir, { NETINTEL_PLAN_DEVELOPER_DAILY: '4', NETINTEL_PLAN_PRO_DAILY: '6', NETINTEL_RATE_LIMIT_LOCAL: '2' });
    for (const [key, limit] of [[dev, 4], [pro, 6]] as const) {
      for (let i = 1; i <= limit; i++) {
        const r = await lookup(d, bearer(key));
        expect(r.status).not.toBe(429);
        expect(r.headers.get('ratelimit-limit')).toBe(String(limit));
        expect(r.headers.get('ratelimit-remaining')).toBe(String(limit - i));
        const reset = Number(r.headers.get('ratelimit-reset'));
        expect(reset).toBeGreaterThan(0);
        expect(reset).toBeLessThanOrEqual(86_400);
      }
      const refused = await lookup(d, bearer(key));
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe(refused.headers.get('ratelimit-reset'));
      expect(((await refused.json()) as { code: string }).code).toBe('rate_limited');
    }
    // Business is unlimited: far beyond the free tier (2/min here) and every other plan.
    for (let i = 0; i < 30; i++) {
      const r = await lookup(d, bearer(biz));
      expect(r.status).not.toBe(429);
      expect(r.headers.get('ratelimit-limit')).toBeNull();
    }
  });

  it('uses the documented allowances by default (developer 10,000, pro 100,000)', async () => {
    const dir = tempDir();
    const dev = createKey(dir, 'developer', 'dev');
    const pro = createKey(dir, 'pro', 'pro');
    const d = await daemon(dir);
    expect((await lookup(d, bearer(dev))).headers.get('ratelimit-limit')).toBe('10000');
    expect((await lookup(d, bearer(pro))).headers.get('ratelimit-limit')).toBe('100000');
    expect((await lookup(d, bearer(pro))).headers.get('ratelimit-remaining')).toBe('99998');
  });

  it('answers 401 invalid_api_key to malformed, unknown and revoked keys, and picks up a revoke within seconds', async () => {
    const dir = tempDir();
    const key = createKey(dir, 'pro', 'soon-revoked');
    const d = await daemon(dir);
    expect((await lookup(d, bearer(key))).status).not.toBe(401);
    const cases = [{ authorization: 'Basic dTpw' }, { authorization: 'Bearer' }, { authorization: `Bearer ${key}x` }, bearer('ni_' + 'z'.repeat(32)), { authorization: '' }];
    for (const headers of cases) {
      const r = await lookup(d, headers, '/v1/dns/example.com');
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const body = (await r.json()) as { code: string; error: string };
      expect(body.code).toBe('invalid_api_key');
      expect(body.error).not.toContain(key.slice(3));
    }
    expect(cli(dir, 'revoke', 'soon-revoked').status).toBe(0);
    let status = 0;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (status = (await lookup(d, bearer(key))).status) !== 401) await new Promise((r) => setTimeout(r, 200));
    expect(status).toBe(401);
  });

  it('NETINTEL_AUTH_REQUIRED=true refuses requests without a valid key', async () => {
    const dir = tempDir();
    const key = createKey(dir, 'developer', 'only');
    const d = await daemon(dir, { NETINTEL_AUTH_REQUIRED: 'true' });
    const anonymous = await lookup(d);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: string }).error).toMatch(/API key is required/);
    const keyed = await lookup(d, bearer(key));
    expect([401, 429]).not.toContain(keyed.status);
    // Health stays open.
    expect((await fetch(`${d.url}/`)).status).not.toBe(401);
  });

  it('keeps usage across a restart, and flushes it on shutdown', async () => {
    const dir = tempDir();
    const key = createKey(dir, 'developer', 'persist');
    const env = { NETINTEL_PLAN_DEVELOPER_DAILY: '10', NETINTEL_WORKERS: '2' };
    const first = await daemon(dir, env);
    for (let i = 0; i < 3; i++) await lookup(first, bearer(key));
    expect(await first.stop()).toBe(0);
    running.splice(running.indexOf(first), 1);
    const listed = listJson(dir)[0]!;
    expect(listed.today).toBe(3);
    expect(listed.last_used_at).toMatch(/Z$/);
    const second = await daemon(dir, env);
    const r = await lookup(second, bearer(key));
    expect(r.headers.get('ratelimit-remaining')).toBe('6');
  });

  it('never writes a key to the logs or the metrics', async () => {
    const dir = tempDir();
    const key = createKey(dir, 'pro', 'secret');
    const d = await daemon(dir, { NETINTEL_LOG_LEVEL: 'trace' });
    const revokedLike = 'ni_' + 'Q'.repeat(32);
    for (const headers of [bearer(key), bearer(revokedLike), { authorization: `Basic ${key}` }, { authorization: `Bearer ${key} ${key}` }]) {
      await lookup(d, headers);
      await lookup(d, headers, '/v1/nope');
      await lookup(d, headers, '/v1/ip/%ZZ');
    }
    const metrics = await (await fetch(`${d.url}/metrics`)).text();
    expect(metrics).toMatch(/netintel_requests_by_plan_total\{plan="pro"\} [1-9]/);
    await d.stop();
    const everything = JSON.stringify(d.logs) + d.stderr.join('');
    expect(d.logs.some((l) => l['msg'] === 'request')).toBe(true);
    for (const secret of [key, key.slice(3), revokedLike.slice(3)]) {
      expect(everything).not.toContain(secret);
      expect(metrics).not.toContain(secret);
    }
  });
});
