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
/** Room a fast-path line needs beyond its fixed parts and the request id: the duration digits. */
const LINE_SLACK = 32;
const LINE_END = Buffer.from(',"msg":"request"}\n');

/**
 * The one log line per HTTP request, in pino's exact format (level, time, the logger's bindings) but
 * written by hand into a batch buffer that goes to the destination at most 100 ms or 64 KiB late: pino's
 * generic path plus one destination write per line cost ~9 µs a request, a large share of a local lookup.
 * A GET line is assembled from pre-encoded bytes (the head per millisecond, the middle per route and
 * status) plus the request id and the duration digits, so no line string is built, flattened or encoded.
 * Other methods take the plain path. `requestId` must be printable ASCII without `"` or `\\` (it is copied
 * as is): the dispatcher passes only ids that matched its sane-id pattern, or UUIDs it generated.
 */
export function requestLogger(log: Logger): (requestId: string, method: string, route: string, status: number, durationMs: number) => void {
  const symbols = pino.symbols;
  const bindings = (log as unknown as Record<symbol, string>)[symbols.chindingsSym] ?? '';
  const stream = (log as unknown as Record<symbol, { write(s: string): void } | undefined>)[symbols.streamSym];
  const level = log.levels.values['info']!;
  const batch = Buffer.allocUnsafe(BATCH_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | null = null;
  let lastMs = 0;
  let lastTime = '';
  let head = Buffer.alloc(0);
  // `","method":"GET","route":…,"status":…,"durationMs":` per route template, then per status.
  const middles = new Map<string, Map<number, Buffer>>();
  const flush = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (used === 0 || stream === undefined) return;
    const out = batch.toString('utf8', 0, used);
    used = 0;
    stream.write(out);
  };
  pendingFlushers.add(flush);

  const middleFor = (route: string, status: number): Buffer => {
    let byStatus = middles.get(route);
    if (byStatus === undefined) middles.set(route, (byStatus = new Map()));
    let middle = byStatus.get(status);
    if (middle === undefined) {
      middle = Buffer.from(`","method":"GET","route":${JSON.stringify(route)},"status":${status},"durationMs":`);
      byStatus.set(status, middle);
    }
    return middle;
  };

  const plainLine = (requestId: string, method: string, route: string, status: number, durationMs: number): void => {
    const line =
      `{"level":${level},"time":"${lastTime}"${bindings},"requestId":${JSON.stringify(requestId)},"method":${JSON.stringify(method)},` +
      `"route":${JSON.stringify(route)},"status":${status},"durationMs":${Math.round(Math.max(0, durationMs) * 1e3) / 1e3},"msg":"request"}\n`;
    const size = Buffer.byteLength(line);
    if (used + size > BATCH_BYTES) flush();
    if (size > BATCH_BYTES) stream!.write(line);
    else used += batch.write(line, used);
  };

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
      head = Buffer.from(`{"level":${level},"time":"${lastTime}"${bindings},"requestId":"`);
    }
    timer ??= setTimeout(flush, 100).unref();
    if (method !== 'GET') {
      plainLine(requestId, method, route, status, durationMs);
      return;
    }
    const middle = middleFor(route, status);
    if (used + head.length + requestId.length + middle.length + LINE_END.length + LINE_SLACK > BATCH_BYTES) flush();
    let p = used;
    batch.set(head, p);
    p += head.length;
    p += batch.write(requestId, p, 'latin1');
    batch.set(middle, p);
    p += middle.length;
    p = writeMillis(batch, p, Math.round(Math.max(0, durationMs) * 1e3));
    batch.set(LINE_END, p);
    used = p + LINE_END.length;
  };
}

/**
 * Writes `micros / 1000` as JSON.stringify prints it (at most 3 decimals, no trailing zeros) and returns
 * the new offset: number-to-text of an arbitrary double costs more than the rest of the line.
 */
export function writeMillis(buf: Buffer, at: number, micros: number): number {
  const whole = Math.floor(micros / 1000);
  const frac = micros - whole * 1000;
  let p = at;
  // Up to 15 significant digits the 3-decimal text is also the shortest round-trip one (31 years here).
  if (micros >= 1e15) return p + buf.write(String(micros / 1000), p, 'latin1');
  let digits = 1;
  for (let n = whole; n >= 10; n = Math.floor(n / 10)) digits++;
  for (let i = digits - 1, n = whole; i >= 0; i--, n = Math.floor(n / 10)) buf[p + i] = 48 + (n % 10);
  p += digits;
  if (frac !== 0) {
    buf[p++] = 46;
    buf[p++] = 48 + Math.floor(frac / 100);
    const rest = frac % 100;
    if (rest !== 0) {
      buf[p++] = 48 + Math.floor(rest / 10);
      if (rest % 10 !== 0) buf[p++] = 48 + (rest % 10);
    }
  }
  return p;
}
