import { serve, type RunningDaemon } from '../main.js';
import { createLogger, flushLogger } from '../platform/logger.js';
import type { Command } from './commands.js';

export const serveCommand: Command = async (_args, config) => {
  const log = createLogger(config.logLevel);
  // Handlers go in before start-up: a SIGTERM that arrives while the daemon is still starting (or in the
  // moment between "listening" and serve() returning) must drain it, not kill the process.
  let daemon: RunningDaemon | null = null;
  let stopRequested = false;
  let release: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (release = resolve));
  const onSignal = (signal: NodeJS.Signals): void => {
    log.info({ signal }, 'signal received');
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    stopRequested = true;
    if (daemon !== null) void daemon.stop().then(release);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    daemon = await serve(config, log);
  } catch (e) {
    log.fatal({ err: e }, e instanceof Error ? e.message : String(e));
    flushLogger(log);
    return 1;
  }
  if (stopRequested) void daemon.stop().then(release);
  await stopped;
  flushLogger(log);
  return 0;
};
