// AS number → record: names (asn.txt) merged with RIR delegation blocks, falling back to the prefix
// data's organisation column when no AS-names dataset is loaded.
import type { AsnRecord, AsnSource, DatasetMeta } from './types.js';
import type { RirRow } from './parse/asn.js';

export interface AsName {
  readonly name: string | null;
  readonly description: string | null;
  readonly country: string | null;
}

/** A delegation block as parsed from the RIR files. */
export type RirBlock = RirRow;

export interface AsNamesTable {
  readonly meta: DatasetMeta;
  readonly byAsn: ReadonlyMap<number, AsName>;
}

/** RIR blocks sorted by start, for binary search. */
export class RirTable {
  private readonly starts: Float64Array;
  constructor(readonly meta: DatasetMeta, private readonly blocks: readonly RirBlock[]) {
    this.starts = Float64Array.from(blocks, (b) => b.start);
  }

  get size(): number {
    return this.blocks.length;
  }

  find(asn: number): RirBlock | null {
    const s = this.starts;
    let lo = 0;
    let hi = s.length - 1;
    if (hi < 0 || asn < s[0]!) return null;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (s[mid]! <= asn) lo = mid;
      else hi = mid - 1;
    }
    const b = this.blocks[lo]!;
    return asn < b.start + b.count ? b : null;
  }
}

export interface OrgFallback {
  readonly meta: DatasetMeta;
  orgForAsn(asn: number): string | null;
}

export class AsnView implements AsnSource {
  readonly names: DatasetMeta | null;
  readonly registry: DatasetMeta | null;

  constructor(
    private readonly asNames: AsNamesTable | null,
    private readonly rir: RirTable | null,
    private readonly orgs: OrgFallback | null,
  ) {
    this.names = asNames?.meta ?? (orgs === null ? null : orgs.meta);
    this.registry = rir?.meta ?? null;
  }

  get(asn: number): AsnRecord | null {
    let name: AsName | null = null;
    if (this.asNames !== null) {
      name = this.asNames.byAsn.get(asn) ?? null;
    } else if (this.orgs !== null) {
      const org = this.orgs.orgForAsn(asn);
      if (org !== null) name = { name: org, description: org, country: null };
    }
    const block = this.rir?.find(asn) ?? null;
    if (name === null && block === null) return null;
    return {
      asn,
      name: name?.name ?? null,
      description: name?.description ?? null,
      country: name?.country ?? block?.country ?? null,
      rir: block?.rir ?? null,
      allocated: block?.allocated ?? null,
      status: block?.status ?? null,
    };
  }
}
