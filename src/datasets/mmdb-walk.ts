// The mmdb search-tree walk over raw bytes, on numbers we already parsed: no per-lookup arrays or
// function-per-record calls. Decoding the data record stays with mmdb-lib.

export interface TreeMeta {
  readonly nodeCount: number;
  readonly recordSize: number;
  readonly ipVersion: number;
}

/** Result of a walk: a data pointer (> nodeCount), or -1 when the address has no record. */
export class TreeWalker {
  private readonly nodeCount: number;
  private readonly nodeBytes: number;
  private readonly recordSize: number;
  private readonly v4Start: number;
  /**
   * The node (or, for a shallower network, its record) the walk reaches after the first 16 bits of an
   * IPv4 address, per /16: one read instead of 16 steps. Built lazily, 256 KiB.
   */
  private v4Jump: Uint32Array | null = null;

  constructor(private readonly db: Uint8Array, meta: TreeMeta) {
    if (meta.recordSize !== 24 && meta.recordSize !== 28 && meta.recordSize !== 32) throw new Error(`unsupported record size ${meta.recordSize}`);
    this.nodeCount = meta.nodeCount;
    this.recordSize = meta.recordSize;
    this.nodeBytes = meta.recordSize / 4;
    // IPv4 sits under ::/96 in an IPv6 tree: follow 96 left branches once.
    let node = 0;
    if (meta.ipVersion === 6) for (let i = 0; i < 96 && node < this.nodeCount; i++) node = this.child(node, 0);
    this.v4Start = node;
  }

  private buildV4Jump(): Uint32Array {
    const jump = new Uint32Array(65536);
    const fill = (node: number, depth: number, prefix: number): void => {
      if (node >= this.nodeCount || depth === 16) {
        // Every /16 under a network that ends here shares its record.
        const span = 2 ** (16 - depth);
        jump.fill(node, prefix * span, prefix * span + span);
        return;
      }
      fill(this.child(node, 0), depth + 1, prefix * 2);
      fill(this.child(node, 1), depth + 1, prefix * 2 + 1);
    };
    fill(this.v4Start, 0, 0);
    return jump;
  }

  private child(node: number, bit: number): number {
    const db = this.db;
    const o = node * this.nodeBytes;
    switch (this.recordSize) {
      case 24:
        return bit === 0 ? (db[o]! << 16) | (db[o + 1]! << 8) | db[o + 2]! : (db[o + 3]! << 16) | (db[o + 4]! << 8) | db[o + 5]!;
      case 28:
        return bit === 0
          ? ((db[o + 3]! & 0xf0) << 20) | (db[o]! << 16) | (db[o + 1]! << 8) | db[o + 2]!
          : ((db[o + 3]! & 0x0f) << 24) | (db[o + 4]! << 16) | (db[o + 5]! << 8) | db[o + 6]!;
      default: {
        const at = bit === 0 ? o : o + 4;
        return ((db[at]! << 24) >>> 0) + ((db[at + 1]! << 16) | (db[at + 2]! << 8) | db[at + 3]!);
      }
    }
  }

  private finish(node: number): number {
    return node > this.nodeCount ? node : -1;
  }

  /** `v4` as an unsigned 32-bit integer. */
  findV4(v4: number): number {
    const jump = (this.v4Jump ??= this.buildV4Jump());
    let node = jump[v4 >>> 16]!;
    const count = this.nodeCount;
    for (let depth = 15; depth >= 0 && node < count; depth--) node = this.child(node, (v4 >>> depth) & 1);
    return this.finish(node);
  }

  /** Eight 16-bit groups. */
  findV6(groups: Uint16Array): number {
    let node = 0;
    const count = this.nodeCount;
    for (let depth = 0; depth < 128 && node < count; depth++) node = this.child(node, (groups[depth >> 4]! >>> (15 - (depth & 15))) & 1);
    return this.finish(node);
  }
}
