// Composition root: config → logger → store → datasets → HTTP workers → scheduler → signals.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { Datasets, type DatasetShare } from './datasets/registry.js';
import { startRefreshScheduler, type RefreshScheduler } from './datasets/refresh/scheduler.js';
import { createGateShare } from './http/gate.js';
import { createLogger, type Logger } from './platform/logger.js';
import { Metrics } from './platform/metrics.js';
import { openDatabase } from './platform/sqlite.js';
import { claimPort } from './platform/port.js';
import { lowerThreadPriority, tuneGcForServing } from './platform/process.js';
import { isSea, workerSource } from './platform/runtime.js';
import type { MainToWorker, WorkerData, WorkerToMain } from './worker-protocol.js';

export function databasePath(config: Config): string {
  return path.join(config.dataDir, 'netintel.db');
}

/** Opens the store and the datasets: the same context serves HTTP workers and the CLI. */
export function createContext(config: Config, log: Logger, metrics = new Metrics(), datasetShare: DatasetShare = null): AppContext {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const db = openDatabase(databasePath(config));
  const datasets = new Datasets(db, config.staleAfter, datasetShare);
  return { config, log, metrics, db, datasets };
}

export interface RunningDaemon {
  readonly port: number;
  stop(): Promise<void>;
}

/** `netintel serve`: the main thread owns the data and the scheduler; worker threads serve HTTP on one port. */
export async function serve(config: Config, log: Logger = createLogger(config.logLevel)): Promise<RunningDaemon> {
  const t0 = Date.now();
  // Before any dataset is loaded or worker started: the workers' isolates read the same flags.
  tuneGcForServing();
  // SIGHUP means "refresh now" and must never end the daemon (Node's default): take it over first.
  let scheduler: RefreshScheduler | null = null;
  const onHangup = (): void => {
    if (scheduler === null) log.info({ signal: 'SIGHUP' }, 'SIGHUP ignored: still starting (or stopping)');
    else scheduler.onSignal();
  };
  process.on('SIGHUP', onHangup);
  log.info({ step: 'config', dataDir: config.dataDir, host: config.host, port: config.port, workers: config.workers }, 'starting netintel');
  const ctx = createContext(config, log);
  log.info({ step: 'store', file: databasePath(config), ms: Date.now() - t0 }, 'store opened');

  // datasets: first-start default import and loading happen here (src/datasets).
  await (await import('./datasets/defaults.js')).prepareDatasets(ctx);
  const port = await claimPort(config.host, config.port);
  const datasetShare = ctx.datasets.share();
  const gateShare = createGateShare(config);
  const workers: Worker[] = [];
  ctx.datasets.onActivated((name, share) => {
    for (const w of workers) w.postMessage({ type: 'dataset-changed', name, share } satisfies MainToWorker);
  });
  let metricsServer: http.Server | null = null;
  let stopping = false;
  let stopped: Promise<void> | null = null;
  const pendingMetrics = new Map<number, { parts: object[][]; waiting: number; resolve: (t: string) => void }>();
  let nextMetricsId = 1;

  const aggregateMetrics = (): Promise<string> =>
    new Promise((resolve) => {
      const id = nextMetricsId++;
      const entry = { parts: [] as object[][], waiting: workers.length, resolve: (t: string) => resolve(t) };
      pendingMetrics.set(id, entry);
      const finish = async (): Promise<void> => {
        if (!pendingMetrics.delete(id)) return;
        const own = await ctx.metrics.registry.getMetricsAsJSON();
        const registry = AggregatorRegistry.aggregate([own as never, ...(entry.parts as never[])]);
        resolve(await registry.metrics());
      };
      entry.resolve = () => void finish();
      for (const w of workers) w.postMessage({ type: 'metrics-request', id } satisfies MainToWorker);
      setTimeout(() => void finish(), 2000).unref();
      if (workers.length === 0) void finish();
    });

  const onWorkerMessage = (w: Worker, msg: WorkerToMain): void => {
    switch (msg.type) {
      case 'metrics-response': {
        const entry = pendingMetrics.get(msg.id);
        if (entry === undefined) return;
        entry.parts.push(msg.metrics);
        if (--entry.waiting === 0) entry.resolve('');
        return;
      }
      case 'metrics-query':
        void aggregateMetrics().then((text) => w.postMessage({ type: 'metrics-text', id: msg.id, text } satisfies MainToWorker));
        return;
      default:
        return;
    }
  };

  // The single executable has no worker.js on disk: its workers evaluate the embedded bundle, whose
  // entry (platform/sea-entry.ts) starts worker.ts logic when it is not on the main thread.
  const workerSrc = isSea() ? workerSource() : null;
  const workerUrl = new URL('./worker.js', import.meta.url);
  await Promise.all(
    Array.from({ length: config.workers }, (_, index) =>
      new Promise<void>((resolve, reject) => {
        const workerData = { port, index, metricsOnMain: config.metricsPort !== null, datasets: datasetShare, gate: gateShare } satisfies WorkerData;
        const w = workerSrc === null ? new Worker(workerUrl, { workerData }) : new Worker(workerSrc, { eval: true, workerData });
        workers.push(w);
        w.on('message', (msg: WorkerToMain) => {
          if (msg.type === 'listening') resolve();
          else if (msg.type === 'failed') reject(new Error(msg.message));
          else onWorkerMessage(w, msg);
        });
        w.once('error', (err) => {
          log.error({ err, worker: index }, 'worker crashed');
          reject(err);
        });
        w.once('exit', (code) => {
          if (!stopping) {
            log.fatal({ worker: index, code }, 'HTTP worker exited unexpectedly; stopping');
            void stop().then(() => process.exit(1));
          }
        });
      }),
    ),
  );

  if (config.metricsPort !== null) {
    metricsServer = http.createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      void aggregateMetrics().then((text) => res.writeHead(200, { 'content-type': ctx.metrics.registry.contentType }).end(text));
    });
    await new Promise<void>((resolve, reject) => {
      metricsServer!.once('error', reject);
      metricsServer!.listen(config.metricsPort!, config.host, resolve);
    });
    log.info({ step: 'metrics', port: config.metricsPort }, 'metrics listening');
  }

  // This thread only supervises, refreshes datasets and aggregates metrics: its imports (seconds of
  // CPU) and full GCs (tens of ms) should yield to an HTTP worker sharing its core. Nice 10, not 19: it
  // must still get on with a refresh or a drain on a host whose other services keep the cores busy.
  // libuv's thread pool, which the workers use too (DNS, files), is started first: threads created
  // after this inherit the lower priority. V8's platform threads (parallel GC helpers for every isolate)
  // predate this and keep normal priority: lowering them could leave a worker's scavenge waiting on a
  // starved helper.
  await fs.promises.access(config.dataDir).catch(() => undefined);
  if (!lowerThreadPriority()) log.warn({ step: 'priority' }, 'could not lower the main thread\'s CPU priority; dataset refreshes may slow down answers');

  log.info({ step: 'listening', host: config.host, port, workers: workers.length, ms: Date.now() - t0 }, `listening on ${config.host}:${port}`);
  scheduler = startRefreshScheduler(ctx);

  function stop(): Promise<void> {
    stopped ??= (async () => {
      stopping = true;
      const stoppingScheduler = scheduler;
      scheduler = null;
      await stoppingScheduler?.stop();
      log.info({ step: 'drain' }, 'draining');
      const exits = workers.map((w) => new Promise<void>((resolve) => w.once('exit', () => resolve())));
      for (const w of workers) w.postMessage({ type: 'drain' } satisfies MainToWorker);
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, 9000).unref());
      await Promise.race([Promise.all(exits), deadline]);
      await Promise.all(workers.map((w) => w.terminate()));
      metricsServer?.close();
      metricsServer?.closeAllConnections();
      ctx.db.close();
      log.info({ step: 'stopped' }, 'stopped');
    })();
    return stopped;
  }

  return { port, stop };
}
