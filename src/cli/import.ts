// `netintel import <dataset> <file-or-url>...`: writes the store; a running daemon picks the new version
// up at its next reload (SIGHUP or refresh).
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform } from 'node:stream';
import { fetch } from 'undici';
import { createContext } from '../main.js';
import { createLogger } from '../platform/logger.js';
import { createHttpAgent } from '../platform/fetch.js';
import { IMPORT_NAMES, ImportError, getImporter, importDataset } from '../datasets/import.js';
import { progressFor } from '../datasets/progress.js';
import type { Config } from '../config.js';
import { UsageError, parseArgs } from './args.js';
import type { Command } from './commands.js';

export const importCommand: Command = async (args, config) => {
  const { positionals, flags } = parseArgs(args, ['label']);
  const [name, ...inputs] = positionals;
  if (name === undefined || !(IMPORT_NAMES as readonly string[]).includes(name)) {
    throw new UsageError(`import needs a dataset (${IMPORT_NAMES.join(', ')}) and one or more files or URLs`);
  }
  if (inputs.length === 0) throw new UsageError(`import ${name} needs one or more files or URLs`);
  // Importers of other modules (RDAP bootstrap, CT logs) register themselves when their module loads.
  await import('../lookups/index.js');
  if (getImporter(name) === undefined) {
    process.stderr.write(`netintel import: the ${name} importer is not available in this build\n`);
    return 2;
  }
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const ctx = createContext(config, log);
  const downloaded: string[] = [];
  try {
    const files: string[] = [];
    for (const input of inputs) {
      if (/^https?:\/\//i.test(input)) {
        const file = await download(input, config);
        downloaded.push(file);
        files.push(file);
      } else {
        files.push(input.startsWith('file://') ? new URL(input).pathname : input);
      }
    }
    const result = await importDataset(ctx, name, files, {
      force: flags['force'] === true,
      ...(typeof flags['label'] === 'string' ? { version: flags['label'] } : {}),
      source: inputs.join(' '),
      progress: progressFor(log),
    });
    for (const f of result.files) {
      process.stdout.write(`${f.file}: ${f.format}, ${f.imported} rows imported, ${f.rejected} rejected${f.duplicates > 0 ? `, ${f.duplicates} duplicates skipped` : ''}\n`);
    }
    for (const r of result.rejectedLines) process.stdout.write(`  rejected ${r.file}:${r.line}: ${r.reason}\n`);
    process.stdout.write(
      `${result.dataset}: ${result.records} records active (was ${result.previousRecords ?? 'none'}), version ${JSON.stringify(result.version)}, ${(result.durationMs / 1000).toFixed(1)} s\n` +
        'A running daemon switches to it on its next reload (SIGHUP or netintel refresh).\n',
    );
    return 0;
  } catch (e) {
    if (!(e instanceof ImportError)) throw e;
    process.stderr.write(`netintel import: ${e.message}\n`);
    return 1;
  } finally {
    ctx.db.close();
    for (const f of downloaded) fs.rmSync(f, { force: true });
  }
};

/** Fetches a URL into <dataDir>/staging/, bounded in size and time. */
async function download(url: string, config: Config): Promise<string> {
  const dir = path.join(config.dataDir, 'staging');
  fs.mkdirSync(dir, { recursive: true });
  const name = path.basename(new URL(url).pathname) || 'download';
  const file = path.join(dir, `${process.pid}-${Date.now()}-${name}`);
  const agent = createHttpAgent({ extraCa: config.extraCa, connectTimeoutMs: config.upstreamTimeoutMs });
  try {
    const res = await fetch(url, { dispatcher: agent, signal: AbortSignal.timeout(config.refreshTimeoutMs) });
    if (res.status !== 200 || res.body === null) {
      await res.body?.cancel();
      throw new ImportError(`${url}: HTTP ${res.status}`);
    }
    let size = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
        if (size > config.refreshMaxBytes) cb(new ImportError(`${url}: larger than NETINTEL_REFRESH_MAX_BYTES (${config.refreshMaxBytes})`));
        else cb(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), limit, fs.createWriteStream(file));
    return file;
  } catch (e) {
    fs.rmSync(file, { force: true });
    if (e instanceof ImportError) throw e;
    throw new ImportError(`${url}: download failed: ${(e as Error).message}`);
  } finally {
    await agent.close();
  }
}
