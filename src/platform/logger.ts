import pino, { type Logger } from 'pino';
import type { LogLevel } from '../config.js';

export type { Logger };

// JSON to stdout only: journald collects it, and pino transports do not work inside the single executable.
export function createLogger(level: LogLevel, destination: pino.DestinationStream = pino.destination({ sync: false })): Logger {
  return pino(
    {
      level,
      base: { service: 'netintel' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['authorization', 'req.headers.authorization', 'headers.authorization', 'apiKey', 'key'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/** Writes out buffered log lines synchronously: call right before the thread or process exits. */
export function flushLogger(log: Logger): void {
  const stream = (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as { flushSync?: () => void } | undefined;
  try {
    stream?.flushSync?.();
  } catch {
    // Nothing was buffered, or stdout is gone: nothing left to do.
  }
}
