import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { memberBytes, membersOnce, withMemberBytes } from '../../../src/lookups/json-text.js';

describe('withMemberBytes', () => {
  it('attaches the JSON members as UTF-8 invisibly and freezes the object', () => {
    const o = withMemberBytes({ asn: 15169, as_name: 'Google "LLC"', prefix: null, nested: { a: [1, 'é'] } });
    expect(memberBytes(o).toString('utf8')).toBe(JSON.stringify(o).slice(1, -1));
    expect(memberBytes(o)).toBe(memberBytes(o)); // attached once, not re-encoded
    expect(Object.keys(o)).toEqual(['asn', 'as_name', 'prefix', 'nested']);
    expect(o).toEqual({ asn: 15169, as_name: 'Google "LLC"', prefix: null, nested: { a: [1, 'é'] } });
    expect({ ...o }).toEqual(o);
    expect(Object.isFrozen(o)).toBe(true);
  });

  it('gives the bytes of membersOnce on a plain object, for any JSON object (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (d) => {
        const plain = Object.freeze({ ...d });
        const text = JSON.stringify(plain).slice(1, -1);
        return membersOnce(plain) === text && memberBytes(withMemberBytes({ ...d })).equals(Buffer.from(text)) && memberBytes(plain).equals(Buffer.from(text));
      }),
      { numRuns: 500 },
    );
  });
});
