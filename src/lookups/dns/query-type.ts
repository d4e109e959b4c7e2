// The `type` query parameter: one of the nine record types, case-insensitive, default A. Pure.
import { LookupError, quote } from '../../http/errors.js';
import { QUERY_TYPES, type QueryType } from './types.js';

const BY_UPPER = new Map<string, QueryType>(QUERY_TYPES.map((t) => [t, t]));

/**
 * `undefined` (parameter absent) means A. Anything else must name a supported type exactly
 * (any case, no surrounding whitespace).
 * @throws LookupError `invalid_type` naming the accepted types.
 */
export function parseQueryType(input: string | undefined): QueryType {
  if (input === undefined) return 'A';
  // ASCII only: toUpperCase maps "ſ" (long s) to "S", which would let "ſoa" through.
  const t = /^[A-Za-z]{1,5}$/.test(input) ? BY_UPPER.get(input.toUpperCase()) : undefined;
  if (t === undefined) {
    throw new LookupError('invalid_type', `Invalid record type: ${quote(input)} is not supported; accepted types are ${QUERY_TYPES.join(', ')} (case-insensitive, default A)`);
  }
  return t;
}
