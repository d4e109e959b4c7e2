// Which datasets exist, what is loaded, and how old it is (the health `datasets` object); the current
// snapshot of each local dataset. A lookup reads a getter once and uses that object: a swap replaces
// the reference, so an answer never mixes two versions.
import path from 'node:path';
import type { Db } from '../platform/sqlite.js';
import type { AsnSource, GeoSource, OuiSource, PrefixSource } from './types.js';
import { openGeoSource, type GeoShare } from './geo.js';
import { PrefixSnapshot, type PrefixShare } from './prefix-index.js';
import { OuiSnapshot } from './oui-index.js';
import { AsnView, RirTable, type AsNamesTable } from './asn-index.js';
import {
  isActive,
  loadAsNames,
  loadGeoFileRows,
  loadOuiRecords,
  loadPrefixRows,
  loadRirBlocks,
  metaOf,
  readDatasetRow,
  readGeoFiles,
  type DatasetRow,
} from './store.js';

/** Dataset names as the health resource shows them. */
export const HEALTH_DATASETS = ['geo', 'oui', 'asn', 'rdap_bootstrap', 'ct_logs'] as const;
export type HealthDatasetName = (typeof HEALTH_DATASETS)[number];

/** Datasets this module loads into memory. */
const LOCAL_DATASETS = ['geo', 'prefixes', 'oui', 'asnames', 'rir'] as const;

/** The `dataset` rows that together make up the health entry `asn`. */
export const ASN_PARTS = ['prefixes', 'asnames', 'rir'] as const;

export interface DatasetStatus {
  loaded: boolean;
  dataset: string | null;
  source: string | null;
  built_at: string | null;
  loaded_at: string | null;
  age_seconds: number | null;
  records: number | null;
  stale: boolean;
  last_error: string | null;
  /** For `asn`: the status of each underlying dataset (prefixes, asnames, rir). */
  parts?: Record<string, DatasetStatus>;
}

/** What the main thread hands to HTTP workers so they can read datasets without loading them again. */
export type DatasetShare = unknown;

/** The concrete shape behind DatasetShare: SharedArrayBuffer-backed, so posting it copies no data. */
export interface DatasetShareData {
  readonly kind: 'netintel-datasets';
  readonly geo: GeoShare | null;
  readonly prefixes: PrefixShare | null;
}

function isShareData(s: unknown): s is DatasetShareData {
  return typeof s === 'object' && s !== null && (s as { kind?: unknown }).kind === 'netintel-datasets';
}

const STATUS_CACHE_MS = 1000;

/** A loaded slot: `undefined` means "not read yet" (loaded on first use); `value: null` means "no data". */
interface Slot<T, S = never> {
  readonly value: T | null;
  readonly share?: S | null;
}

export class Datasets {
  private readonly dataDir: string;
  private geoSlot: Slot<GeoSource, GeoShare> | undefined;
  private prefixSlot: Slot<PrefixSnapshot, PrefixShare> | undefined;
  private ouiSlot: Slot<OuiSource> | undefined;
  private namesSlot: Slot<AsNamesTable> | undefined;
  private rirSlot: Slot<RirTable> | undefined;
  private asnView: AsnView | null | undefined;
  private statusCache: { at: number; value: Record<HealthDatasetName, DatasetStatus> } | null = null;
  private readonly loadedVersions = new Map<string, string | null>();

  constructor(private readonly db: Db, private readonly staleAfterSeconds: number, share: DatasetShare = null) {
    // The store lives in the data directory; the active mmdb files sit beside it in geo/.
    this.dataDir = path.dirname(db.name);
    if (isShareData(share)) this.adopt(share);
  }

  /** Current snapshots; null while a dataset has never been loaded. Read once per lookup. */
  get geo(): GeoSource | null {
    return (this.geoSlot ??= this.loadGeo()).value;
  }
  get prefixes(): PrefixSource | null {
    return (this.prefixSlot ??= this.loadPrefixes()).value;
  }
  get asns(): AsnSource | null {
    if (this.asnView === undefined) {
      const names = (this.namesSlot ??= this.loadNames()).value;
      const rir = (this.rirSlot ??= this.loadRir()).value;
      const prefixes = names === null ? (this.prefixSlot ??= this.loadPrefixes()).value : null;
      this.asnView = names === null && rir === null && prefixes === null ? null : new AsnView(names, rir, prefixes);
    }
    return this.asnView;
  }
  get oui(): OuiSource | null {
    return (this.ouiSlot ??= this.loadOui()).value;
  }

