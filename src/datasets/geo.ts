// Geolocation from mmdb files (mmdb-lib). Files are read once into SharedArrayBuffers on the main thread;
// every thread wraps the same memory. IPv4-only and IPv6-only files can sit side by side: the reader is
// chosen by address family, because an IPv4-only tree given an IPv6 address answers for its first 32 bits.
import { Reader } from 'mmdb-lib';
import type { DatasetMeta, GeoRecord, GeoSource } from './types.js';
import { formatV4, parseV4, parseV6Groups } from './ip.js';
import { TreeWalker } from './mmdb-walk.js';
import { withDerivedSlot } from './derived-slot.js';
import { PointerCache } from './pointer-cache.js';

export interface MmdbInfo {
  readonly ipVersion: 4 | 6;
  readonly databaseType: string;
  /** ISO 8601 UTC */
  readonly buildEpoch: string | null;
  readonly nodeCount: number;
  /** Probe addresses that returned a record. */
  readonly probesFound: number;
}

export interface GeoFileShare {
  readonly file: string;
  readonly bytes: SharedArrayBuffer;
  readonly ipVersion: 4 | 6;
  readonly databaseType: string;
  readonly buildEpoch: string | null;
}

export interface GeoShare {
  readonly files: readonly GeoFileShare[];
  readonly meta: DatasetMeta;
}

const PROBES_V4 = ['8.8.8.8', '1.1.1.1', '81.2.69.142', '9.9.9.9', '203.0.113.7', '100.64.0.1', '0.0.0.1', '255.255.255.254'];
const PROBES_V6 = ['2001:4860:4860::8888', '2606:4700:4700::1111', '2a02:6b8::1', '2001:db8::1', '::1', 'ffff::1'];

export class InvalidMmdbError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidMmdbError';
  }
}

