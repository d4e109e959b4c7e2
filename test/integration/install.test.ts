// scripts/install.sh into a temporary root (DESTDIR) on a host where systemd is not the init system:
// what it installs, that it is idempotent, never overwrites an edited env file or existing data, and
// what --uninstall and --purge leave behind. A stand-in executable keeps this fast (binary.test.ts
// tests the real one); a `systemctl` on PATH that records its calls proves it is never invoked.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts/install.sh');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'netintel-install-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const fakeBin = path.join(work, 'fake-bin');
const systemctlLog = path.join(work, 'systemctl.log');
fs.mkdirSync(fakeBin);
fs.writeFileSync(path.join(fakeBin, 'systemctl'), `#!/bin/sh\necho "$@" >> ${systemctlLog}\n`, { mode: 0o755 });
const exe = path.join(work, 'netintel-linux-x64');
fs.writeFileSync(exe, '#!/bin/sh\necho "netintel 9.9.9-test"\n', { mode: 0o755 });

/** A prepared data directory: a real SQLite store, a geo file, and staging leftovers that must not travel. */
function dataDir(name: string, marker: string): string {
  const dir = path.join(work, name);
  fs.mkdirSync(path.join(dir, 'geo'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'staging'), { recursive: true });
  const db = new Database(path.join(dir, 'netintel.db'));
  db.exec(`CREATE TABLE marker (v TEXT); INSERT INTO marker VALUES ('${marker}')`);
  db.close();
  fs.writeFileSync(path.join(dir, 'geo/geo-v4.mmdb'), marker);
  fs.writeFileSync(path.join(dir, 'staging/partial.tmp'), 'interrupted');
  return dir;
}

