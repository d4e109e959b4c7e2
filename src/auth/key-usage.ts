// Daily request counters per API key, shared by all HTTP worker threads through SharedArrayBuffers.
// The counters are exact across workers (one lock per key); SQLite is where they persist: any worker
// may flush, and each flush claims the not-yet-written part of a counter under its lock, so every
// request is written exactly once. A key's slot is filled from SQLite the first time it is used after a
// start, so usage survives restarts. Slots are never freed while the daemon runs (keys are few):
// KEY_SLOTS distinct keys per run at most; beyond that, requests with a further key are refused with
// 503 overloaded (and a log line) until a restart.
import { lockWord, unlockWord } from '../http/shared-lock.js';
import { mix32 } from '../http/rate-limit.js';
import type { UsageDelta } from './key-repo.js';

export const KEY_SLOTS = 16_384;

// Per slot: Int32 [lock, keyId, day, prevDay]; Float64 [count, flushed, prevUnflushed].
const I = 4;
const F = 3;

export interface KeyUsageShare {
  readonly slots: number;
  readonly ints: SharedArrayBuffer;
  readonly floats: SharedArrayBuffer;
}

export function createKeyUsageShare(slots = KEY_SLOTS): KeyUsageShare {
  return { slots, ints: new SharedArrayBuffer(slots * I * 4), floats: new SharedArrayBuffer(slots * F * 8) };
}

export interface UsageDecision {
  readonly allowed: boolean;
  /** Requests counted today, this one included when allowed. */
  readonly used: number;
}

export class KeyUsageTable {
  private readonly ints: Int32Array;
  private readonly floats: Float64Array;
  private readonly slots: number;

  constructor(share: KeyUsageShare) {
    this.ints = new Int32Array(share.ints);
    this.floats = new Float64Array(share.floats);
    this.slots = share.slots;
  }

  /**
   * Counts one request of key `keyId` (> 0) on `day` against `limit` (0 = unlimited).
   * `load` gives the count already stored for that day; it is called once per key per daemon run,
   * under the slot's lock. Returns null when every slot is taken by other keys.
   */
  take(keyId: number, day: number, limit: number, load: (keyId: number, day: number) => number): UsageDecision | null {
    const slot = this.slotOf(keyId, day, load);
    if (slot < 0) return null;
    const ints = this.ints;
    const f = slot * F;
    lockWord(ints, slot * I);
    try {
      this.roll(slot, day);
      const count = this.floats[f]!;
      if (limit > 0 && count >= limit) return { allowed: false, used: count };
      this.floats[f] = count + 1;
      return { allowed: true, used: count + 1 };
    } finally {
      unlockWord(ints, slot * I);
    }
  }

  /** Claims the unwritten part of every counter. Pass the result to SQLite; on failure, give it back with restore(). */
  drain(): UsageDelta[] {
    const out: UsageDelta[] = [];
    const ints = this.ints;
    const floats = this.floats;
    for (let slot = 0; slot < this.slots; slot++) {
      const i = slot * I;
      const keyId = Atomics.load(ints, i + 1);
      if (keyId === 0) continue;
      const f = slot * F;
      lockWord(ints, i);
      try {
        const pending = floats[f]! - floats[f + 1]!;
        if (pending > 0) out.push({ keyId, day: ints[i + 2]!, requests: pending });
        floats[f + 1] = floats[f]!;
        if (floats[f + 2]! > 0) out.push({ keyId, day: ints[i + 3]!, requests: floats[f + 2]! });
        floats[f + 2] = 0;
      } finally {
        unlockWord(ints, i);
      }
    }
    return out;
  }

  /** Puts back deltas that could not be written, so the next flush tries again. */
  restore(deltas: readonly UsageDelta[]): void {
    for (const d of deltas) {
      const slot = this.find(d.keyId);
      if (slot < 0) continue;
      const i = slot * I;
      const f = slot * F;
      lockWord(this.ints, i);
      try {
        if (this.ints[i + 2] === d.day) this.floats[f + 1] = this.floats[f + 1]! - d.requests;
        else if (this.ints[i + 3] === d.day) this.floats[f + 2] = this.floats[f + 2]! + d.requests;
      } finally {
        unlockWord(this.ints, i);
      }
    }
  }

  /** A new UTC day starts from zero; yesterday's unwritten requests wait for the next flush. Lock held. */
  private roll(slot: number, day: number): void {
    const i = slot * I;
    const f = slot * F;
    const current = this.ints[i + 2]!;
    if (day <= current) return;
    // Two rolls between flushes cannot happen in practice (flushes run every few seconds); if they
    // did, the older day's remainder would be counted under the newer one rather than lost.
    if (this.floats[f + 2] === 0) this.ints[i + 3] = current;
    const pending = this.floats[f]! - this.floats[f + 1]!;
    if (pending > 0) this.floats[f + 2] = this.floats[f + 2]! + pending;
    this.ints[i + 2] = day;
    this.floats[f] = 0;
    this.floats[f + 1] = 0;
  }

  private find(keyId: number): number {
    const start = mix32(keyId) % this.slots;
    for (let n = 0; n < this.slots; n++) {
      const slot = (start + n) % this.slots;
      const id = Atomics.load(this.ints, slot * I + 1);
      if (id === keyId) return slot;
      if (id === 0) return -1;
    }
    return -1;
  }

  private slotOf(keyId: number, day: number, load: (keyId: number, day: number) => number): number {
    const start = mix32(keyId) % this.slots;
    for (let n = 0; n < this.slots; n++) {
      const slot = (start + n) % this.slots;
      const i = slot * I;
      const id = Atomics.load(this.ints, i + 1);
      if (id === keyId) return slot;
      if (id !== 0) continue;
      lockWord(this.ints, i);
      try {
        const again = this.ints[i + 1]!;
        if (again === keyId) return slot;
        if (again !== 0) continue;
        const stored = load(keyId, day);
        const f = slot * F;
        this.ints[i + 2] = day;
        this.ints[i + 3] = 0;
        this.floats[f] = stored;
        this.floats[f + 1] = stored;
        this.floats[f + 2] = 0;
        Atomics.store(this.ints, i + 1, keyId);
        return slot;
      } finally {
        unlockWord(this.ints, i);
      }
    }
    return -1;
  }
}
