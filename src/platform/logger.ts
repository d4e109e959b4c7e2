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
  for (const flush of pendingFlushers) flush();
  const stream = (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as { flushSync?: () => void } | undefined;
  try {
    stream?.flushSync?.();
  } catch {
    // Nothing was buffered, or stdout is gone: nothing left to do.
  }
}

/** Pending request lines of every request logger, written out by flushLogger(). */
const pendingFlushers = new Set<() => void>();

// Request lines wait for their batch in bytes, outside the JS heap: kept as strings, a batch lived long
// enough under load to be promoted to the old generation and to slow every scavenge.
const BATCH_BYTES = 64 * 1024;

/**
 * The one log line per HTTP request, in pino's exact format (level, time, the logger's bindings) but
 * serialised by hand and handed to the destination in batches (at most 100 ms or 64 KiB late): pino's
 * generic path plus one destination write per line cost ~9 µs a request, a large share of a local lookup.
 * The timestamp text is reused within a millisecond. `requestId` and `route` are written unescaped: the
 * dispatcher passes only ids that matched its sane-id pattern or that it generated, and route templates.
 */
export function requestLogger(log: Logger): (requestId: string, method: string, route: string, status: number, durationMs: number) => void {
  const symbols = pino.symbols;
  const bindings = (log as unknown as Record<symbol, string>)[symbols.chindingsSym] ?? '';
  const stream = (log as unknown as Record<symbol, { write(s: string): void } | undefined>)[symbols.streamSym];
  const level = log.levels.values['info']!;
  const head = `{"level":${level},"time":"`;
  const batch = Buffer.allocUnsafe(BATCH_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | null = null;
  let lastMs = 0;
  let lastTime = '';
  const flush = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (used === 0 || stream === undefined) return;
    const out = batch.toString('utf8', 0, used);
    used = 0;
    stream.write(out);
  };
  pendingFlushers.add(flush);
  return (requestId, method, route, status, durationMs) => {
    if (!log.isLevelEnabled('info')) return;
    if (stream === undefined) {
      log.info({ requestId, method, route, status, durationMs }, 'request');
      return;
    }
    const ms = Date.now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastTime = new Date(ms).toISOString();
    }
    const line =
      `${head}${lastTime}"${bindings},"requestId":"${requestId}","method":${method === 'GET' ? '"GET"' : JSON.stringify(method)},` +
      `"route":"${route}","status":${status},"durationMs":${durationMs},"msg":"request"}\n`;
    // At most 3 UTF-8 bytes per UTF-16 unit, so a line that passes this check always fits.
    if (used + line.length * 3 > BATCH_BYTES) flush();
    if (line.length * 3 > BATCH_BYTES) {
      stream.write(line);
      return;
    }
    used += batch.write(line, used);
    timer ??= setTimeout(flush, 100).unref();
  };
}
