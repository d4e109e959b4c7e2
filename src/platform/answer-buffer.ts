// Buffers for answers that are sent and dropped within the request, carved from 64 KiB slabs. Node's
// Buffer.allocUnsafe carves from 8 KiB pools, so a local lookup made a new ArrayBuffer every ~16
// answers; the scavenger sweeps every young ArrayBuffer one by one, and under load that sweep was a
// quarter of each scavenge pause (0.19 of 0.8 ms). A slab per ~130 answers makes it negligible, and
// stays below glibc's mmap threshold, so slabs come from the heap rather than fresh zeroed pages.
// Like Node's pool, a buffer keeps its whole slab alive: these are for short-lived answers only,
// never for anything a cache keeps.

const SLAB_BYTES = 64 * 1024;
/** Larger answers get their own allocation. */
const MAX_CARVED = SLAB_BYTES / 8;

// Not zero-filled, as Buffer.allocUnsafe's pool is not: every byte handed out is written before it is sent.
const newSlab = (): ArrayBuffer => Buffer.allocUnsafeSlow(SLAB_BYTES).buffer as ArrayBuffer;

/**
 * A Buffer over part of a slab. Built the way Node builds its own pooled Buffers (a Uint8Array subclass
 * whose prototype chain holds Buffer.prototype): Buffer.from(arrayBuffer, offset, length) validates
 * its arguments and cost half again as much as the whole carve.
 */
class SlabBuffer extends Uint8Array {}
Object.setPrototypeOf(SlabBuffer.prototype, Buffer.prototype);
// As on Node's own: views made from one (subarray) are Buffers again, and it compares equal to one.
Object.defineProperty(SlabBuffer.prototype, 'constructor', { value: Buffer, writable: true, configurable: true });

let slab = newSlab();
let used = 0;

/** An uninitialised Buffer of `n` bytes for a short-lived answer. */
export function answerBuffer(n: number): Buffer {
  if (n > MAX_CARVED) return Buffer.allocUnsafeSlow(n);
  if (used + n > SLAB_BYTES) {
    slab = newSlab();
    used = 0;
  }
  const out = new SlabBuffer(slab, used, n) as unknown as Buffer;
  // 8-byte aligned, as Node's pool does, so typed-array views over an answer stay possible.
  used = (used + n + 7) & ~7;
  return out;
}
