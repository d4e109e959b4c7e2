// Where the code runs: from dist/ under a Node install, or as the single executable (Node SEA) built by
// scripts/build-binary.mjs. Inside the executable there is no node_modules and no source tree: the
// native addons, the migrations, the version and the bundle itself (for worker threads) are SEA assets.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sea from 'node:sea';

/** Asset names shared with scripts/build-binary.mjs (which writes them into the SEA blob). */
export const ASSETS = {
  bundle: 'netintel.cjs',
  migrations: 'migrations.json',
  version: 'version',
  uws: 'uws.node',
  sqlite: 'better_sqlite3.node',
} as const;

let seaCached: boolean | undefined;

export function isSea(): boolean {
  seaCached ??= typeof sea.isSea === 'function' && sea.isSea();
  return seaCached;
}

/** A text asset of the executable, or null outside it. */
export function textAsset(name: string): string | null {
  return isSea() ? sea.getAsset(name, 'utf8') : null;
}

export interface EmbeddedMigration {
  readonly file: string;
  readonly sql: string;
}

export function embeddedMigrations(): EmbeddedMigration[] | null {
  const text = textAsset(ASSETS.migrations);
  return text === null ? null : (JSON.parse(text) as EmbeddedMigration[]);
}

export function embeddedVersion(): string | null {
  return textAsset(ASSETS.version)?.trim() ?? null;
}

/** The bundle's own source: worker threads of the executable evaluate it (they cannot load a file from disk). */
export function workerSource(): string | null {
  return textAsset(ASSETS.bundle);
}

/**
 * Base directory for extracted native addons, most specific first: systemd's CacheDirectory= and
 * RuntimeDirectory= (colon-separated lists; the first entry is ours), else the temp dir. Read here, not
 * in config.ts, because the addons load while modules are still being imported, before any config exists.
 */
export function addonCacheBase(env: Readonly<Record<string, string | undefined>>, tmpdir: string, uid: number): string {
  for (const name of ['CACHE_DIRECTORY', 'RUNTIME_DIRECTORY'] as const) {
    const first = env[name]?.split(':')[0] ?? '';
    if (path.isAbsolute(first)) return path.join(first, 'native');
  }
  // A per-user name: in a shared /tmp another user must not be able to pre-create our directory.
  return path.join(tmpdir, `netintel-native-${uid}`);
}

/** File name of an extracted addon: its content hash keys it, so a new build never reuses an old file. */
export function addonFileName(name: string, bytes: Uint8Array): string {
  return `${crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 32)}-${path.basename(name)}`;
}

export class AddonCacheError extends Error {
  override readonly name = 'AddonCacheError';
}

/** Creates dir as 0700 and proves it is ours: a directory, not a symlink, owned by us, closed to others. */
export function ensurePrivateDir(dir: string, uid: number = process.getuid?.() ?? -1): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new AddonCacheError(`native addon cache ${dir} is not a directory`);
  if (uid >= 0 && st.uid !== uid) throw new AddonCacheError(`native addon cache ${dir} belongs to uid ${st.uid}, not to this process (uid ${uid}); remove it or set CACHE_DIRECTORY`);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

/**
 * Writes bytes to dir/<hash>-<name> unless an intact copy is already there, and returns the path.
 * Write-then-rename: a concurrent start (another worker thread, another process) or a crash mid-write
 * never leaves a half-written file under the final name.
 */
export function extractAddon(dir: string, name: string, bytes: Uint8Array): string {
  ensurePrivateDir(dir);
  const file = path.join(dir, addonFileName(name, bytes));
  if (fs.existsSync(file) && sameContent(file, bytes)) return file;
  const tmp = path.join(dir, `.${path.basename(name)}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  try {
    fs.writeFileSync(tmp, bytes, { mode: 0o500, flag: 'wx' });
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  return file;
}

function sameContent(file: string, bytes: Uint8Array): boolean {
  try {
    const have = fs.readFileSync(file);
    return have.length === bytes.length && crypto.timingSafeEqual(have, bytes);
  } catch {
    return false;
  }
}

const loaded = new Map<string, unknown>();

/** Extracts an embedded native addon and loads it with process.dlopen (the SEA's require cannot load .node files). */
export function loadEmbeddedAddon(asset: string): unknown {
  const cached = loaded.get(asset);
  if (cached !== undefined) return cached;
  if (!isSea()) throw new Error(`native addon ${asset} is embedded only in the single executable`);
  const bytes = new Uint8Array(sea.getRawAsset(asset) as ArrayBuffer);
  const dir = addonCacheBase(process.env, os.tmpdir(), process.getuid?.() ?? 0);
  const file = extractAddon(dir, asset, bytes);
  const mod = { exports: {} as unknown };
  try {
    process.dlopen(mod, file, os.constants.dlopen.RTLD_NOW);
  } catch (e) {
    throw new Error(`cannot load native addon ${file} (${(e as Error).message}); a noexec mount refuses it: point CACHE_DIRECTORY at an executable location`);
  }
  loaded.set(asset, mod.exports);
  return mod.exports;
}

/** better-sqlite3's `nativeBinding` option: the embedded addon inside the executable, its own lookup elsewhere. */
export function sqliteNativeBinding(): object | undefined {
  return isSea() ? (loadEmbeddedAddon(ASSETS.sqlite) as object) : undefined;
}
