/**
 * Values memoised by a dense integer id (0 ≤ id < size), such as a range's index in a dataset. A plain
 * JS array written at scattered indices far apart (or created with `new Array(n)` for a large n) is kept
 * by V8 as a slow dictionary; here a typed array of slots points into a packed list instead.
 */
export class IdMemo<T> {
  private readonly slots: Int32Array;
  private readonly values: T[] = [];

  constructor(readonly size: number) {
    this.slots = new Int32Array(size);
  }

  get(id: number): T | undefined {
    const k = this.slots[id];
    return k === undefined || k === 0 ? undefined : this.values[k - 1];
  }

  /** Ids outside [0, size) are not kept. */
  set(id: number, value: T): void {
    if (!(id >= 0 && id < this.slots.length)) return;
    const k = this.slots[id]!;
    if (k !== 0) {
      this.values[k - 1] = value;
      return;
    }
    this.values.push(value);
    this.slots[id] = this.values.length;
  }
}
