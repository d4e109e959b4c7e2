import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createLogger, flushLogger, requestLogger, writeMillis } from '../../../src/platform/logger.js';

function capture(level: 'info' | 'warn' = 'info') {
  const chunks: string[] = [];
  const log = createLogger(level, { write: (s: string) => void chunks.push(s) });
  const lines = (): string[] => chunks.join('').split('\n').filter((l) => l !== '');
  return { log, chunks, lines };
}

/** What pino itself writes for the same fields, with the time taken from `line` (it differs by a few ms). */
function pinoLine(line: string, fields: Record<string, unknown>): string {
  const ref = capture();
  ref.log.child({ module: 'http' }).info(fields, 'request');
  const time = (JSON.parse(line) as { time: string }).time;
  return ref.lines()[0]!.replace(/"time":"[^"]*"/, `"time":"${time}"`);
}

describe('requestLogger', () => {
  it('writes exactly the line pino would write, GET and other methods alike', () => {
    const { log, lines } = capture();
    const write = requestLogger(log.child({ module: 'http' }));
    const cases = [
      { requestId: '0a1b2c3d-1111-4222-8333-444455556666', method: 'GET', route: '/v1/ip/{ip}', status: 200, durationMs: 0.1234 },
      { requestId: 'probe.1:@/+=-', method: 'GET', route: '/', status: 503, durationMs: 12 },
      { requestId: 'x', method: 'GET', route: 'not_found', status: 404, durationMs: 1234.5678 },
      { requestId: 'y', method: 'OPTIONS', route: 'preflight', status: 204, durationMs: 0 },
      { requestId: 'z', method: 'PO"ST\u00e9', route: 'method_not_allowed', status: 405, durationMs: 0.0004 },
    ];
    for (const c of cases) write(c.requestId, c.method, c.route, c.status, c.durationMs);
    expect(lines()).toEqual([]); // batched until a flush
    flushLogger(log);
    const out = lines();
    expect(out).toHaveLength(cases.length);
    out.forEach((line, i) => {
      const c = cases[i]!;
      expect(line).toBe(pinoLine(line, { ...c, durationMs: Math.round(c.durationMs * 1e3) / 1e3 }));
    });
  });

  it('keeps every line whole and in order across many batches', () => {
    const { log, chunks, lines } = capture();
    const write = requestLogger(log);
    const n = 2000; // well over one 64 KiB batch
    for (let i = 0; i < n; i++) write(`id-${i}`, 'GET', '/v1/mac/{mac}', 200, i / 7);
    flushLogger(log);
    expect(chunks.length).toBeGreaterThan(2);
    const parsed = lines().map((l) => JSON.parse(l) as { requestId: string; durationMs: number });
    expect(parsed.map((p) => p.requestId)).toEqual(Array.from({ length: n }, (_, i) => `id-${i}`));
    parsed.forEach((p, i) => expect(p.durationMs).toBe(Math.round((i / 7) * 1e3) / 1e3));
  });

  it('writes nothing below its level', () => {
    const { log, lines } = capture('warn');
    requestLogger(log)('a', 'GET', '/', 200, 1);
    flushLogger(log);
    expect(lines()).toEqual([]);
  });
});

describe('writeMillis', () => {
  const text = (micros: number): string => {
    const buf = Buffer.alloc(64);
    return buf.toString('latin1', 0, writeMillis(buf, 0, micros));
  };

  it('prints micros / 1000 as JSON.stringify does', () => {
    for (const us of [0, 1, 10, 100, 999, 1000, 1001, 1010, 1100, 12_345, 100_000, 999_999_999]) {
      expect(text(us)).toBe(JSON.stringify(us / 1000));
    }
    fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (us) => text(us) === JSON.stringify(us / 1000)), { numRuns: 5000 });
  });
});
