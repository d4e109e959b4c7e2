// One HTTP worker thread: its own store connection and datasets, serving the shared port (SO_REUSEPORT).
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from './config.js';
import { createContext } from './main.js';
import { createHttpServer } from './http/server.js';
import { createGate, type GateShare } from './http/gate.js';
import { Metrics } from './platform/metrics.js';
import { createLookups } from './lookups/index.js';
import { createLogger, flushLogger } from './platform/logger.js';
import type { MainToWorker, WorkerData, WorkerToMain } from './worker-protocol.js';

const data = workerData as WorkerData;
const port = parentPort!;
const post = (msg: WorkerToMain): void => port.postMessage(msg);

const config = loadConfig();
const log = createLogger(config.logLevel).child({ worker: data.index });

async function start(): Promise<void> {
  const ctx = createContext(config, log, new Metrics(), data.datasets);
  const health = { startedAt: Date.now(), draining: false, inflight: 0 };
  const pendingText = new Map<number, (t: string) => void>();
  let nextId = 1;
  const metricsText = data.metricsOnMain
    ? null
    : (): Promise<string> =>
        new Promise<string>((resolve) => {
          const id = nextId++;
          pendingText.set(id, resolve);
          post({ type: 'metrics-query', id });
        });

  const gate = createGate(ctx, data.gate as GateShare | null);
  const app = createHttpServer({ ctx, lookups: createLookups(ctx), health, gate, metricsText });
  await app.listen(data.port, config.host);

  port.on('message', (msg: MainToWorker) => {
    switch (msg.type) {
      case 'metrics-request':
        void ctx.metrics.registry.getMetricsAsJSON().then((metrics) => post({ type: 'metrics-response', id: msg.id, metrics }));
        return;
      case 'metrics-text':
        pendingText.get(msg.id)?.(msg.text);
        pendingText.delete(msg.id);
        return;
      case 'dataset-changed':
        ctx.datasets.reload(msg.name, msg.share);
        return;
      case 'drain':
        void drain();
        return;
    }
  });

  async function drain(): Promise<void> {
    health.draining = true;
    // Let load balancers see the 503 before the listen socket goes away.
    await sleep(config.drainDelayMs);
    app.close();
    const deadline = Date.now() + 8000;
    while (health.inflight > 0 && Date.now() < deadline) await sleep(20);
    // hyper-express close() leaves keep-alive sockets open; the uWS app close ends them.
    (app.uws_instance as unknown as { close(): void }).close();
    gate.close(); // writes pending API key usage while the store is still open
    ctx.db.close();
    flushLogger(log);
    // Closing the port lets the thread end once its loop is empty (process.exit would skip profilers' and
    // libraries' exit work); main terminates a worker that lingers past its deadline.
    port.close();
  }

  post({ type: 'listening' });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

start().catch((err: unknown) => {
  log.error({ err }, 'worker failed to start');
  post({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
});
