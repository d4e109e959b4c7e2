import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lookupEndpoint, parseQuery, rawLookupParam } from '../../../src/http/server.js';

/** The reference: URLSearchParams, the first value of a repeated key winning. */
function reference(raw: string): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const [k, v] of new URLSearchParams(raw)) if (!Object.hasOwn(out, k)) out[k] = v;
  return out;
}

const queryChar = fc.constantFrom(...'aAzZ09=&?%+-._~/:;!$\'()*,@é '.split(''));

describe('parseQuery', () => {
  it.each([
    ['', {}],
    ['type=A', { type: 'A' }],
    ['type=MX&type=A', { type: 'MX' }],
    ['a&b=&=c', { a: '', b: '', '': 'c' }],
    ['type=%4D%58', { type: 'MX' }],
    ['q=a+b', { q: 'a b' }],
    ['?type=A', { type: 'A' }],
    ['bad=%zz', { bad: '%zz' }],
    ['__proto__=x', JSON.parse('{"__proto__":"x"}') as Record<string, string>],
  ])('%j', (raw, expected) => {
    expect({ ...parseQuery(raw) }).toEqual({ ...reference(raw) });
    expect(Object.keys(parseQuery(raw))).toEqual(Object.keys(expected));
  });

  it('property: agrees with URLSearchParams on any query string', () => {
    fc.assert(
      fc.property(fc.string({ unit: queryChar, maxLength: 40 }), (raw) => {
        expect({ ...parseQuery(raw) }).toEqual({ ...reference(raw) });
      }),
      { numRuns: 2000 },
    );
  });

  it('a key named __proto__ is an ordinary key', () => {
    const q = parseQuery('__proto__=x&type=A');
    expect(q['__proto__']).toBe('x');
    expect(q['type']).toBe('A');
  });
});

describe('lookupEndpoint and rawLookupParam', () => {
  it.each([
    ['/v1/ip/8.8.8.8', 'ip', '8.8.8.8'],
    ['/v1/ip', 'ip', ''],
    ['/v1/ip/', 'ip', ''],
    ['/v1/dns/a/b', 'dns', 'a/b'],
    ['/v1/IP/1.1.1.1', undefined, '1.1.1.1'],
    ['/v1/', undefined, ''],
    ['/v2/ip/1.1.1.1', undefined, ''],
    ['/v1/ipx/1', undefined, '1'],
    ['/v1/i/1', undefined, '1'],
    ['/v1/pingx', undefined, ''],
    ['/v1/ping/h', 'ping', 'h'],
    ['/v1/ping', 'ping', ''],
    ['/v1/asn//x', 'asn', '/x'],
    ['/v1ip/1', undefined, ''],
  ])('%s', (path, name, param) => {
    const endpoint = lookupEndpoint(path);
    expect(endpoint?.name).toBe(name);
    if (endpoint !== undefined) expect(rawLookupParam(path, endpoint)).toBe(param);
  });
});
