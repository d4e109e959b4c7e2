// systemd/netintel.service and systemd/netintel.env: systemd's own linters (Debian's systemd package,
// installed by .ci/run) and the documentation they promise.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const UNIT = path.join(ROOT, 'systemd/netintel.service');
const ENV_FILE = path.join(ROOT, 'systemd/netintel.env');
const MAX_EXPOSURE = 2.0;
const unitText = fs.readFileSync(UNIT, 'utf8');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'netintel-unit-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function analyze(args: string[]): { status: number | null; out: string } {
  const r = spawnSync('systemd-analyze', args, { encoding: 'utf8', timeout: 60_000, env: { ...process.env, SYSTEMD_COLORS: '0', SYSTEMD_PAGER: '' } });
  if (r.error !== undefined) throw new Error(`systemd-analyze is needed for this test (apt-get install systemd): ${r.error.message}`);
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Values of a directive, in order (a directive may repeat). */
function directive(name: string): string[] {
  return unitText
    .split('\n')
    .filter((l) => l.startsWith(`${name}=`))
    .map((l) => l.slice(name.length + 1));
}

describe('systemd-analyze', () => {
  it('verify: clean once ExecStart points at an existing executable', () => {
    const exe = path.join(work, 'netintel');
    fs.copyFileSync('/bin/true', exe);
    const copy = path.join(work, 'netintel.service');
    expect(directive('ExecStart')).toEqual(['/usr/local/bin/netintel serve']);
    fs.writeFileSync(copy, unitText.replace('ExecStart=/usr/local/bin/netintel serve', `ExecStart=${exe} serve`));
    const r = analyze(['verify', copy]);
    expect(r.out.trim()).toBe('');
    expect(r.status).toBe(0);
  });

  it('verify: on a host without the binary, the missing binary is the only complaint', () => {
    const r = analyze(['verify', UNIT]);
    const complaints = r.out.split('\n').filter((l) => l.trim() !== '' && !l.includes('/usr/local/bin/netintel is not executable'));
    expect(complaints).toEqual([]);
    if (fs.existsSync('/usr/local/bin/netintel')) expect(r.status).toBe(0);
  });

  it(`security --offline=true: exposure at most ${MAX_EXPOSURE}, and the documented number is the real one`, () => {
    const r = analyze(['security', '--offline=true', '--no-pager', UNIT]);
    const m = /Overall exposure level for netintel\.service: (\d+\.\d)/.exec(r.out);
    expect(m, r.out).not.toBeNull();
    const score = Number(m![1]);
    expect(score, r.out).toBeLessThanOrEqual(MAX_EXPOSURE);
    expect(fs.readFileSync(path.join(ROOT, 'systemd/README.md'), 'utf8')).toContain(`**${m![1]} OK**`);
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(`exposure ${m![1]}`);
    expect(unitText).toContain(`systemd-analyze security: ${m![1]}`);
  });
});

describe('the unit', () => {
  it.each([
    ['Type', 'exec'],
    ['EnvironmentFile', '-/etc/netintel/netintel.env'],
    ['Environment', 'NETINTEL_DATA_DIR=/var/lib/netintel'],
    ['StateDirectory', 'netintel'],
    ['CacheDirectory', 'netintel'],
    ['User', 'netintel'],
    ['ProtectSystem', 'strict'],
    ['ProtectHome', 'yes'],
    ['PrivateTmp', 'yes'],
    ['PrivateDevices', 'yes'],
    ['NoNewPrivileges', 'yes'],
    ['CapabilityBoundingSet', ''],
    ['RestrictAddressFamilies', 'AF_INET AF_INET6 AF_UNIX'],
    ['SystemCallArchitectures', 'native'],
    ['Restart', 'on-failure'],
    ['ExecReload', '/bin/kill -HUP $MAINPID'],
  ])('sets %s=%s', (name, value) => {
    expect(directive(name)).toContain(value);
  });

  it('filters system calls to @system-service', () => {
    expect(directive('SystemCallFilter')[0]).toBe('@system-service');
  });

  it('leaves V8 its JIT: no MemoryDenyWriteExecute', () => {
    expect(directive('MemoryDenyWriteExecute')).toEqual([]);
  });

  it('waits longer for the stop than the daemon needs to drain (10 s)', () => {
    const [t] = directive('TimeoutStopSec');
    expect(t).toMatch(/^\d+s$/);
    expect(Number.parseInt(t!, 10)).toBeGreaterThanOrEqual(10);
    expect(Number.parseInt(t!, 10)).toBeLessThanOrEqual(30);
  });
});

describe('netintel.env', () => {
  const envText = fs.readFileSync(ENV_FILE, 'utf8');
  const configText = fs.readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');
  const variables = [...new Set([...configText.matchAll(/'(NETINTEL_[A-Z0-9_]+)'/g)].map((m) => m[1]!))];

  it('documents every NETINTEL_* variable the daemon reads', () => {
    expect(variables.length).toBeGreaterThan(30);
    const missing = variables.filter((v) => !new RegExp(`^#${v}=`, 'm').test(envText));
    expect(missing).toEqual([]);
  });

  it('sets nothing by default: every setting line is commented out', () => {
    const active = envText.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    expect(active).toEqual([]);
  });

  it('every example value, uncommented, is accepted by the config validator', () => {
    const env: Record<string, string> = {};
    for (const m of envText.matchAll(/^#(NETINTEL_[A-Z0-9_]+)=(.*)$/gm)) env[m[1]!] = m[2]!;
    try {
      loadConfig(env);
    } catch (e) {
      if (e instanceof ConfigError) throw new Error(`netintel.env examples rejected:\n${e.problems.join('\n')}`);
      throw e;
    }
  });
});
