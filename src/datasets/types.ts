// Read-side interfaces of the local datasets. The lookups (ip, mac, asn) depend only on these;
// src/datasets implements them over SQLite-imported data, in-memory indexes and mmdb files.

/** Identifies the version an answer came from (the `source` object of API.md). */
export interface DatasetMeta {
  /** Dataset name/version label, e.g. "dbip-city-lite" or "ip-location-db-asn 2.3.2026061719". */
  readonly dataset: string;
  /** ISO 8601 UTC build time of the data, when known. */
  readonly built_at: string | null;
}

/** One geolocation record, normalised from either mmdb layout (GeoIP2 nested or DB-IP flat). */
export interface GeoRecord {
  readonly city: string | null;
  readonly region: string | null;
  readonly region_code: string | null;
  /** ISO 3166-1 alpha-2. */
  readonly country_code: string | null;
  /** Two-letter continent code (NA, EU, ...) when the data has it. */
  readonly continent_code: string | null;
  readonly postal: string | null;
  readonly latitude: number | null;
  readonly longitude: number | null;
  readonly accuracy_radius_km: number | null;
  /** IANA zone from the data; null when the data has none (DB-IP lite). */
  readonly timezone: string | null;
}

export interface GeoSource {
  readonly meta: DatasetMeta;
  /** `ip` is canonical (IPv4 dotted quad or compressed IPv6). The source picks the reader by family. */
  lookup(ip: string): GeoRecord | null;
  /** The same for an IPv4 address already parsed (unsigned 32-bit): the hot path does not re-parse. */
  lookupV4(v4: number): GeoRecord | null;
  /**
   * A key for the record holding an IPv4 address, or -1 when there is none. Equal keys give the same
   * record for as long as the source lives, so a consumer can cache what it derives per key without
   * reading the record again (the /v1/ip hot path: each object it touches is a cache miss).
   */
  keyV4(v4: number): number;
  /** The record under a key from keyV4 (null for -1). */
  recordV4(key: number): GeoRecord | null;
}

/** The most specific announced range that contains an address. */
export interface PrefixMatch {
  /** Dense per source (0 ≤ id < its `records`), so consumers can memoise per range by index. */
  readonly id: number;
  readonly asn: number;
  /** Inclusive range bounds, canonical text. */
  readonly start: string;
  readonly end: string;
  /** Organisation name carried by the prefix data, when it has one. */
  readonly org: string | null;
}

export interface PrefixSource {
  readonly meta: DatasetMeta;
  /** Number of ranges, IPv4 and IPv6. */
  readonly records: number;
  lookup(ip: string): PrefixMatch | null;
  /** The same for an IPv4 address already parsed (unsigned 32-bit). */
  lookupV4(v4: number): PrefixMatch | null;
  /**
   * A key for the CIDR block API.md's `prefix` names for an IPv4 address (the largest block inside the
   * most specific range holding it), or -1 when no range holds it. Keys are unique per block of this
   * source, and Math.floor(key / V4_BLOCKS_PER_RANGE) is the range's id: a consumer can cache per block
   * without reading the match object.
   */
  blockKeyV4(v4: number): number;
  /** The range with an id (0 ≤ id < records), or null for any other number. */
  match(id: number): PrefixMatch | null;
  /** Number of ranges originated by an AS, per family. */
  prefixCounts(asn: number): { ipv4: number; ipv6: number };
}

export interface AsnRecord {
  readonly asn: number;
  readonly name: string | null;
  readonly description: string | null;
  readonly country: string | null;
  readonly rir: string | null;
  /** YYYY-MM-DD */
  readonly allocated: string | null;
  readonly status: string | null;
}

export interface AsnSource {
  /** Metadata of the AS-names dataset, null when not loaded. */
  readonly names: DatasetMeta | null;
  /** Metadata of the RIR delegated stats dataset, null when not loaded. */
  readonly registry: DatasetMeta | null;
  get(asn: number): AsnRecord | null;
}

export type OuiRegistry = 'MA-L' | 'MA-M' | 'MA-S' | 'IAB' | 'CID';

export interface OuiRecord {
  /** Upper-case hex digits of the assignment: 6 (MA-L/CID), 7 (MA-M) or 9 (MA-S/IAB). */
  readonly prefix: string;
  readonly bits: 24 | 28 | 36;
  readonly registry: OuiRegistry;
  readonly vendor: string;
  /** Address lines joined with ", " (without the country), or null (e.g. "Private" entries). */
  readonly address: string | null;
  /** ISO 3166-1 alpha-2, or null. */
  readonly country: string | null;
}

export interface OuiSource {
  readonly meta: DatasetMeta;
  /**
   * Longest match for 12 upper-case hex digits (a full MAC; callers pad prefixes with zeros):
   * MA-S (36 bits) → MA-M (28) → MA-L/IAB/CID (24). An MA-L entry held by the IEEE Registration
   * Authority itself is a parent block: it never wins over a deeper match.
   */
  lookup(hex12: string): OuiRecord | null;
  /**
   * The same match as a key (-1 for none): one per record for as long as the source lives, so a
   * consumer can cache per record without reading it (the /v1/mac hot path).
   */
  keyFor(hex12: string): number;
  /** The record under a key from keyFor (null for -1). */
  record(key: number): OuiRecord | null;
}
