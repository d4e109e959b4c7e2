import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseQueryType } from '../../../../src/lookups/dns/query-type.js';
import { QUERY_TYPES } from '../../../../src/lookups/dns/types.js';
import { LookupError } from '../../../../src/http/errors.js';

describe('parseQueryType', () => {
  it('defaults to A', () => expect(parseQueryType(undefined)).toBe('A'));

  it.each(QUERY_TYPES.flatMap((t) => [[t, t], [t.toLowerCase(), t]]))('%s → %s', (input, t) => {
    expect(parseQueryType(input)).toBe(t);
  });

  it.each(['', ' A', 'A ', 'ANY', 'PTR', 'HTTPS', 'a a', 'ſoa', 'ſrv', '1', 'TYPE1'])('rejects %j with invalid_type naming the accepted types', (input) => {
    try {
      parseQueryType(input);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(LookupError);
      expect((e as LookupError).code).toBe('invalid_type');
      expect((e as LookupError).status).toBe(400);
      expect((e as LookupError).message).toContain('A, AAAA, MX, TXT, NS, CNAME, SOA, CAA, SRV');
    }
  });

  it('any string is either a supported type (case-insensitively) or invalid_type', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.constantFrom(...QUERY_TYPES).map((t) => [...t].map((c) => (Math.random() < 0.5 ? c.toLowerCase() : c)).join(''))), (s) => {
      try {
        const t = parseQueryType(s);
        expect(t).toBe(s.toUpperCase());
        expect(QUERY_TYPES).toContain(t);
      } catch (e) {
        expect((e as LookupError).code).toBe('invalid_type');
      }
    }), { numRuns: 1000 });
  });
});
