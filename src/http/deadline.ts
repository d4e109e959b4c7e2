// Request deadlines without a timer per request: one coarse ticker aborts every controller whose
// deadline has passed. Precision is the tick (100 ms), which is plenty for a 30 s default deadline.
import { LookupError } from './errors.js';

interface Entry {
  readonly controller: AbortController;
  readonly at: number;
}

export class DeadlineTicker {
  private readonly entries = new Set<Entry>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly timeoutMs: number, private readonly tickMs = 100) {}

  /** A signal that aborts with 504 upstream_timeout once the deadline passes; call the returned release when done. */
  start(): { signal: AbortSignal; release: () => void } {
    const entry: Entry = { controller: new AbortController(), at: Date.now() + this.timeoutMs };
    this.entries.add(entry);
    this.timer ??= setInterval(() => this.tick(), this.tickMs).unref();
    return { signal: entry.controller.signal, release: () => this.entries.delete(entry) };
  }

  private tick(): void {
    const now = Date.now();
    for (const e of this.entries) {
      if (e.at <= now) {
        this.entries.delete(e);
        e.controller.abort(new LookupError('upstream_timeout', `The lookup did not finish within ${this.timeoutMs} ms`));
      }
    }
    if (this.entries.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}

/** Local lookups answer from memory synchronously: they get a signal that never aborts. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;
