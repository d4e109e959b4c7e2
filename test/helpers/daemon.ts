// Starts the built daemon (dist/cli.js serve) as a child process on a free port, with its own data dir.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CLI = path.join(ROOT, 'dist/cli.js');

export interface Daemon {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly proc: ChildProcess;
  /** Every stdout line parsed as JSON (pino), in order. */
  readonly logs: Record<string, unknown>[];
  /** stderr chunks, and stdout lines that were not JSON (prefixed "(stdout, not JSON)"). */
  readonly stderr: string[];
  /** The "listening" log line. */
  readonly listening: Record<string, unknown>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export interface DaemonOptions {
  env?: Record<string, string>;
  dataDir?: string;
  /** Wait this long for the "listening" line. */
  timeoutMs?: number;
}

export function tempDir(prefix = 'netintel-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startDaemon(opts: DaemonOptions = {}): Promise<Daemon> {
  const dataDir = opts.dataDir ?? tempDir();
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '/tmp',
    NETINTEL_HOST: '127.0.0.1',
    NETINTEL_PORT: '0',
    NETINTEL_DATA_DIR: dataDir,
    NETINTEL_WORKERS: '1',
    NETINTEL_DRAIN_DELAY_MS: '0',
    NETINTEL_IMPORT_DEFAULTS: 'false',
    NETINTEL_LOG_LEVEL: 'info',
    // Tests reach loopback only: no upstream defaults to a public server unless a test points it somewhere.
    NETINTEL_DOH_URL: 'udp://127.0.0.1:9',
    NETINTEL_WHOIS_SERVER: '127.0.0.1:9',
    NETINTEL_RDAP_BOOTSTRAP: 'none',
    NETINTEL_CT_LOG_LIST: 'none',
    NETINTEL_SOURCE_OUI: 'none',
    NETINTEL_SOURCE_RIR: 'none',
    NETINTEL_SOURCE_ASNAMES: 'none',
    NETINTEL_SOURCE_PREFIXES: 'none',
    ...opts.env,
  };
  const { proc, logs, stderr, exited, listening } = await spawnLogged(process.execPath, [CLI, 'serve'], { env, timeoutMs: opts.timeoutMs });
  const port = listening['port'] as number;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    proc,
    logs,
    stderr,
    exited,
    listening,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

export interface LoggedProcess {
  readonly proc: ChildProcess;
  readonly logs: Record<string, unknown>[];
  readonly stderr: string[];
  /** stdout lines that were not JSON (also in stderr, prefixed). */
  readonly nonJson: string[];
  readonly exited: Promise<number | null>;
  readonly listening: Record<string, unknown>;
}

/** Spawns a netintel `serve` (the dist CLI or the single executable) and waits for its "listening" log line. */
export async function spawnLogged(
  command: string,
  args: readonly string[],
  opts: { env: Record<string, string>; cwd?: string; timeoutMs?: number | undefined },
): Promise<LoggedProcess> {
  const proc = spawn(command, args, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  const nonJson: string[] = [];
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  let buf = '';
  const listening = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start in time; logs:\n${JSON.stringify(logs)}\n${stderr.join('')}`)), opts.timeoutMs ?? 60_000);
    proc.stdout!.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          if (entry['step'] === 'listening') {
            clearTimeout(timer);
            resolve(entry);
          }
        } catch {
          nonJson.push(line);
          stderr.push(`(stdout, not JSON) ${line}\n`);
        }
      }
    });
    proc.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code} before listening: ${stderr.join('')} ${JSON.stringify(logs)}`));
    });
  });
  return { proc, logs, stderr, nonJson, exited, listening };
}

/** A daemon answer as status, headers and parsed JSON body. */
export interface JsonAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: Record<string, any>;
}

export async function getJson(d: { url: string }, path: string): Promise<JsonAnswer> {
  const res = await fetch(d.url + path);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}
