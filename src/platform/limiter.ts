// A counting semaphore that refuses instead of queueing without bound.
import { LookupError } from '../http/errors.js';

export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number, private readonly maxQueue: number = max) {}

  /** Runs fn when a slot is free; throws 503 `overloaded` when the queue is full too. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) {
      if (this.waiting.length >= this.maxQueue) {
        throw new LookupError('overloaded', 'Too many lookups in progress; retry shortly', { 'retry-after': '1' });
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.active--;
    }
  }

  get inUse(): number {
    return this.active;
  }
}
