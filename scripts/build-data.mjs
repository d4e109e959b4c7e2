#!/usr/bin/env node
// Builds a ready netintel data directory from the default datasets installed as npm packages (the same
// first-start import `netintel serve` runs from a source tree). The single executable carries no
// node_modules, so this is how its default data travels: build the directory here, copy it beside the
// binary (scripts/install.sh --data-from DIR, or by hand for an air-gapped host).
//
//   node scripts/build-data.mjs [DIR]        (default dist/netintel-data; needs `npm run build` first)
//
// A directory that already holds a store is left as it is (exit 0): data is never overwritten.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.resolve(process.argv[2] ?? path.join(root, 'dist/netintel-data'));
const dist = (f) => pathToFileURL(path.join(root, 'dist', f)).href;

if (!fs.existsSync(path.join(root, 'dist/main.js'))) {
  process.stderr.write('build-data: dist/ is missing: run `npm run build` first\n');
  process.exit(1);
}
if (fs.existsSync(path.join(dir, 'netintel.db'))) {
  process.stderr.write(`build-data: ${dir} already holds a netintel store; left unchanged\n`);
  process.exit(0);
}

const { loadConfig } = await import(dist('config.js'));
const { createContext } = await import(dist('main.js'));
const { prepareDatasets } = await import(dist('datasets/defaults.js'));
const { createLogger, flushLogger } = await import(dist('platform/logger.js'));

const config = loadConfig({ NETINTEL_DATA_DIR: dir, NETINTEL_IMPORT_DEFAULTS: 'true', NETINTEL_LOG_LEVEL: process.env.NETINTEL_LOG_LEVEL ?? 'info' });
const log = createLogger(config.logLevel);
const t0 = Date.now();
const ctx = createContext(config, log);
let missing = [];
try {
  await prepareDatasets(ctx);
  missing = Object.entries(ctx.datasets.status())
    .filter(([name, s]) => !s.loaded && ['geo', 'oui', 'asn'].includes(name))
    .map(([name]) => name);
} finally {
  // Closing checkpoints the WAL into netintel.db, so the directory can be copied as plain files.
  ctx.db.close();
  flushLogger(log);
}
if (missing.length > 0) {
  process.stderr.write(`build-data: ${missing.join(', ')} did not load (see the log above); ${dir} is incomplete\n`);
  process.exit(1);
}
process.stderr.write(`build-data: ${dir} ready in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
