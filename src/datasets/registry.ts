// Which datasets exist, what is loaded, and how old it is (the health `datasets` object).
import type { Db } from '../platform/sqlite.js';
import type { AsnSource, GeoSource, OuiSource, PrefixSource } from './types.js';

/** Dataset names as the health resource shows them. */
export const HEALTH_DATASETS = ['geo', 'oui', 'asn', 'rdap_bootstrap', 'ct_logs'] as const;
export type HealthDatasetName = (typeof HEALTH_DATASETS)[number];

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
}

interface DatasetRow {
  name: string;
  source: string | null;
  version: string | null;
  built_at: string | null;
  loaded_at: string | null;
  records: number | null;
  last_error: string | null;
}

/** What the main thread hands to HTTP workers so they can read datasets without loading them again. */
export type DatasetShare = unknown;

export class Datasets {
  constructor(private readonly db: Db, private readonly staleAfterSeconds: number, _share: DatasetShare = null) {}

  /** Current snapshots; null while a dataset has never been loaded. Read once per lookup. */
  get geo(): GeoSource | null {
    return null;
  }
  get prefixes(): PrefixSource | null {
    return null;
  }
  get asns(): AsnSource | null {
    return null;
  }
  get oui(): OuiSource | null {
    return null;
  }

  /** Main thread: the shareable form of the loaded datasets, for workerData. */
  share(): DatasetShare {
    return null;
  }

  private readonly activatedListeners: ((name: string, share: DatasetShare) => void)[] = [];

  /** Main thread: called after a dataset version is activated, so workers can swap too. */
  onActivated(listener: (name: string, share: DatasetShare) => void): void {
    this.activatedListeners.push(listener);
  }

  /** A dataset was activated elsewhere (main thread, CLI import): swap to its new version. */
  reload(_name: string, _share: DatasetShare = null): void {}

  status(now = Date.now()): Record<HealthDatasetName, DatasetStatus> {
    const rows = new Map(
      (this.db.prepare('SELECT name, source, version, built_at, loaded_at, records, last_error FROM dataset').all() as DatasetRow[]).map((r) => [r.name, r]),
    );
    const out = {} as Record<HealthDatasetName, DatasetStatus>;
    for (const name of HEALTH_DATASETS) out[name] = this.describe(rows.get(name), now);
    return out;
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
