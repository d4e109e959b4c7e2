// Free-tier rate limiting: GCRA (a token bucket kept as one number per client) in a fixed-size,
// set-associative hash table in SharedArrayBuffers, so every HTTP worker thread sees the same counters.
//
// Why GCRA: the whole state of a client is its "theoretical arrival time" (TAT), one float, so a slot is
// small and an entry whose TAT has passed carries no information (the bucket is full again) and can be
// dropped at any time. `limit` requests are allowed at once, then one more every window/limit.
//
// Memory is fixed at creation (NETINTEL_RATE_LIMIT_ENTRIES slots, ~20 bytes each). A key hashes to one
// set of WAYS slots guarded by one lock. A new client takes, in order: an empty slot, a slot whose
// bucket has refilled (expired), else the slot whose bucket is the fullest (smallest TAT). So when the
// table is full of active clients, the evicted client is the one closest to a full allowance: it gets
// at most its remaining allowance back (the limiter fails open by that much, never closed), and heavy
// users, whose TAT lies far ahead, are the last to be evicted. A flood of distinct addresses therefore
// costs no memory and mostly evicts its own one-request entries.
import { lockWord, unlockWord } from './shared-lock.js';

export const WAYS = 8;
/** Slack for float rounding, as a fraction of one interval, so that exactly `limit` back-to-back requests pass. */
const SLACK = 1e-3;

export interface GcraDecision {
  readonly allowed: boolean;
  /** TAT to store when allowed (unchanged TAT otherwise). */
  readonly tat: number;
  readonly remaining: number;
  /** Whole seconds until the allowance is full again. */
  readonly resetSeconds: number;
  /** Whole seconds until the next request is allowed (0 when allowed). */
  readonly retryAfterSeconds: number;
}

/**
 * One GCRA step (pure). `tat` is the stored theoretical arrival time (ms; ≤ now means "bucket full"),
 * `limit` ≥ 1 requests per `windowMs`.
 */
export function gcra(tat: number, now: number, limit: number, windowMs: number): GcraDecision {
  const interval = windowMs / limit;
  // Rounding grows with the magnitude of the times (relative to the share's epoch, so small) and with
  // the length of a burst; both stay far below this slack for any sane limit.
  const slack = interval * SLACK + Math.abs(now) * 1e-12;
  const base = tat > now ? tat : now;
  const next = base + interval;
  if (next - now <= windowMs + slack) {
    const remaining = Math.max(0, Math.min(limit - 1, Math.floor((windowMs - (next - now)) / interval + SLACK)));
    return { allowed: true, tat: next, remaining, resetSeconds: Math.max(0, Math.ceil((next - now - slack) / 1000)), retryAfterSeconds: 0 };
  }
  return {
    allowed: false,
    tat,
    remaining: 0,
    resetSeconds: Math.max(1, Math.ceil((base - now - slack) / 1000)),
    retryAfterSeconds: Math.max(1, Math.ceil((next - windowMs - now - slack) / 1000)),
  };
}

/** A client (or any subject) as three 32-bit words; k2 must be non-zero (0 marks an empty slot). */
export interface SubjectKey {
  readonly k0: number;
  readonly k1: number;
  readonly k2: number;
}

/** Structured-cloneable: passed to each worker in workerData; the buffers are shared, not copied. */
export interface RateTableShare {
  readonly sets: number;
  readonly seed: number;
  /** Times are kept relative to this (ms since 1970) so that floats keep sub-microsecond precision. */
  readonly epoch: number;
  readonly keys: SharedArrayBuffer;
  readonly tats: SharedArrayBuffer;
  readonly locks: SharedArrayBuffer;
}

export function createRateTableShare(entries: number, seed = (Math.random() * 0x100000000) >>> 0, epoch = Date.now()): RateTableShare {
  const sets = Math.max(1, Math.ceil(entries / WAYS));
  const slots = sets * WAYS;
  return {
    sets,
    seed,
    epoch,
    keys: new SharedArrayBuffer(slots * 3 * 4),
    tats: new SharedArrayBuffer(slots * 8),
    locks: new SharedArrayBuffer(sets * 4),
  };
}

export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class RateTable {
  private readonly keys: Int32Array;
  private readonly tats: Float64Array;
  private readonly locks: Int32Array;
  private readonly sets: number;
  private readonly seed: number;
  private readonly now: () => number;

  /** `now` (ms, any origin) replaces the clock in tests; by default, ms since the share's epoch. */
  constructor(share: RateTableShare, now?: () => number) {
    this.now = now ?? (() => Date.now() - share.epoch);
    this.keys = new Int32Array(share.keys);
    this.tats = new Float64Array(share.tats);
    this.locks = new Int32Array(share.locks);
    this.sets = share.sets;
    this.seed = share.seed;
  }

  get capacity(): number {
    return this.sets * WAYS;
  }

  /** Counts one request of `key` against `limit` per `windowMs` (limit ≥ 1). */
  take(key: SubjectKey, limit: number, windowMs: number): GcraDecision {
    const k0 = key.k0 | 0;
    const k1 = key.k1 | 0;
    const k2 = key.k2 | 0;
    const set = mix32(mix32(mix32(k0 ^ this.seed) ^ k1) ^ k2) % this.sets;
    const keys = this.keys;
    const tats = this.tats;
    lockWord(this.locks, set);
    try {
      const now = this.now();
      const first = set * WAYS;
      let found = -1;
      let free = -1;
      let victim = first;
      let victimTat = Infinity;
      for (let slot = first; slot < first + WAYS; slot++) {
        const at = slot * 3;
        if (keys[at + 2] === 0) {
          if (free < 0) free = slot;
          continue;
        }
        if (keys[at] === k0 && keys[at + 1] === k1 && keys[at + 2] === k2) {
          found = slot;
          break;
        }
        const t = tats[slot]!;
        if (t <= now) {
          if (free < 0) free = slot;
        } else if (t < victimTat) {
          victimTat = t;
          victim = slot;
        }
      }
      const slot = found >= 0 ? found : free >= 0 ? free : victim;
      const decision = gcra(found >= 0 ? tats[slot]! : now, now, limit, windowMs);
      if (decision.allowed) {
        if (found < 0) {
          const at = slot * 3;
          keys[at] = k0;
          keys[at + 1] = k1;
          keys[at + 2] = k2;
        }
        tats[slot] = decision.tat;
      }
      return decision;
    } finally {
      unlockWord(this.locks, set);
    }
  }

  /** Slots holding a client whose bucket has not refilled yet (for tests and diagnostics). */
  activeEntries(): number {
    const now = this.now();
    let n = 0;
    for (let slot = 0; slot < this.capacity; slot++) if (this.keys[slot * 3 + 2] !== 0 && this.tats[slot]! > now) n++;
    return n;
  }
}
