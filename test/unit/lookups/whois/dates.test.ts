import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseRegistryDate } from '../../../../src/lookups/whois/dates.js';

describe('parseRegistryDate', () => {
  it.each([
    ['1995-08-14T04:00:00Z', '1995-08-14T04:00:00Z'],
    ['2026-08-13T04:00:00.000Z', '2026-08-13T04:00:00Z'],
    ['2018-03-12T21:44:25+01:00', '2018-03-12T20:44:25Z'],
    ['2010-05-06 07:08:09', '2010-05-06T07:08:09Z'],
    ['2004.02.29', '2004-02-29T00:00:00Z'],
    ['2001/08/15 12:00', '2001-08-15T12:00:00Z'],
    ['15.10.1999 00:00:00', '1999-10-15T00:00:00Z'],
    ['14-Aug-1999', '1999-08-14T00:00:00Z'],
    ['14 aug 1999', '1999-08-14T00:00:00Z'],
    ['19990814', '1999-08-14T00:00:00Z'],
    ['2020-01-02T03:04:05Z (UTC)', '2020-01-02T03:04:05Z'],
  ])('%s → %s', (input, expected) => {
    expect(parseRegistryDate(input)).toBe(expected);
  });

  it.each(['', 'soon', '2021-02-30', '31-Foo-2001', '1970-01-01', '2021-13-01T00:00:00Z', '12/11/2020', '99999999'])('rejects %j', (input) => {
    expect(parseRegistryDate(input)).toBeNull();
  });

  it('rejects non-strings', () => {
    expect(parseRegistryDate(1234)).toBeNull();
    expect(parseRegistryDate(null)).toBeNull();
  });

  it('never throws and always returns null or an ISO 8601 UTC second', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString())), (s) => {
        const r = parseRegistryDate(s);
        return r === null || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(r);
      }),
    );
  });
});
