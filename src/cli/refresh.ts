// `netintel refresh [dataset] [--force] [--rollback]`: the same job as the daemon's cron task, run in
// this process against the data directory. When a daemon runs on the same data directory (its pid in
// <dataDir>/netintel.pid), it is sent SIGHUP afterwards: it then loads the versions this command
// activated (and runs its own refresh, which finds every source unchanged).
import fs from 'node:fs';
import { createContext } from '../main.js';
import { createLogger, flushLogger } from '../platform/logger.js';
import { progressFor } from '../datasets/progress.js';
import { refreshAll, refreshDataset, rollbackDataset, type RefreshOutcome } from '../datasets/refresh/job.js';
import { removeRefreshLeftovers } from '../datasets/refresh/retention.js';
import { pidFile } from '../datasets/refresh/scheduler.js';
import { REFRESH_NAMES, toRefreshName } from '../datasets/refresh/sources.js';
import { UsageError, parseArgs } from './args.js';
import type { Command } from './commands.js';

export const refreshCommand: Command = async (args, config) => {
  const { positionals, flags } = parseArgs(args);
  const unknown = Object.keys(flags).filter((f) => f !== 'force' && f !== 'rollback');
  if (unknown.length > 0) throw new UsageError(`unknown option --${unknown[0]}; refresh takes [dataset] [--force] [--rollback]`);
  if (positionals.length > 1) throw new UsageError('refresh takes at most one dataset');
  const given = positionals[0];
  const name = given === undefined ? null : toRefreshName(given);
  if (given !== undefined && name === null) throw new UsageError(`unknown dataset ${JSON.stringify(given)}: expected one of ${REFRESH_NAMES.join(', ')}`);
  const rollback = flags['rollback'] === true;
  if (rollback && name === null) throw new UsageError('--rollback needs a dataset: netintel refresh <dataset> --rollback');

  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const ctx = createContext(config, log);
  let outcomes: RefreshOutcome[];
  try {
    removeRefreshLeftovers(config.dataDir);
    const progress = progressFor(log);
    if (rollback) outcomes = [await rollbackDataset(ctx, name!, { progress })];
    else if (name !== null) outcomes = [await refreshDataset(ctx, name, { force: flags['force'] === true, progress, trigger: 'cli' })];
    else outcomes = await refreshAll(ctx, { force: flags['force'] === true, progress, trigger: 'cli' });
  } finally {
    ctx.db.close();
  }
  for (const o of outcomes) {
    const line = `${o.result === 'failure' ? 'FAILED' : o.result.replace('_', ' ')}: ${o.message} (${(o.durationMs / 1000).toFixed(1)} s)\n`;
    (o.result === 'failure' ? process.stderr : process.stdout).write(line);
  }
  if (outcomes.some((o) => o.changed)) process.stdout.write(signalDaemon(config.dataDir));
  flushLogger(log);
  return outcomes.some((o) => o.result === 'failure') ? 1 : 0;
};

/** Tells the daemon of this data directory to pick up what changed; says what it did. */
function signalDaemon(dataDir: string): string {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile(dataDir), 'utf8').trim());
  } catch {
    return 'No daemon is running on this data directory; it loads the new data when it starts.\n';
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !looksLikeDaemon(pid)) {
    return 'No daemon is running on this data directory (stale pid file); it loads the new data when it starts.\n';
  }
  try {
    process.kill(pid, 'SIGHUP');
    return `Sent SIGHUP to the daemon (pid ${pid}): it switches to the new data now.\n`;
  } catch (e) {
    return `Could not signal the daemon (pid ${pid}: ${(e as NodeJS.ErrnoException).code}); send it SIGHUP to switch to the new data.\n`;
  }
}

/** A pid file can outlive its daemon and the pid be reused: check the process is a `serve`. */
function looksLikeDaemon(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('serve');
  } catch {
    // No /proc (not Linux): trust the pid file.
    return true;
  }
}
