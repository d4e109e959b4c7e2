/**
 * Byte strings by integer key (0 ≤ key ≤ 2^31 − 2), copied into one arena. A hit reads one slot of a
 * typed array and then the bytes: two memory accesses, where a Map or a typed-array index into a JS
 * array of Buffers takes four (slot, value array, Buffer object, its bytes). With random keys each of
 * those is a cache miss, about 0.3 µs apiece on this kind of host, and they were most of a /v1/ip
 * answer. When the table or the arena is full everything is dropped and a new arena starts: the
 * callers rebuild entries from their own caches, and views handed out earlier stay valid (an arena is
 * never written twice).
 */
export class ByteTable {
  /** Per slot: key + 1 (0 marks an empty slot), then the entry's offset and length in the arena. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly shift: number;
  private arena: Uint8Array;
  private used = 0;
  private count = 0;
  private builtFrom: unknown = undefined;
  private builtFromToo: unknown = undefined;

  constructor(
    private readonly maxEntries: number,
    private readonly arenaBytes: number,
  ) {
    // At most half full, so probe sequences stay short.
    let bits = 4;
    while (bits < 30 && 1 << bits < maxEntries * 2) bits++;
    this.slots = new Int32Array(3 << bits);
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
    this.arena = new Uint8Array(arenaBytes);
  }

  get size(): number {
    return this.count;
  }

  /** A view of the key's bytes, or undefined. */
  get(key: number): Uint8Array | undefined {
    if (!storable(key)) return undefined;
    const k = key + 1;
    const slots = this.slots;
    for (let i = this.home(k); ; i = (i + 1) & this.mask) {
      const at = slots[i * 3]!;
      if (at === k) return new Uint8Array(this.arena.buffer, slots[i * 3 + 1]!, slots[i * 3 + 2]!);
      if (at === 0) return undefined;
    }
  }

  /** Stores a copy of `bytes` under the key (replacing any); returns the stored view, or `bytes` when they cannot be kept. */
  set(key: number, bytes: Uint8Array): Uint8Array {
    if (!storable(key) || bytes.length > this.arenaBytes) return bytes;
    if (this.count >= this.maxEntries || this.used + bytes.length > this.arenaBytes) this.clear();
    const k = key + 1;
    const slots = this.slots;
    let i = this.home(k);
    while (slots[i * 3] !== 0 && slots[i * 3] !== k) i = (i + 1) & this.mask;
    if (slots[i * 3] === 0) this.count++;
    const view = new Uint8Array(this.arena.buffer, this.used, bytes.length);
    view.set(bytes);
    slots[i * 3] = k;
    slots[i * 3 + 1] = this.used;
    slots[i * 3 + 2] = bytes.length;
    this.used += bytes.length;
    return view;
  }

  /**
   * Empties the table when the data its entries are built from is not what they were built from (a
   * dataset swap); `source` and `alsoFrom` are compared by identity. Callers run it before each lookup.
   */
  useFor(source: unknown, alsoFrom: unknown = undefined): void {
    if (source === this.builtFrom && alsoFrom === this.builtFromToo) return;
    this.builtFrom = source;
    this.builtFromToo = alsoFrom;
    this.clear();
  }

  clear(): void {
    // Nothing stored yet (a cache's first source): keep the arena, whose pages are not even touched.
    if (this.used === 0 && this.count === 0) return;
    this.slots.fill(0);
    this.arena = new Uint8Array(this.arenaBytes);
    this.used = 0;
    this.count = 0;
  }

  private home(k: number): number {
    // Fibonacci hashing: mmdb data offsets are clustered, so the high bits of the product spread them.
    return Math.imul(k, 0x9e3779b1) >>> this.shift;
  }
}

const storable = (key: number): boolean => key >= 0 && key <= 0x7ffffffe && Number.isInteger(key);
