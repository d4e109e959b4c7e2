/**
 * Values by small non-negative integer key (an mmdb data offset), in two generations like
 * GenerationalCache: hits in the old table are promoted, and when the young table holds `max`
 * entries it becomes the old one. Each table is open addressing over typed arrays: a probe is a
 * multiply and a few array reads, where a Map costs a hash-table walk (Map probes were ~2% of a
 * /v1/ip request's CPU in perf, this cache's among them). Keys outside 0..2^31-2 are never cached.
 */
export class PointerCache<V> {
  private young: Table<V>;
  private old: Table<V>;

  constructor(private readonly max: number) {
    this.young = new Table(max);
    this.old = new Table(max);
  }

  get(key: number): V | undefined {
    if (!cacheable(key)) return undefined;
    const v = this.young.get(key);
    if (v !== undefined) return v;
    const o = this.old.get(key);
    if (o !== undefined) this.set(key, o);
    return o;
  }

  set(key: number, value: V): void {
    if (!cacheable(key)) return;
    if (this.young.size >= this.max) {
      // The old table's arrays are reused for the new young one: a swap allocates nothing.
      const spare = this.old;
      this.old = this.young;
      spare.clear();
      this.young = spare;
    }
    this.young.set(key, value);
  }
}

const cacheable = (key: number): boolean => key >= 0 && key <= 0x7ffffffe && Number.isInteger(key);

class Table<V> {
  /** key + 1, so that 0 marks an empty slot. */
  private readonly keys: Int32Array;
  private readonly values: (V | undefined)[];
  private readonly mask: number;
  private readonly shift: number;
  size = 0;

  constructor(max: number) {
    // At most half full, so a probe sequence stays short.
    let bits = 4;
    while (bits < 30 && 1 << bits < max * 2) bits++;
    this.keys = new Int32Array(1 << bits);
    this.values = new Array<V | undefined>(1 << bits).fill(undefined);
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
  }

  private home(key: number): number {
    // Fibonacci hashing: data offsets are clustered, so the high bits of the product spread them.
    return Math.imul(key + 1, 0x9e3779b1) >>> this.shift;
  }

  get(key: number): V | undefined {
    const k = key + 1;
    for (let i = this.home(key); ; i = (i + 1) & this.mask) {
      const at = this.keys[i]!;
      if (at === k) return this.values[i];
      if (at === 0) return undefined;
    }
  }

  set(key: number, value: V): void {
    const k = key + 1;
    for (let i = this.home(key); ; i = (i + 1) & this.mask) {
      const at = this.keys[i]!;
      if (at === k) {
        this.values[i] = value;
        return;
      }
      if (at === 0) {
        this.keys[i] = k;
        this.values[i] = value;
        this.size++;
        return;
      }
    }
  }

  clear(): void {
    this.keys.fill(0);
    this.values.fill(undefined);
    this.size = 0;
  }
}
