// Test contexts over a real SQLite store in a temp data dir.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../../src/config.js';
import type { AppContext } from '../../../src/context.js';
import { createContext } from '../../../src/main.js';
import { Metrics } from '../../../src/platform/metrics.js';

const created: string[] = [];

export function tempDir(prefix = 'netintel-ds-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Removes every directory tempDir() made (call after closing the stores in them). */
export function removeTempDirs(): void {
  for (const d of created.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

export function testContext(dataDir = tempDir(), env: Record<string, string> = {}): AppContext {
  const config = loadConfig({ NETINTEL_DATA_DIR: dataDir, NETINTEL_IMPORT_DEFAULTS: 'false', ...env });
  return createContext(config, pino({ level: 'silent' }), new Metrics({ defaultMetrics: false }));
}

export function writeFile(dir: string, name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}
