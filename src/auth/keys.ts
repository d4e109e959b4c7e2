// API keys: format, hashing, the Authorization header, plans and the UTC day (pure, no I/O).
import crypto from 'node:crypto';

export const PLANS = ['developer', 'pro', 'business'] as const;
export type Plan = (typeof PLANS)[number];

/** Daily allowance per plan; 0 = unlimited. */
export type PlanAllowances = Readonly<Record<Plan, number>>;

export const DEFAULT_ALLOWANCES: PlanAllowances = { developer: 10_000, pro: 100_000, business: 0 };

export const KEY_PREFIX = 'ni_';
/** 24 random bytes = 192 bits, base64url without padding = 32 characters. */
const KEY_BYTES = 24;
const KEY_SHAPE = /^ni_[A-Za-z0-9_-]{32}$/;

export function isPlan(s: string): s is Plan {
  return (PLANS as readonly string[]).includes(s);
}

export function generateKey(random: (n: number) => Buffer = crypto.randomBytes): string {
  return KEY_PREFIX + random(KEY_BYTES).toString('base64url');
}

export function isWellFormedKey(key: string): boolean {
  return KEY_SHAPE.test(key);
}

/** SHA-256 is enough for 192-bit random secrets: nothing to brute-force, so no slow KDF is needed. */
export function hashKey(key: string): string {
  return crypto.createHash('sha256').update(key).digest('hex');
}

/** The part of a key that may be shown (key list, operator logs): the prefix and 4 characters (24 bits). */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 4);
}

export type Authorization =
  | { readonly kind: 'none' }
  | { readonly kind: 'malformed'; readonly reason: string }
  | { readonly kind: 'bearer'; readonly key: string };

// Shared: nearly every request has no Authorization header, and an object each was garbage on the hot path.
const NO_AUTHORIZATION: Authorization = Object.freeze({ kind: 'none' });

/** Reads an Authorization header value. The key itself never appears in a reason. */
export function parseAuthorization(header: string | undefined): Authorization {
  if (header === undefined) return NO_AUTHORIZATION;
  const m = /^([A-Za-z]+) +(\S+) *$/.exec(header);
  if (m === null) return { kind: 'malformed', reason: 'expected "Authorization: Bearer <key>"' };
  if (m[1]!.toLowerCase() !== 'bearer') return { kind: 'malformed', reason: `the ${JSON.stringify(m[1]!.slice(0, 16))} scheme is not supported; use Bearer` };
  if (!isWellFormedKey(m[2]!)) return { kind: 'malformed', reason: `a key is "${KEY_PREFIX}" followed by 32 base64url characters` };
  return { kind: 'bearer', key: m[2]! };
}

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 UTC: allowances reset at 00:00 UTC. */
export function utcDay(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS);
}

export function dayString(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Whole seconds until the next 00:00 UTC (at least 1). */
export function secondsUntilNextDay(nowMs: number): number {
  return Math.max(1, Math.ceil(((utcDay(nowMs) + 1) * DAY_MS - nowMs) / 1000));
}