function install(dest: string | null, args: string[]): { status: number | null; out: string } {
  const env: Record<string, string> = { PATH: `${fakeBin}:/usr/sbin:/usr/bin:/sbin:/bin`, HOME: work };
  if (dest !== null) env['DESTDIR'] = dest;
  const r = spawnSync('/bin/sh', [SCRIPT, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Every path below root with its type, mode and content hash: two equal snapshots = nothing changed. */
function snapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      const st = fs.lstatSync(p);
      const hash = e.isFile() ? crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex').slice(0, 16) : '';
      out.push(`${path.relative(root, p)} ${(st.mode & 0o7777).toString(8)} ${hash}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

const mode = (p: string): number => fs.statSync(p).mode & 0o777;

describe('scripts/install.sh with DESTDIR and no systemd', () => {
  let dest: string;
  let n = 0;
  beforeEach(() => {
    dest = path.join(work, `root-${++n}`);
    fs.rmSync(systemctlLog, { force: true });
  });

  it('installs the binary, unit, env file, docs and data directory, and says how to start it', () => {
    const data = dataDir(`data-${n}`, 'first');
    const r = install(dest, ['--binary', exe, '--data-from', data]);
    expect(r.status, r.out).toBe(0);
    expect(fs.readFileSync(path.join(dest, 'usr/local/bin/netintel'))).toEqual(fs.readFileSync(exe));
    expect(mode(path.join(dest, 'usr/local/bin/netintel'))).toBe(0o755);
    expect(fs.readFileSync(path.join(dest, 'etc/systemd/system/netintel.service'), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'systemd/netintel.service'), 'utf8'));
    expect(mode(path.join(dest, 'etc/systemd/system/netintel.service'))).toBe(0o644);
    expect(fs.readFileSync(path.join(dest, 'etc/netintel/netintel.env'), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'systemd/netintel.env'), 'utf8'));
    expect(mode(path.join(dest, 'etc/netintel/netintel.env'))).toBe(0o640);
    expect(fs.existsSync(path.join(dest, 'usr/local/share/doc/netintel/README.md'))).toBe(true);
    expect(fs.existsSync(path.join(dest, 'usr/local/share/doc/netintel/systemd-README.md'))).toBe(true);
    const state = path.join(dest, 'var/lib/netintel');
    expect(mode(state)).toBe(0o750);
    expect(fs.readFileSync(path.join(state, 'geo/geo-v4.mmdb'), 'utf8')).toBe('first');
    expect(fs.existsSync(path.join(state, 'staging'))).toBe(false);
    const db = new Database(path.join(state, 'netintel.db'), { readonly: true });
    expect(db.prepare('SELECT v FROM marker').pluck().get()).toBe('first');
    db.close();
    expect(r.out).toContain('systemctl daemon-reload && systemctl enable --now netintel');
    expect(fs.existsSync(systemctlLog)).toBe(false);
  });

  it('is idempotent: a second run changes nothing', () => {
    const data = dataDir(`data-${n}`, 'first');
    expect(install(dest, ['--binary', exe, '--data-from', data]).status).toBe(0);
    const before = snapshot(dest);
    const r = install(dest, ['--binary', exe, '--data-from', data]);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain('kept the existing data');
    expect(snapshot(dest)).toEqual(before);
    expect(fs.existsSync(systemctlLog)).toBe(false);
  });

  it('never overwrites an edited env file or existing data, and replaces the binary and unit', () => {
    expect(install(dest, ['--binary', exe, '--data-from', dataDir(`data-${n}a`, 'first')]).status).toBe(0);
    const envFile = path.join(dest, 'etc/netintel/netintel.env');
    fs.appendFileSync(envFile, 'NETINTEL_PORT=9090\n');
    fs.writeFileSync(path.join(dest, 'usr/local/bin/netintel'), 'old build');
    const r = install(dest, ['--binary', exe, '--data-from', dataDir(`data-${n}b`, 'second')]);
    expect(r.status, r.out).toBe(0);
    expect(fs.readFileSync(envFile, 'utf8')).toMatch(/^NETINTEL_PORT=9090$/m);
    expect(fs.readFileSync(`${envFile}.dist`, 'utf8')).toBe(fs.readFileSync(path.join(ROOT, 'systemd/netintel.env'), 'utf8'));
    expect(r.out).toContain('kept your edited /etc/netintel/netintel.env');
    expect(fs.readFileSync(path.join(dest, 'var/lib/netintel/geo/geo-v4.mmdb'), 'utf8')).toBe('first');
    expect(fs.readFileSync(path.join(dest, 'usr/local/bin/netintel'))).toEqual(fs.readFileSync(exe));
  });

  it('without data says how to get some, and the service can still be installed', () => {
    const r = install(dest, ['--binary', exe, '--no-data']);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain('netintel import');
    expect(fs.readdirSync(path.join(dest, 'var/lib/netintel'))).toEqual([]);
  });

  it('refuses a data directory that holds no store, a missing binary, and unknown options', () => {
    const notData = path.join(work, `not-data-${n}`);
    fs.mkdirSync(notData);
    fs.writeFileSync(path.join(notData, 'netintel.db'), 'not sqlite');
    let r = install(dest, ['--binary', exe, '--data-from', notData]);
    expect(r.status).toBe(1);
    expect(r.out).toContain('is not a netintel data directory');
    r = install(dest, ['--binary', path.join(work, 'nope')]);
    expect(r.status).toBe(1);
    expect(r.out).toContain('does not exist');
    r = install(dest, ['--frobnicate']);
    expect(r.status).toBe(1);
    expect(r.out).toContain('unknown option: --frobnicate');
    r = install(dest, ['--purge']);
    expect(r.status).toBe(1);
    expect(r.out).toContain('--purge goes with --uninstall');
  });

  it('refuses to run as an ordinary user without DESTDIR', () => {
    if (process.getuid?.() !== 0) return; // only root can switch to another user to show it
    const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '/bin/sh', SCRIPT, '--binary', exe], {
      env: { PATH: '/usr/bin:/bin' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(`${r.stdout}${r.stderr}`).toContain('run as root');
  });

  it('--uninstall removes all but the data and an edited env file; --purge removes those too', () => {
    expect(install(dest, ['--binary', exe, '--data-from', dataDir(`data-${n}`, 'first')]).status).toBe(0);
    fs.appendFileSync(path.join(dest, 'etc/netintel/netintel.env'), 'NETINTEL_WORKERS=2\n');
    let r = install(dest, ['--uninstall']);
    expect(r.status, r.out).toBe(0);
    for (const gone of ['usr/local/bin/netintel', 'etc/systemd/system/netintel.service', 'usr/local/share/doc/netintel']) {
      expect(fs.existsSync(path.join(dest, gone)), gone).toBe(false);
    }
    expect(fs.existsSync(path.join(dest, 'var/lib/netintel/netintel.db'))).toBe(true);
    expect(fs.existsSync(path.join(dest, 'etc/netintel/netintel.env'))).toBe(true);
    // Uninstalling twice is fine.
    expect(install(dest, ['--uninstall']).status).toBe(0);
    r = install(dest, ['--uninstall', '--purge']);
    expect(r.status, r.out).toBe(0);
    expect(fs.existsSync(path.join(dest, 'var/lib/netintel'))).toBe(false);
    expect(fs.existsSync(path.join(dest, 'etc/netintel'))).toBe(false);
    expect(fs.existsSync(systemctlLog)).toBe(false);
  });

  it('--uninstall removes an env file nobody edited', () => {
    expect(install(dest, ['--binary', exe, '--no-data']).status).toBe(0);
    expect(install(dest, ['--uninstall']).status).toBe(0);
    expect(fs.existsSync(path.join(dest, 'etc/netintel'))).toBe(false);
    expect(fs.existsSync(path.join(dest, 'var/lib/netintel'))).toBe(true);
  });
});