  /**
   * The daemon's main thread: reads the datasets it shares with the workers (geo, prefixes) and only
   * notes which version of the others is active. Workers read those from their own store connection
   * (adopt); a copy here served nothing and was 20 MB of this thread's heap, which every full GC of
   * the main thread walks on a core an HTTP worker needs.
   */
  loadShared(): void {
    void this.geo;
    void this.prefixes;
    for (const name of LOCAL_DATASETS) if (!this.loadedVersions.has(name)) this.row(name);
  }

  /** Main thread: the shareable form of the loaded datasets, for workerData. */
  share(): DatasetShare {
    this.geoSlot ??= this.loadGeo();
    this.prefixSlot ??= this.loadPrefixes();
    return { kind: 'netintel-datasets', geo: this.geoSlot.share ?? null, prefixes: this.prefixSlot.share ?? null } satisfies DatasetShareData;
  }

  private readonly activatedListeners: ((name: string, share: DatasetShare) => void)[] = [];

  /** Main thread: called after a dataset version is activated, so workers can swap too. */
  onActivated(listener: (name: string, share: DatasetShare) => void): void {
    this.activatedListeners.push(listener);
  }

  /**
   * This thread activated a new version of `name` (import, refresh): rebuild what was loaded, then
   * tell the listeners (the main thread posts the new share to the workers).
   */
  activated(name: string): void {
    this.reload(name);
    if (this.activatedListeners.length === 0) return;
    const share = this.share();
    for (const l of this.activatedListeners) l(name, share);
  }

  /**
   * Main thread (SIGHUP, refresh): activates every local dataset whose active version in the store
   * differs from the one loaded here, e.g. after `netintel import` ran in another process.
   * Returns the names that were reloaded.
   */
  syncWithStore(): string[] {
    const changed: string[] = [];
    for (const name of LOCAL_DATASETS) {
      const row = readDatasetRow(this.db, name);
      const current = row === null ? null : `${row.loaded_at}|${row.sha256}`;
      if ((this.loadedVersions.get(name) ?? null) !== current) {
        this.activated(name);
        this.loadedVersions.set(name, current);
        changed.push(name);
      }
    }
    return changed;
  }

  /** A dataset was activated elsewhere (main thread, CLI import): swap to its new version. */
  reload(name: string, share: DatasetShare = null): void {
    this.statusCache = null;
    const data = isShareData(share) ? share : null;
    switch (name) {
      case 'geo':
        if (data !== null) this.geoSlot = this.geoFromShare(data.geo);
        else if (this.geoSlot !== undefined) this.geoSlot = this.loadGeo();
        break;
      case 'prefixes':
        if (data !== null) this.prefixSlot = this.prefixFromShare(data.prefixes);
        else if (this.prefixSlot !== undefined) this.prefixSlot = this.loadPrefixes();
        this.asnView = undefined;
        break;
      case 'oui':
        if (this.ouiSlot !== undefined) this.ouiSlot = this.loadOui();
        break;
      case 'asnames':
        if (this.namesSlot !== undefined) this.namesSlot = this.loadNames();
        this.asnView = undefined;
        break;
      case 'rir':
        if (this.rirSlot !== undefined) this.rirSlot = this.loadRir();
        this.asnView = undefined;
        break;
      default:
        // rdap_bootstrap, ct_logs, ...: owned elsewhere; only the health view changes.
        break;
    }
  }

  private adopt(share: DatasetShareData): void {
    this.geoSlot = this.geoFromShare(share.geo);
    this.prefixSlot = this.prefixFromShare(share.prefixes);
    // Workers: the small tables come from this thread's own store connection, read now so the
    // first request does not pay for it.
    this.ouiSlot = this.loadOui();
    this.namesSlot = this.loadNames();
    this.rirSlot = this.loadRir();
  }

  private geoFromShare(s: GeoShare | null): Slot<GeoSource, GeoShare> {
    return s === null ? { value: null, share: null } : { value: openGeoSource(s), share: s };
  }

  private prefixFromShare(s: PrefixShare | null): Slot<PrefixSnapshot, PrefixShare> {
    return s === null ? { value: null, share: null } : { value: new PrefixSnapshot(s), share: s };
  }

  /** Reads a dataset row and remembers which version this thread is loading (for syncWithStore). */
  private row(name: string): DatasetRow | null {
    const row = readDatasetRow(this.db, name);
    this.loadedVersions.set(name, row === null ? null : `${row.loaded_at}|${row.sha256}`);
    return row;
  }

