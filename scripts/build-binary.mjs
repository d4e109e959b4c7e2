#!/usr/bin/env node
// `npm run build:binary` → dist/netintel-linux-x64: one executable with no node_modules and no Node
// install beside it (Node's single executable applications, DEPENDENCIES.md §6):
//   1. esbuild bundles src/platform/sea-entry.ts into one CommonJS file (uWebSockets.js → the SEA shim);
//   2. a SEA blob carries that bundle as the main script plus assets: the bundle again (worker threads
//      evaluate it), the two native addons, the migrations and the version;
//   3. postject injects the blob into a copy of this machine's `node` (it must be Node 20: the uWS addon
//      exists only for ABI 115).
// Options: --out FILE (default dist/netintel-linux-x64), --work DIR (intermediate files, default dist/sea).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(root, 'dist/netintel-linux-x64') },
    work: { type: 'string', default: path.join(root, 'dist/sea') },
    quiet: { type: 'boolean', default: false },
  },
});
const out = path.resolve(opts.out);
const work = path.resolve(opts.work);
const say = (msg) => opts.quiet || process.stderr.write(`build-binary: ${msg}\n`);

// The SEA fuse postject flips; it is compiled into every Node release binary that supports SEA.
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
// Keep in sync with ASSETS in src/platform/runtime.ts.
const ASSETS = {
  bundle: 'netintel.cjs',
  migrations: 'migrations.json',
  version: 'version',
  uws: 'uws.node',
  sqlite: 'better_sqlite3.node',
};

function fail(msg) {
  process.stderr.write(`build-binary: ${msg}\n`);
  process.exit(1);
}

if (process.platform !== 'linux' || process.arch !== 'x64') fail(`builds linux-x64 only (this is ${process.platform}-${process.arch})`);
if (process.versions.modules !== '115') fail(`needs Node 20 (ABI 115) for the uWS addon; this node is ${process.version}`);

const t0 = Date.now();
fs.mkdirSync(work, { recursive: true });
fs.mkdirSync(path.dirname(out), { recursive: true });

const uwsAddon = path.join(root, `node_modules/uWebSockets.js/binaries/uws_linux_x64_${process.versions.modules}.node`);
const sqliteAddon = path.join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
for (const f of [uwsAddon, sqliteAddon]) if (!fs.existsSync(f)) fail(`missing native addon ${f} (run npm ci)`);

// 1. Bundle.
const bundle = path.join(work, ASSETS.bundle);
const result = await esbuild.build({
  entryPoints: [path.join(root, 'src/platform/sea-entry.ts')],
  outfile: bundle,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: false,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'silent',
  alias: { 'uWebSockets.js': path.join(root, 'src/platform/uws-sea-shim.cjs') },
  // ws (a hyper-express dependency) falls back to JavaScript without these optional addons.
  external: ['bufferutil', 'utf-8-validate'],
  // A CommonJS bundle has no import.meta: modules that derive paths from it get the executable's own
  // location. createRequire from there searches node_modules beside and above the executable only, so
  // the npm default-data lookup finds nothing on an installed host and says so instead of throwing.
  define: { 'import.meta.url': '__netintel_import_meta_url' },
  banner: { js: 'var __netintel_import_meta_url = require("node:url").pathToFileURL(process.execPath).href;' },
});
for (const w of result.warnings) say(`esbuild warning: ${w.text}${w.location ? ` (${w.location.file}:${w.location.line})` : ''}`);

// 2. Assets and blob.
const migrationsDir = path.join(root, 'migrations');
const migrations = fs
  .readdirSync(migrationsDir)
  .filter((f) => /^\d+_[\w-]+\.sql$/.test(f))
  .sort()
  .map((file) => ({ file, sql: fs.readFileSync(path.join(migrationsDir, file), 'utf8') }));
fs.writeFileSync(path.join(work, ASSETS.migrations), JSON.stringify(migrations));
const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
fs.writeFileSync(path.join(work, ASSETS.version), `${version}\n`);

const blob = path.join(work, 'sea-prep.blob');
const seaConfig = {
  main: bundle,
  output: blob,
  disableExperimentalSEAWarning: true,
  assets: {
    [ASSETS.bundle]: bundle,
    [ASSETS.migrations]: path.join(work, ASSETS.migrations),
    [ASSETS.version]: path.join(work, ASSETS.version),
    [ASSETS.uws]: uwsAddon,
    [ASSETS.sqlite]: sqliteAddon,
  },
};
const seaConfigFile = path.join(work, 'sea-config.json');
fs.writeFileSync(seaConfigFile, JSON.stringify(seaConfig, null, 2));
execFileSync(process.execPath, ['--experimental-sea-config', seaConfigFile], { stdio: opts.quiet ? 'ignore' : 'inherit' });

// 3. Inject into a copy of node; write beside the target and rename, so a failed build leaves no half binary.
const tmp = `${out}.tmp-${process.pid}`;
fs.copyFileSync(process.execPath, tmp);
fs.chmodSync(tmp, 0o755);
try {
  const postject = path.join(root, 'node_modules/postject/dist/cli.js');
  const r = execFileSync(process.execPath, [postject, tmp, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SENTINEL_FUSE], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  // postject prints harmless "Can't find string offset for section name '.note.100'" warnings; hide them.
  if (!opts.quiet) for (const line of r.split('\n')) if (line.trim() !== '' && !line.includes("Can't find string offset")) say(line);
  fs.renameSync(tmp, out);
} catch (e) {
  fs.rmSync(tmp, { force: true });
  fail(`postject failed: ${e.stderr ?? e.message}`);
}

const mb = (f) => (fs.statSync(f).size / 1048576).toFixed(1);
say(`${path.relative(process.cwd(), out) || out}: ${mb(out)} MB (bundle ${mb(bundle)} MB, blob ${mb(blob)} MB) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
