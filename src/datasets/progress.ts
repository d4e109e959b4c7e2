// Import progress: a bar on a terminal, a few log lines otherwise (journald should not get 100 lines).
import cliProgress from 'cli-progress';
import type { Logger } from '../platform/logger.js';

export interface Progress {
  /** One task (a file), measured in bytes. */
  start(label: string, total: number): void;
  update(done: number): void;
  stop(): void;
}

export type ProgressFactory = () => Progress;

export const noProgress: ProgressFactory = () => ({ start() {}, update() {}, stop() {} });

/** A bar on stderr when it is a terminal; otherwise info lines at every quarter. */
export function progressFor(log: Logger, stream: NodeJS.WriteStream = process.stderr): ProgressFactory {
  if (stream.isTTY === true) {
    return () => {
      const bar = new cliProgress.SingleBar(
        { stream, format: '{label} [{bar}] {percentage}% {mb}/{totalmb} MB', hideCursor: true, clearOnComplete: false, fps: 10 },
        cliProgress.Presets.shades_classic,
      );
      let total = 0;
      const mb = (n: number): string => (n / 1048576).toFixed(1);
      return {
        start(label, t) {
          total = t;
          bar.start(t, 0, { label, mb: '0.0', totalmb: mb(t) });
        },
        update(done) {
          bar.update(Math.min(done, total), { mb: mb(done) });
        },
        stop() {
          bar.stop();
        },
      };
    };
  }
  return () => {
    let label = '';
    let total = 0;
    let next = 0.25;
    return {
      start(l, t) {
        label = l;
        total = t;
        next = 0.25;
      },
      update(done) {
        if (total <= 0) return;
        const f = done / total;
        if (f >= next && f < 1) {
          log.info({ step: 'import', file: label, percent: Math.floor(f * 100) }, `importing ${label}: ${Math.floor(f * 100)}%`);
          while (next <= f) next += 0.25;
        }
      },
      stop() {},
    };
  };
}
