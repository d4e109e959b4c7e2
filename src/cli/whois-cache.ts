// `netintel whois-cache export <file>` / `import <file>`: move registration records between
// instances (scale-out, air-gapped sites) as JSON lines. Import keeps whichever copy is newer.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { createContext } from '../main.js';
import { createLogger } from '../platform/logger.js';
import { CacheFormatError, parseExportLine, toExportLine } from '../lookups/whois/cache-format.js';
import { WhoisStore } from '../lookups/whois/store.js';
import type { FetchedRecord } from '../lookups/whois/types.js';
import { UsageError, parseArgs } from './args.js';
import type { Command } from './commands.js';

// Lines above this are not registration records; refusing them bounds memory per line.
const MAX_LINE_CHARS = 4 * 1024 * 1024;
const BATCH = 500;
const MAX_REPORTED_ERRORS = 10;

export const whoisCacheCommand: Command = async (args, config) => {
  const { positionals } = parseArgs(args);
  const [action, file] = positionals;
  if ((action !== 'export' && action !== 'import') || file === undefined || positionals.length > 2) {
    throw new UsageError('whois-cache needs "export <file>" or "import <file>" ("-" for stdout/stdin)');
  }
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const ctx = createContext(config, log);
  try {
    const store = new WhoisStore(ctx.db);
    return action === 'export' ? await exportTo(store, file) : await importFrom(ctx.db, store, file);
  } finally {
    ctx.db.close();
  }
};

async function exportTo(store: WhoisStore, file: string): Promise<number> {
  // Written beside the target and renamed, so a reader never sees half a file.
  const tmp = file === '-' ? null : path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${process.pid}.tmp`);
  const out = tmp === null ? process.stdout : fs.createWriteStream(tmp, { mode: 0o640 });
  let count = 0;
  try {
    for (const record of store.all()) {
      if (!out.write(toExportLine(record) + '\n')) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      count++;
    }
    if (tmp !== null) {
      await new Promise<void>((resolve, reject) => (out as fs.WriteStream).end((err?: Error | null) => (err ? reject(err) : resolve())));
      fs.renameSync(tmp, file);
    }
  } catch (e) {
    if (tmp !== null) fs.rmSync(tmp, { force: true });
    throw e;
  }
  process.stderr.write(`exported ${count} record${count === 1 ? '' : 's'}${file === '-' ? '' : ` to ${file}`}\n`);
  return 0;
}

async function importFrom(db: import('../platform/sqlite.js').Db, store: WhoisStore, file: string): Promise<number> {
  if (file !== '-' && !fs.existsSync(file)) {
    process.stderr.write(`netintel whois-cache: ${file} does not exist\n`);
    return 1;
  }
  const input = file === '-' ? process.stdin : fs.createReadStream(file, { encoding: 'utf8' });
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  let imported = 0;
  let kept = 0;
  let rejected = 0;
  let lineNo = 0;
  let batch: FetchedRecord[] = [];
  const flush = db.transaction((records: FetchedRecord[]) => {
    for (const r of records) {
      if (store.put(r)) imported++;
      else kept++;
    }
  });
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    try {
      if (line.length > MAX_LINE_CHARS) throw new CacheFormatError(`longer than ${MAX_LINE_CHARS} characters`);
      batch.push(parseExportLine(line));
    } catch (e) {
      if (!(e instanceof CacheFormatError)) throw e;
      rejected++;
      if (rejected <= MAX_REPORTED_ERRORS) process.stderr.write(`line ${lineNo}: ${e.message}\n`);
    }
    if (batch.length >= BATCH) {
      flush(batch);
      batch = [];
    }
  }
  flush(batch);
  process.stderr.write(`imported ${imported}, kept ${kept} newer or equal stored record${kept === 1 ? '' : 's'}, rejected ${rejected} line${rejected === 1 ? '' : 's'}\n`);
  return rejected > 0 ? 1 : 0;
}
