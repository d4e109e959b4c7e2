// What every lookup module and the HTTP layer receive from the composition root.
import type { Config } from './config.js';
import type { Logger } from './platform/logger.js';
import type { Metrics } from './platform/metrics.js';
import type { Db } from './platform/sqlite.js';
import type { Datasets } from './datasets/registry.js';

export interface AppContext {
  readonly config: Config;
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly db: Db;
  readonly datasets: Datasets;
}