/** Opens the bytes with mmdb-lib, checks the metadata and the tree, and looks up known addresses. */
export function inspectMmdb(bytes: Buffer): MmdbInfo {
  let reader: Reader<Record<string, unknown>>;
  try {
    reader = new Reader(bytes);
  } catch (e) {
    throw new InvalidMmdbError(`not a MaxMind DB file (${(e as Error).message}); truncated files lose the metadata at their end`);
  }
  const m = reader.metadata;
  if (m.binaryFormatMajorVersion !== 2) throw new InvalidMmdbError(`unsupported mmdb format version ${m.binaryFormatMajorVersion}`);
  if (m.ipVersion !== 4 && m.ipVersion !== 6) throw new InvalidMmdbError(`ip_version ${m.ipVersion} is neither 4 nor 6`);
  if (!(m.nodeCount > 0) || ![24, 28, 32].includes(m.recordSize)) throw new InvalidMmdbError(`bad search tree (node_count ${m.nodeCount}, record_size ${m.recordSize})`);
  if (m.searchTreeSize + 16 > bytes.length) throw new InvalidMmdbError('the search tree is larger than the file (truncated)');
  let found = 0;
  const probes = m.ipVersion === 4 ? PROBES_V4 : [...PROBES_V6, ...PROBES_V4];
  for (const ip of probes) {
    let rec: unknown;
    try {
      rec = reader.get(ip);
    } catch (e) {
      throw new InvalidMmdbError(`lookup of ${ip} failed (${(e as Error).message}): the data section is damaged`);
    }
    if (rec === null || rec === undefined) continue;
    if (typeof rec !== 'object' || Array.isArray(rec)) throw new InvalidMmdbError(`lookup of ${ip} returned a ${typeof rec}, not a record`);
    normaliseGeo(rec as Record<string, unknown>);
    found++;
  }
  const epoch = m.buildEpoch instanceof Date && !Number.isNaN(m.buildEpoch.getTime()) ? m.buildEpoch.toISOString().replace(/\.\d{3}Z$/, 'Z') : null;
  return { ipVersion: m.ipVersion as 4 | 6, databaseType: String(m.databaseType ?? ''), buildEpoch: epoch, nodeCount: m.nodeCount, probesFound: found };
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function enName(v: unknown): string | null {
  const names = (v as { names?: Record<string, unknown> } | undefined)?.names;
  return names === undefined || names === null ? null : str(names['en']);
}

/**
 * float32 coordinates (37.422000885009766) carry about 7 significant digits; 5 decimals (~1 m) is
 * that precision at longitude scale and gives back the written value (37.422).
 */
function coord(v: unknown): number | null {
  const n = num(v);
  if (n === null) return null;
  return Math.fround(n) === n ? Math.round(n * 1e5) / 1e5 : n;
}

/**
 * Either layout → GeoRecord. GeoIP2/GeoLite2: nested `country.iso_code`, `city.names.en`, `location.*`;
 * DB-IP / ip-location-db: flat `country_code, state1, city, postcode, latitude, longitude, timezone`.
 * Country names are not produced here: the lookup derives them from the code.
 */
export function normaliseGeo(r: Record<string, unknown>): GeoRecord {
  if ('country_code' in r || 'state1' in r || ('latitude' in r && !('location' in r))) {
    return {
      city: str(r['city']),
      region: str(r['state1']),
      region_code: null,
      country_code: str(r['country_code'])?.toUpperCase() ?? null,
      continent_code: str(r['continent_code']) ?? str(r['continent']),
      postal: str(r['postcode']),
      latitude: coord(r['latitude']),
      longitude: coord(r['longitude']),
      accuracy_radius_km: null,
      timezone: str(r['timezone']),
    };
  }
  const country = (r['country'] ?? r['registered_country']) as Record<string, unknown> | undefined;
  const sub = Array.isArray(r['subdivisions']) ? (r['subdivisions'][0] as Record<string, unknown> | undefined) : undefined;
  const loc = r['location'] as Record<string, unknown> | undefined;
  const continent = r['continent'] as Record<string, unknown> | undefined;
  return {
    city: enName(r['city']),
    region: enName(sub),
    region_code: str(sub?.['iso_code']),
    country_code: str(country?.['iso_code'])?.toUpperCase() ?? null,
    continent_code: str(continent?.['code']),
    postal: str((r['postal'] as Record<string, unknown> | undefined)?.['code']),
    latitude: coord(loc?.['latitude']),
    longitude: coord(loc?.['longitude']),
    accuracy_radius_km: num(loc?.['accuracy_radius']),
    timezone: str(loc?.['time_zone']),
  };
}

/**
 * Two generations of Maps: hits in the old one are promoted, and when the young one fills up it becomes
 * the old one. Close to an LRU at the cost of two Map operations. Keyed by the record's data offset
 * (what mmdb-lib passes), so the decoded objects it returns are shared: never mutate them.
 */
export class GenerationalCache<V> {
  private young = new Map<number | string, V>();
  private old = new Map<number | string, V>();
  constructor(private readonly max: number) {}

  get(key: number | string): V | undefined {
    const v = this.young.get(key);
    if (v !== undefined) return v;
    const o = this.old.get(key);
    if (o !== undefined) this.set(key, o);
    return o;
  }

  set(key: number | string, value: V): void {
    if (this.young.size >= this.max) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }
}

// Normalised records per reader, keyed by data pointer. ~200 bytes each: 40k ≈ 8 MB per reader.
const RECORD_CACHE = 40_000;
// mmdb-lib's own cache, for values shared through pointers inside the data section.
const DECODER_CACHE = 4_000;

type RawReader = Reader<Record<string, unknown>>;

/**
 * mmdb-lib decodes; the tree walk is ours (TreeWalker), on the address parsed once, and the cache
 * holds our normalised record per data pointer: a hit costs the walk and one Map lookup. mmdb-lib
 * 3.x has resolveDataPointer(); should a later version drop it, fall back to get() plus normalising
 * per decoded object.
 */
interface PointerReader {
  resolveDataPointer(pointer: number): unknown;
}

const groups = new Uint16Array(8);

class FamilyReader {
  private readonly reader: RawReader;
  private readonly pointers: PointerReader | null;
  private readonly walker: TreeWalker;
  private readonly ipVersion: number;
  private readonly byPointer = new PointerCache<GeoRecord>(RECORD_CACHE);
  private readonly byObject = new WeakMap<object, GeoRecord>();

  constructor(bytes: SharedArrayBuffer) {
    this.reader = new Reader(Buffer.from(bytes), { cache: new GenerationalCache(DECODER_CACHE) });
    const r = this.reader as unknown as Partial<PointerReader>;
    this.pointers = typeof r.resolveDataPointer === 'function' ? (this.reader as unknown as PointerReader) : null;
    this.walker = new TreeWalker(new Uint8Array(bytes), this.reader.metadata);
    this.ipVersion = this.reader.metadata.ipVersion;
  }

  // No cache keyed by address text: with random clients its inserts cost more than the walk it saves.
  get(ip: string): GeoRecord | null {
    if (this.pointers === null) {
      const raw = this.reader.get(ip);
      if (raw === null || typeof raw !== 'object') return null;
      let rec = this.byObject.get(raw);
      if (rec === undefined) {
        rec = withDerivedSlot(normaliseGeo(raw));
        this.byObject.set(raw, rec);
      }
      return rec;
    }
    const v4 = parseV4(ip);
    if (v4 >= 0) return this.atPointer(this.walker.findV4(v4));
    // An IPv4-only tree has no answer for IPv6 (mmdb-lib would walk its first 32 bits).
    if (this.ipVersion !== 6 || !parseV6Groups(ip, groups)) return null;
    return this.atPointer(this.walker.findV6(groups));
  }

  /**
   * For `v4` (an unsigned 32-bit integer): the record's data pointer. Without mmdb-lib's pointer
   * decoding the key is the address itself: still one record per key, only not shared by a block.
   */
  keyV4(v4: number): number {
    const pointer = this.walker.findV4(v4);
    return pointer < 0 ? -1 : this.pointers === null ? v4 : pointer;
  }

  recordV4(key: number): GeoRecord | null {
    if (key < 0) return null;
    return this.pointers === null ? this.get(formatV4(key)) : this.atPointer(key);
  }

  private atPointer(pointer: number): GeoRecord | null {
    if (pointer < 0 || this.pointers === null) return null;
    let rec = this.byPointer.get(pointer);
    if (rec === undefined) {
      const raw = this.pointers.resolveDataPointer(pointer);
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null;
      rec = withDerivedSlot(normaliseGeo(raw as Record<string, unknown>));
      this.byPointer.set(pointer, rec);
    }
    return rec;
  }
}

class MmdbGeoSource implements GeoSource {
  private readonly v4: FamilyReader | null;
  private readonly v6: FamilyReader | null;

  constructor(share: GeoShare) {
    this.meta = share.meta;
    const f4 = share.files.find((f) => f.ipVersion === 4);
    const f6 = share.files.find((f) => f.ipVersion === 6);
    this.v6 = f6 === undefined ? null : new FamilyReader(f6.bytes);
    // A lone IPv6 file may be dual-stack (GeoIP2 keeps IPv4 under ::/96); mmdb-lib routes IPv4 there.
    this.v4 = f4 !== undefined ? new FamilyReader(f4.bytes) : this.v6;
  }

  readonly meta: DatasetMeta;

  lookup(ip: string): GeoRecord | null {
    let reader: FamilyReader | null;
    let addr = ip;
    if (ip.indexOf(':') < 0) {
      reader = this.v4;
    } else if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip)) {
      reader = this.v4;
      addr = ip.slice(7);
    } else {
      reader = this.v6;
    }
    if (reader === null) return null;
    try {
      return reader.get(addr);
    } catch {
      // mmdb-lib throws on text it cannot parse as an address: that is "no record", not a server error.
      return null;
    }
  }

  lookupV4(v4: number): GeoRecord | null {
    return this.recordV4(this.keyV4(v4));
  }

  keyV4(v4: number): number {
    return this.v4 === null ? -1 : this.v4.keyV4(v4);
  }

  recordV4(key: number): GeoRecord | null {
    if (this.v4 === null) return null;
    try {
      return this.v4.recordV4(key);
    } catch {
      // A damaged data section: no record rather than a server error.
      return null;
    }
  }
}

export function openGeoSource(share: GeoShare): GeoSource {
  return new MmdbGeoSource(share);
}
