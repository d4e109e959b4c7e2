// A small bounded LRU cache with a time-to-live per entry. In memory, no I/O; the clock is injectable
// so tests drive expiry directly instead of sleeping.

export interface LruCacheOptions {
  /** Most entries kept; the least recently used one is evicted beyond this. At least 1. */
  readonly maxEntries: number;
  /** Milliseconds clock; defaults to Date.now. */
  readonly now?: () => number;
}

export interface CacheHit<V> {
  readonly value: V;
  /** When the entry expires, in the clock's milliseconds. */
  readonly expiresAt: number;
  /** Milliseconds left before expiry (> 0). */
  readonly remainingMs: number;
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
}

/**
 * Map-based LRU: a Map iterates in insertion order, so re-inserting on every hit keeps the least
 * recently used entry first, and eviction is O(1).
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  /** The most recently used entry: re-inserting it would change nothing, so a repeat hit skips that. */
  private newest: Entry<V> | null = null;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(opts: LruCacheOptions) {
    if (!Number.isInteger(opts.maxEntries) || opts.maxEntries < 1) throw new RangeError('maxEntries must be an integer >= 1');
    this.maxEntries = opts.maxEntries;
    this.now = opts.now ?? Date.now;
  }

  /** The live entry for `key`, marking it most recently used; expired entries are dropped and missed. */
  get(key: K): CacheHit<V> | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    const remainingMs = e.expiresAt - this.now();
    if (remainingMs <= 0) {
      this.entries.delete(key);
      if (this.newest === e) this.newest = null;
      return undefined;
    }
    if (this.newest !== e) {
      this.entries.delete(key);
      this.entries.set(key, e);
      this.newest = e;
    }
    return { value: e.value, expiresAt: e.expiresAt, remainingMs };
  }

  /** Stores `value` for `ttlMs` milliseconds; a TTL of 0 or less stores nothing (and drops any old entry). */
  set(key: K, value: V, ttlMs: number): void {
    this.entries.delete(key);
    this.newest = null;
    if (!(ttlMs > 0)) return;
    const e = { value, expiresAt: this.now() + ttlMs };
    this.entries.set(key, e);
    this.newest = e;
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.newest = null;
  }

  /** Entries held, including expired ones not yet touched. */
  get size(): number {
    return this.entries.size;
  }

  /** Drops every expired entry; returns how many were removed. Optional: expiry is also lazy. */
  prune(): number {
    const now = this.now();
    let removed = 0;
    for (const [k, e] of this.entries) {
      if (e.expiresAt <= now) {
        this.entries.delete(k);
        removed++;
      }
    }
    return removed;
  }
}
