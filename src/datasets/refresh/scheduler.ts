// The daemon's refresh scheduler: one node-cron task (NETINTEL_REFRESH_SCHEDULE in NETINTEL_REFRESH_TZ,
// noOverlap, a random delay of up to NETINTEL_REFRESH_MAX_DELAY) running refreshAll. SIGHUP runs the same
// job at once, after picking up versions another process (`netintel import|refresh`) activated in the store.
import fs from 'node:fs';
import path from 'node:path';
import cron, { type Logger as CronLogger, type ScheduledTask } from 'node-cron';
import type { AppContext } from '../../context.js';
import type { Logger } from '../../platform/logger.js';
import { publishDatasetGauges, refreshAll, type RefreshOutcome } from './job.js';
import { removeRefreshLeftovers } from './retention.js';

export const TASK_NAME = 'netintel-dataset-refresh';

/** The file `netintel refresh` reads to tell a running daemon (SIGHUP) about what it changed. */
export function pidFile(dataDir: string): string {
  return path.join(dataDir, 'netintel.pid');
}

/** node-cron prints coloured console lines of its own (overlap, missed runs); send them to pino. */
export function cronLogger(log: Logger): CronLogger {
  const text = (m: string | Error): string => (m instanceof Error ? m.message : m);
  return {
    info: (m) => log.info({ component: 'cron' }, m),
    warn: (m) => log.warn({ component: 'cron' }, m),
    error: (m, err) => log.error({ component: 'cron', err: err ?? (m instanceof Error ? m : undefined) }, text(m)),
    debug: (m, err) => log.debug({ component: 'cron', err }, text(m)),
  };
}

export interface SchedulerOptions {
  /** Start the cron clock (tests trigger the task directly instead). Default true. */
  readonly start?: boolean;
  /** Write <dataDir>/netintel.pid for `netintel refresh`. Default true. */
  readonly writePidFile?: boolean;
}

export class RefreshScheduler {
  readonly task: ScheduledTask;
  private readonly abort = new AbortController();
  private running: Promise<RefreshOutcome[]> | null = null;
  private again = false;
  private stopped = false;
  /** `loaded_at|sha256` of every dataset row as this process last saw it. */
  private readonly seen = new Map<string, string>();
  private readonly log: Logger;

  constructor(private readonly ctx: AppContext, private readonly opts: SchedulerOptions = {}) {
    this.log = ctx.log.child({ step: 'refresh' });
    const removed = removeRefreshLeftovers(ctx.config.dataDir);
    if (removed.length > 0) this.log.info({ removed }, `removed ${removed.length} leftovers of interrupted refreshes`);
    this.snapshotStore();
    const logger = cronLogger(ctx.log);
    cron.setLogger(logger);
    this.task = cron.createTask(ctx.config.refreshSchedule, () => this.runAll('schedule'), {
      name: TASK_NAME,
      timezone: ctx.config.refreshTz,
      noOverlap: true,
      maxRandomDelay: ctx.config.refreshMaxDelay * 1000,
      logger,
    });
    // Already shown with the message; node-cron also reports a failed run through the logger.
    this.task.on('execution:overlap', () => this.log.warn('scheduled refresh skipped: the previous one is still running'));
    if (opts.start !== false) void this.task.start();
    if (opts.writePidFile !== false) {
      try {
        fs.writeFileSync(pidFile(ctx.config.dataDir), `${process.pid}\n`);
      } catch (e) {
        this.log.warn({ err: (e as Error).message }, 'could not write the pid file; `netintel refresh` will not signal this daemon');
      }
    }
    const next = this.task.getNextRun() ?? this.task.getNextRuns(1)[0] ?? null;
    this.log.info(
      { schedule: ctx.config.refreshSchedule, tz: ctx.config.refreshTz, maxDelaySeconds: ctx.config.refreshMaxDelay, next: next?.toISOString() ?? null },
      `dataset refresh scheduled (${ctx.config.refreshSchedule} ${ctx.config.refreshTz}); next run ${next?.toISOString() ?? 'never'}`,
    );
  }

  /**
   * Refreshes every dataset; calls made while one runs coalesce into one more run after it (a SIGHUP
   * sent right after `netintel refresh` changed the store must not be lost).
   */
  runAll(trigger: string): Promise<RefreshOutcome[]> {
    if (this.stopped) return Promise.resolve([]);
    if (this.running !== null) {
      this.again = true;
      return this.running;
    }
    const run = async (): Promise<RefreshOutcome[]> => {
      let out: RefreshOutcome[] = [];
      do {
        this.again = false;
        this.syncFromStore();
        out = await refreshAll(this.ctx, { signal: this.abort.signal, trigger });
        for (const o of out) if (o.result === 'success') this.markSeen(o.dataset);
        const summary = Object.fromEntries(out.map((o) => [o.dataset, o.result]));
        this.log.info({ trigger, results: summary }, `dataset refresh done (${trigger})`);
      } while (this.again && !this.stopped);
      return out;
    };
    this.running = run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** SIGHUP: never fatal, never overlapping. */
  onSignal(): void {
    this.log.info({ signal: 'SIGHUP' }, 'SIGHUP: reloading changed datasets and refreshing');
    void this.runAll('signal').catch((e: unknown) => this.log.error({ err: e }, 'refresh after SIGHUP failed'));
  }

  /**
   * Activates (in this process and its workers) versions that another process wrote to the store.
   * Returns the dataset rows that changed.
   */
  syncFromStore(): string[] {
    const changed: string[] = [];
    for (const row of this.rows()) {
      const key = `${row.loaded_at}|${row.sha256}`;
      if (row.loaded_at !== null && this.seen.get(row.name) !== key) {
        changed.push(row.name);
        this.ctx.datasets.activated(row.name);
        publishDatasetGauges(this.ctx, row.name);
      }
      this.seen.set(row.name, key);
    }
    if (changed.length > 0) this.log.info({ datasets: changed }, `picked up ${changed.join(', ')} from the store`);
    return changed;
  }

  /** Stops the clock, cancels downloads in flight and waits (bounded) for the running refresh. */
  async stop(waitMs = 3000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.task.stop();
    await this.task.destroy();
    this.abort.abort();
    const running = this.running;
    if (running !== null) {
      await Promise.race([running.catch(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, waitMs).unref())]);
    }
    if (this.opts.writePidFile !== false) {
      try {
        if (fs.readFileSync(pidFile(this.ctx.config.dataDir), 'utf8').trim() === String(process.pid)) fs.rmSync(pidFile(this.ctx.config.dataDir), { force: true });
      } catch {
        // Already gone.
      }
    }
  }

  private rows(): { name: string; loaded_at: string | null; sha256: string | null }[] {
    return this.ctx.db.prepare('SELECT name, loaded_at, sha256 FROM dataset').all() as { name: string; loaded_at: string | null; sha256: string | null }[];
  }

  private snapshotStore(): void {
    for (const row of this.rows()) this.seen.set(row.name, `${row.loaded_at}|${row.sha256}`);
  }

  private markSeen(dataset: string): void {
    const name = dataset.replace(/-/g, '_');
    for (const row of this.rows()) if (row.name === dataset || row.name === name) this.seen.set(row.name, `${row.loaded_at}|${row.sha256}`);
  }
}

export function startRefreshScheduler(ctx: AppContext, opts: SchedulerOptions = {}): RefreshScheduler {
  return new RefreshScheduler(ctx, opts);
}
