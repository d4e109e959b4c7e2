import { serve } from '../main.js';
import { createLogger, flushLogger } from '../platform/logger.js';
import type { Command } from './commands.js';

export const serveCommand: Command = async (_args, config) => {
  const log = createLogger(config.logLevel);
  let daemon;
  try {
    daemon = await serve(config, log);
  } catch (e) {
    log.fatal({ err: e }, e instanceof Error ? e.message : String(e));
    flushLogger(log);
    return 1;
  }
  const running = daemon;
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      log.info({ signal }, 'signal received');
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      void running.stop().then(resolve);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  flushLogger(log);
  return 0;
};
