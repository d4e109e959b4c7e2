// NETINTEL_ON_DATASET_CHANGE: a command (run with sh -c) or an http(s) webhook (POSTed JSON), called
// when a refresh actually changed a dataset. Bounded in time; a failure is logged, never fatal.
import { spawn } from 'node:child_process';
import { request } from 'undici';
import type { Logger } from '../../platform/logger.js';
import { createHttpAgent } from '../../platform/fetch.js';
import { describeSource, isHttpSource } from './sources.js';

export interface DatasetChange {
  readonly dataset: string;
  readonly version: string;
  readonly previous_version: string | null;
  readonly records: number;
  readonly previous_records: number | null;
  readonly changed_at: string;
}

export interface NotifyOptions {
  readonly extraCa: string | null;
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export async function notifyDatasetChange(target: string | null, change: DatasetChange, log: Logger, opts: NotifyOptions): Promise<boolean> {
  if (target === null || target.trim() === '') return false;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    if (isHttpSource(target)) await postWebhook(target, change, timeoutMs, opts.extraCa);
    else await runCommand(target, change, timeoutMs);
    log.info({ step: 'refresh', dataset: change.dataset, hook: isHttpSource(target) ? describeSource(target) : 'command' }, 'dataset change hook ran');
    return true;
  } catch (e) {
    log.warn({ step: 'refresh', dataset: change.dataset, err: (e as Error).message }, `NETINTEL_ON_DATASET_CHANGE failed: ${(e as Error).message}`);
    return false;
  }
}

async function postWebhook(url: string, change: DatasetChange, timeoutMs: number, extraCa: string | null): Promise<void> {
  const agent = createHttpAgent({ extraCa, connectTimeoutMs: timeoutMs, connections: 1 });
  try {
    const res = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'user-agent': 'netintel-refresh' },
      body: JSON.stringify({ event: 'dataset-changed', ...change }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body.dump();
    if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`webhook ${describeSource(url)} answered HTTP ${res.statusCode}`);
  } finally {
    await agent.close();
  }
}

function runCommand(command: string, change: DatasetChange, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        NETINTEL_DATASET: change.dataset,
        NETINTEL_DATASET_VERSION: change.version,
        NETINTEL_DATASET_PREVIOUS_VERSION: change.previous_version ?? '',
        NETINTEL_DATASET_RECORDS: String(change.records),
      },
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => {
      if (stderr.length < 2000) stderr += c.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`command did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`command exited with ${code ?? signal}${stderr.trim() === '' ? '' : `: ${stderr.trim().slice(0, 500)}`}`));
    });
  });
}