  private loadGeo(): Slot<GeoSource, GeoShare> {
    const row = this.row('geo');
    if (!isActive(row)) return { value: null, share: null };
    const files = readGeoFiles(this.dataDir, loadGeoFileRows(this.db));
    if (files.length === 0) return { value: null, share: null };
    return this.geoFromShare({ files, meta: metaOf(row, 'geo') });
  }

  private loadPrefixes(): Slot<PrefixSnapshot, PrefixShare> {
    const row = this.row('prefixes');
    if (!isActive(row)) return { value: null, share: null };
    const builder = loadPrefixRows(this.db);
    if (builder.size === 0) return { value: null, share: null };
    return this.prefixFromShare(builder.build(metaOf(row, 'prefixes')));
  }

  private loadOui(): Slot<OuiSource> {
    const row = this.row('oui');
    if (!isActive(row)) return { value: null };
    return { value: new OuiSnapshot(metaOf(row, 'oui'), loadOuiRecords(this.db)) };
  }

  private loadNames(): Slot<AsNamesTable> {
    const row = this.row('asnames');
    if (!isActive(row)) return { value: null };
    return { value: { meta: metaOf(row, 'asnames'), byAsn: loadAsNames(this.db) } };
  }

  private loadRir(): Slot<RirTable> {
    const row = this.row('rir');
    if (!isActive(row)) return { value: null };
    return { value: new RirTable(metaOf(row, 'rir'), loadRirBlocks(this.db)) };
  }

  /** The health `datasets` object. Cached for a second: health is polled hard and must stay cheap. */
  status(now = Date.now()): Record<HealthDatasetName, DatasetStatus> {
    const cached = this.statusCache;
    if (cached !== null && now - cached.at < STATUS_CACHE_MS && now >= cached.at) return cached.value;
    const rows = new Map(
      (this.db.prepare('SELECT name, source, version, built_at, loaded_at, records, last_error FROM dataset').all() as DatasetRow[]).map((r) => [r.name, r]),
    );
    const out = {} as Record<HealthDatasetName, DatasetStatus>;
    for (const name of HEALTH_DATASETS) {
      out[name] = name === 'asn' ? this.describeAsn(rows, now) : this.describe(rows.get(name), now);
    }
    this.statusCache = { at: now, value: out };
    return out;
  }

  private describeAsn(rows: Map<string, DatasetRow>, now: number): DatasetStatus {
    const parts: Record<string, DatasetStatus> = {};
    for (const p of ASN_PARTS) parts[p] = this.describe(rows.get(p), now);
    const loaded = ASN_PARTS.filter((p) => parts[p]!.loaded).map((p) => parts[p]!);
    const pick = <T>(f: (s: DatasetStatus) => T | null): T[] => loaded.map(f).filter((v): v is T => v !== null);
    const builtAt = pick((s) => s.built_at).sort()[0] ?? null;
    const loadedAt = pick((s) => s.loaded_at).sort().at(-1) ?? null;
    const ages = pick((s) => s.age_seconds);
    return {
      // IP → AS answers need the prefix data; names and registry data only enrich them.
      loaded: parts['prefixes']!.loaded,
      dataset: loaded.length === 0 ? null : pick((s) => s.dataset).join(' + '),
      source: loaded.length === 0 ? null : pick((s) => s.source).join(' + '),
      built_at: builtAt,
      loaded_at: loadedAt,
      age_seconds: ages.length === 0 ? null : Math.max(...ages),
      records: loaded.length === 0 ? null : loaded.reduce((sum, s) => sum + (s.records ?? 0), 0),
      stale: !parts['prefixes']!.loaded || loaded.some((s) => s.stale),
      last_error: ASN_PARTS.map((p) => parts[p]!.last_error).find((e) => e !== null) ?? null,
      parts,
    };
  }

  private describe(row: DatasetRow | undefined, now: number): DatasetStatus {
    const loaded = row !== undefined && row.loaded_at !== null && (row.records ?? 0) > 0;
    const ref = row?.built_at ?? row?.loaded_at ?? null;
    const age = ref === null ? null : Math.max(0, Math.round((now - Date.parse(ref)) / 1000));
    return {
      loaded,
      dataset: row?.version ?? null,
      source: row?.source ?? null,
      built_at: row?.built_at ?? null,
      loaded_at: row?.loaded_at ?? null,
      age_seconds: age,
      records: row?.records ?? null,
      stale: !loaded || (age !== null && age > this.staleAfterSeconds),
      last_error: row?.last_error ?? null,
    };
  }
}
