// SQLite access for API keys and their daily usage (migration 005). Only hashes are stored.
import type { Db } from '../platform/sqlite.js';
import { dayString, displayPrefix, generateKey, hashKey, isPlan, type Plan } from './keys.js';

export interface ActiveKey {
  readonly id: number;
  readonly name: string;
  readonly plan: Plan;
  readonly hash: string;
}

export interface KeyRow {
  readonly id: number;
  readonly name: string;
  readonly plan: Plan;
  readonly prefix: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
  readonly today: number;
}

export interface UsageDelta {
  readonly keyId: number;
  readonly day: number;
  readonly requests: number;
}

export class KeyNameTaken extends Error {
  constructor(name: string) {
    super(`an active key named ${JSON.stringify(name)} already exists; revoke it or choose another name`);
    this.name = 'KeyNameTaken';
  }
}

export class KeyRepo {
  private readonly activeStmt;
  private readonly usageStmt;
  private readonly addUsageStmt;
  private readonly touchStmt;

  constructor(private readonly db: Db) {
    this.activeStmt = db.prepare('SELECT id, name, plan, key_hash AS hash FROM api_keys WHERE revoked_at IS NULL');
    this.usageStmt = db.prepare('SELECT requests FROM api_key_usage WHERE key_id = ? AND day = ?').pluck();
    this.addUsageStmt = db.prepare(
      'INSERT INTO api_key_usage (key_id, day, requests) SELECT @keyId, @day, @requests WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = @keyId) ' +
        'ON CONFLICT (key_id, day) DO UPDATE SET requests = requests + excluded.requests',
    );
    this.touchStmt = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  }

  /** Creates a key; returns the key text, which is never stored and cannot be shown again. */
  create(name: string, plan: Plan, now = new Date()): { id: number; key: string } {
    const key = generateKey();
    try {
      const r = this.db
        .prepare('INSERT INTO api_keys (name, plan, key_hash, key_prefix, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(name, plan, hashKey(key), displayPrefix(key), isoSeconds(now));
      return { id: Number(r.lastInsertRowid), key };
    } catch (e) {
      if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && /api_keys\.name/.test(String(e))) throw new KeyNameTaken(name);
      throw e;
    }
  }

  active(): ActiveKey[] {
    return (this.activeStmt.all() as { id: number; name: string; plan: string; hash: string }[]).filter(
      (r): r is ActiveKey => isPlan(r.plan),
    );
  }

  list(now = new Date()): KeyRow[] {
    const today = dayString(Math.floor(now.getTime() / 86_400_000));
    const rows = this.db
      .prepare(
        `SELECT k.id, k.name, k.plan, k.key_prefix AS prefix, k.created_at AS createdAt, k.last_used_at AS lastUsedAt,
                k.revoked_at AS revokedAt, COALESCE(u.requests, 0) AS today
           FROM api_keys k LEFT JOIN api_key_usage u ON u.key_id = k.id AND u.day = ?
          ORDER BY k.id`,
      )
      .all(today) as KeyRow[];
    return rows;
  }

  /** Revokes by id (all digits) or by the name of an active key. Returns the revoked row, or null. */
  revoke(idOrName: string, now = new Date()): { id: number; name: string } | null {
    const row = (
      /^\d+$/.test(idOrName)
        ? this.db.prepare('SELECT id, name FROM api_keys WHERE id = ? AND revoked_at IS NULL').get(Number(idOrName))
        : this.db.prepare('SELECT id, name FROM api_keys WHERE name = ? AND revoked_at IS NULL').get(idOrName)
    ) as { id: number; name: string } | undefined;
    if (row === undefined) return null;
    this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(isoSeconds(now), row.id);
    return row;
  }

  usage(keyId: number, day: number): number {
    return (this.usageStmt.get(keyId, dayString(day)) as number | undefined) ?? 0;
  }

  /** Adds a batch of usage in one transaction and stamps last use. */
  addUsage(deltas: readonly UsageDelta[], now = new Date()): void {
    if (deltas.length === 0) return;
    const stamp = isoSeconds(now);
    this.db.transaction(() => {
      const touched = new Set<number>();
      for (const d of deltas) {
        if (d.requests <= 0) continue;
        this.addUsageStmt.run({ keyId: d.keyId, day: dayString(d.day), requests: d.requests });
        touched.add(d.keyId);
      }
      for (const id of touched) this.touchStmt.run(stamp, id);
    })();
  }
}

function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
