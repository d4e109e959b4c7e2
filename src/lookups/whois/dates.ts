// Registration dates as registries write them, normalised to ISO 8601 UTC. Pure.
import { isoSeconds } from './types.js';

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
};

// Registration data cannot predate the DNS, and a year past this is a parse accident.
const MIN_YEAR = 1980;
const MAX_YEAR = 2300;

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;
const YMD_SEP = /^(\d{4})[./](\d{2})[./](\d{2})(?:[T ]+(\d{2}):(\d{2})(?::(\d{2}))?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;
const DMY_DOTS = /^(\d{2})\.(\d{2})\.(\d{4})(?:\s+(\d{2}):(\d{2})(?::(\d{2}))?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;
const D_MON_Y = /^(\d{1,2})[- ]([A-Za-z]{3,4})[- ](\d{4})(?:[ T]+(\d{2}):(\d{2})(?::(\d{2}))?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;
const COMPACT = /^(\d{4})(\d{2})(\d{2})$/;

/**
 * Parses the date layouts seen in RDAP and WHOIS answers (ISO 8601 with or without zone,
 * `2004.02.29`, `2004/02/29`, `29.02.2004`, `14-Aug-1999`, `19990814`). A value without a zone is
 * read as UTC. Returns null for anything else: a wrong date is worse than no date.
 */
export function parseRegistryDate(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const s = input.trim().replace(/\s*\([^)]*\)\s*$/, '');
  if (s.length === 0 || s.length > 64) return null;
  let m: RegExpExecArray | null;
  if ((m = ISO.exec(s)) !== null || (m = YMD_SEP.exec(s)) !== null) {
    return build(+m[1]!, +m[2]!, +m[3]!, m[4], m[5], m[6], m[7]);
  }
  if ((m = DMY_DOTS.exec(s)) !== null) return build(+m[3]!, +m[2]!, +m[1]!, m[4], m[5], m[6], m[7]);
  if ((m = D_MON_Y.exec(s)) !== null) {
    const month = MONTHS[m[2]!.toLowerCase()];
    return month === undefined ? null : build(+m[3]!, month, +m[1]!, m[4], m[5], m[6], m[7]);
  }
  if ((m = COMPACT.exec(s)) !== null) return build(+m[1]!, +m[2]!, +m[3]!, undefined, undefined, undefined, undefined);
  return null;
}

function build(
  year: number, month: number, day: number,
  hh: string | undefined, mm: string | undefined, ss: string | undefined, zone: string | undefined,
): string | null {
  const h = hh === undefined ? 0 : +hh;
  const min = mm === undefined ? 0 : +mm;
  const sec = ss === undefined ? 0 : +ss;
  if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || day < 1 || day > 31 || h > 23 || min > 59 || sec > 60) return null;
  const utc = Date.UTC(year, month - 1, day, h, min, Math.min(sec, 59));
  // Date.UTC rolls 31 February into March; a round trip catches it.
  const check = new Date(utc);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  return isoSeconds(utc - zoneOffsetMs(zone));
}

function zoneOffsetMs(zone: string | undefined): number {
  if (zone === undefined || /^(z|utc|gmt)$/i.test(zone)) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (m === null) return 0;
  const minutes = +m[2]! * 60 + (m[3] === undefined ? 0 : +m[3]);
  return (m[1] === '-' ? -1 : 1) * minutes * 60_000;
}
