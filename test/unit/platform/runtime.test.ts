// The single executable's runtime helpers that do not need the executable: where native addons are
// extracted, how their files are named, and that extraction is private, atomic and self-healing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { AddonCacheError, addonCacheBase, addonFileName, embeddedMigrations, embeddedVersion, ensurePrivateDir, extractAddon, isSea, sqliteNativeBinding, workerSource } from '../../../src/platform/runtime.js';

const dirs: string[] = [];
function temp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'netintel-runtime-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('addonCacheBase', () => {
  it('prefers systemd CacheDirectory, then RuntimeDirectory, then a per-user temp dir', () => {
    expect(addonCacheBase({ CACHE_DIRECTORY: '/var/cache/netintel', RUNTIME_DIRECTORY: '/run/netintel' }, '/tmp', 7)).toBe('/var/cache/netintel/native');
    expect(addonCacheBase({ RUNTIME_DIRECTORY: '/run/netintel' }, '/tmp', 7)).toBe('/run/netintel/native');
    expect(addonCacheBase({}, '/tmp', 7)).toBe('/tmp/netintel-native-7');
  });

  it('takes the first entry of a colon-separated list and ignores relative or empty values', () => {
    expect(addonCacheBase({ CACHE_DIRECTORY: '/var/cache/a:/var/cache/b' }, '/tmp', 0)).toBe('/var/cache/a/native');
    expect(addonCacheBase({ CACHE_DIRECTORY: 'relative/dir', RUNTIME_DIRECTORY: '' }, '/tmp', 0)).toBe('/tmp/netintel-native-0');
    expect(addonCacheBase({ CACHE_DIRECTORY: ':/var/cache/b' }, '/tmp', 0)).toBe('/tmp/netintel-native-0');
  });

  it('always answers an absolute path below one of its inputs (property)', () => {
    fc.assert(
      fc.property(fc.option(fc.string()), fc.option(fc.string()), fc.nat(), (cache, runtime, uid) => {
        const env: Record<string, string | undefined> = { CACHE_DIRECTORY: cache ?? undefined, RUNTIME_DIRECTORY: runtime ?? undefined };
        const base = addonCacheBase(env, '/tmp', uid);
        expect(path.isAbsolute(base)).toBe(true);
        const roots = [cache?.split(':')[0], runtime?.split(':')[0], '/tmp'].filter((r): r is string => r !== undefined && path.isAbsolute(r));
        expect(roots.some((r) => base === path.join(r, 'native') || base === path.join(r, `netintel-native-${uid}`))).toBe(true);
      }),
    );
  });
});

describe('addonFileName', () => {
  it('is keyed by content and keeps only the base name', () => {
    const a = addonFileName('uws.node', Buffer.from('one'));
    expect(a).toMatch(/^[0-9a-f]{32}-uws\.node$/);
    expect(addonFileName('uws.node', Buffer.from('two'))).not.toBe(a);
    expect(addonFileName('../../etc/uws.node', Buffer.from('one'))).toBe(a);
  });
});

describe('extractAddon', () => {
  it('writes once into a 0700 directory and reuses an intact copy', () => {
    const dir = path.join(temp(), 'native');
    const bytes = Buffer.from('not really an ELF file');
    const file = extractAddon(dir, 'x.node', bytes);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.readFileSync(file)).toEqual(bytes);
    const mtime = fs.statSync(file).mtimeMs;
    expect(extractAddon(dir, 'x.node', bytes)).toBe(file);
    expect(fs.statSync(file).mtimeMs).toBe(mtime);
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]); // no temporary files left behind
  });

  it('replaces a damaged copy', () => {
    const dir = temp();
    const bytes = Buffer.from('addon bytes');
    const file = extractAddon(dir, 'x.node', bytes);
    fs.chmodSync(file, 0o600);
    fs.writeFileSync(file, 'trunc');
    expect(extractAddon(dir, 'x.node', bytes)).toBe(file);
    expect(fs.readFileSync(file)).toEqual(bytes);
  });

  it('closes a directory that others could read', () => {
    const dir = temp();
    fs.chmodSync(dir, 0o755);
    ensurePrivateDir(dir);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a symlink or a directory owned by someone else', () => {
    const base = temp();
    const target = path.join(base, 'elsewhere');
    fs.mkdirSync(target);
    fs.symlinkSync(target, path.join(base, 'link'));
    expect(() => ensurePrivateDir(path.join(base, 'link'))).toThrow(AddonCacheError);
    const uid = process.getuid!();
    expect(() => ensurePrivateDir(target, uid + 1)).toThrow(/belongs to uid/);
  });
});

describe('outside the single executable', () => {
  it('reports no SEA and no embedded assets, and leaves better-sqlite3 to find its own addon', () => {
    expect(isSea()).toBe(false);
    expect(embeddedMigrations()).toBeNull();
    expect(embeddedVersion()).toBeNull();
    expect(workerSource()).toBeNull();
    expect(sqliteNativeBinding()).toBeUndefined();
  });
});
