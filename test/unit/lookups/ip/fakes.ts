// In-memory fakes of the dataset read interfaces (src/datasets/types.ts), with invented data.
import type {
  AsnRecord, AsnSource, DatasetMeta, GeoRecord, GeoSource, OuiRecord, OuiSource, PrefixMatch, PrefixSource,
} from '../../../../src/datasets/types.js';
import { compareWords, parseIp, v4Text, type IpAddress } from '../../../../src/lookups/ip-address.js';
import { V4_BLOCKS_PER_RANGE, v4BlockBase, v4BlockLen, v4BlockSubKey } from '../../../../src/datasets/ip.js';

function must(text: string): IpAddress {
  const ip = parseIp(text);
  if (ip === null) throw new Error(`fake data: bad address ${text}`);
  return ip;
}

function inRange(ip: IpAddress, start: IpAddress, end: IpAddress): boolean {
  return ip.version === start.version && compareWords(start.words, ip.words) <= 0 && compareWords(ip.words, end.words) <= 0;
}

export const GEO_META: DatasetMeta = { dataset: 'elbonia-geo-test', built_at: '2026-06-05T00:00:00Z' };
export const PREFIX_META: DatasetMeta = { dataset: 'elbonia-prefixes-test', built_at: '2026-06-17T19:00:00Z' };
export const NAMES_META: DatasetMeta = { dataset: 'elbonia-asnames-test', built_at: '2026-06-18T00:00:00Z' };
export const RIR_META: DatasetMeta = { dataset: 'elbonia-rir-test', built_at: '2026-06-19T00:00:00Z' };
export const OUI_META: DatasetMeta = { dataset: 'elbonia-oui-test', built_at: '2026-06-20T00:00:00Z' };

export const EMPTY_GEO: GeoRecord = {
  city: null, region: null, region_code: null, country_code: null, continent_code: null, postal: null,
  latitude: null, longitude: null, accuracy_radius_km: null, timezone: null,
};

export class FakeGeo implements GeoSource {
  readonly meta = GEO_META;
  readonly calls: string[] = [];
  private readonly ranges: { start: IpAddress; end: IpAddress; rec: GeoRecord }[];
  constructor(ranges: readonly [string, string, Partial<GeoRecord>][]) {
    // One shared object per range, as a reader with a decoded-record cache returns.
    this.ranges = ranges.map(([s, e, r]) => ({ start: must(s), end: must(e), rec: { ...EMPTY_GEO, ...r } }));
  }
  lookup(ip: string): GeoRecord | null {
    this.calls.push(ip);
    const a = must(ip);
    return this.ranges.find((r) => inRange(a, r.start, r.end))?.rec ?? null;
  }
  lookupV4(v4: number): GeoRecord | null {
    return this.lookup(v4Text(v4));
  }
  /** The range's index: the same key for every address of a range, as a data pointer is for a block. */
  keyV4(v4: number): number {
    const rec = this.lookupV4(v4);
    return rec === null ? -1 : this.ranges.findIndex((r) => r.rec === rec);
  }
  recordV4(key: number): GeoRecord | null {
    return this.ranges[key]?.rec ?? null;
  }
}

export class FakePrefixes implements PrefixSource {
  readonly meta = PREFIX_META;
  readonly calls: string[] = [];
  private readonly ranges: { start: IpAddress; end: IpAddress; match: PrefixMatch }[];
  constructor(ranges: readonly [string, string, number, string | null][]) {
    this.ranges = ranges.map(([s, e, asn, org], id) => ({ start: must(s), end: must(e), match: { id, asn, start: s, end: e, org } }));
  }
  get records(): number {
    return this.ranges.length;
  }
  lookup(ip: string): PrefixMatch | null {
    this.calls.push(ip);
    const a = must(ip);
    // Most specific: the covering range with the highest start.
    let best: { start: IpAddress; match: PrefixMatch } | null = null;
    for (const r of this.ranges) {
      if (inRange(a, r.start, r.end) && (best === null || compareWords(r.start.words, best.start.words) > 0)) best = r;
    }
    return best?.match ?? null;
  }
  lookupV4(v4: number): PrefixMatch | null {
    return this.lookup(v4Text(v4));
  }
  blockKeyV4(v4: number): number {
    const m = this.lookupV4(v4);
    if (m === null) return -1;
    const r = this.ranges[m.id]!;
    const len = v4BlockLen(v4, r.start.words[0], r.end.words[0]);
    return m.id * V4_BLOCKS_PER_RANGE + v4BlockSubKey(v4BlockBase(v4, len), len);
  }
  match(id: number): PrefixMatch | null {
    return this.ranges[id]?.match ?? null;
  }
  prefixCounts(asn: number): { ipv4: number; ipv6: number } {
    let ipv4 = 0;
    let ipv6 = 0;
    for (const r of this.ranges) if (r.match.asn === asn) r.start.version === 4 ? ipv4++ : ipv6++;
    return { ipv4, ipv6 };
  }
}

export class FakeAsns implements AsnSource {
  readonly names: DatasetMeta | null;
  readonly registry: DatasetMeta | null;
  private readonly records: Map<number, AsnRecord>;
  constructor(records: readonly Partial<AsnRecord>[], opts: { names?: boolean; registry?: boolean } = {}) {
    this.names = opts.names === false ? null : NAMES_META;
    this.registry = opts.registry === false ? null : RIR_META;
    this.records = new Map(records.map((r) => [r.asn!, {
      asn: r.asn!, name: null, description: null, country: null, rir: null, allocated: null, status: null, ...r,
    }]));
  }
  get(asn: number): AsnRecord | null {
    return this.records.get(asn) ?? null;
  }
}

export class FakeOui implements OuiSource {
  readonly meta = OUI_META;
  readonly calls: string[] = [];
  constructor(private readonly records: readonly OuiRecord[]) {}
  lookup(hex12: string): OuiRecord | null {
    this.calls.push(hex12);
    if (!/^[0-9A-F]{12}$/.test(hex12)) throw new Error(`fake OUI: bad key ${hex12}`);
    let best: OuiRecord | null = null;
    for (const r of this.records) {
      if (hex12.startsWith(r.prefix) && (best === null || r.bits > best.bits)) best = r;
    }
    return best;
  }
  keyFor(hex12: string): number {
    const best = this.lookup(hex12);
    return best === null ? -1 : this.records.indexOf(best);
  }
  record(key: number): OuiRecord | null {
    return this.records[key] ?? null;
  }
}
