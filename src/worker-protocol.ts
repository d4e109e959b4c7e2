// Messages between the main thread (data, scheduler, metrics aggregation) and the HTTP workers.

export interface WorkerData {
  readonly port: number;
  readonly index: number;
  /** Metrics are served on their own port by the main thread. */
  readonly metricsOnMain: boolean;
  /** Datasets.share() of the main thread. */
  readonly datasets: unknown;
  /** createGateShare() of the main thread. */
  readonly gate: unknown;
}

export type MainToWorker =
  | { type: 'drain' }
  | { type: 'metrics-request'; id: number }
  | { type: 'metrics-text'; id: number; text: string }
  | { type: 'dataset-changed'; name: string; share: unknown };

export type WorkerToMain =
  | { type: 'listening' }
  | { type: 'failed'; message: string }
  | { type: 'metrics-response'; id: number; metrics: object[] }
  | { type: 'metrics-query'; id: number };
