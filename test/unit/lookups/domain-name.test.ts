import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseDomainName } from '../../../src/lookups/domain-name.js';
import { LookupError } from '../../../src/http/errors.js';

function rejection(input: string): LookupError {
  try {
    parseDomainName(input);
  } catch (e) {
    expect(e).toBeInstanceOf(LookupError);
    return e as LookupError;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('parseDomainName accepts', () => {
  it.each([
    ['example.com', 'example.com', 'example.com'],
    ['Example.COM', 'example.com', 'example.com'],
    ['example.com.', 'example.com', 'example.com'],
    ['_sip._tcp.example.com', '_sip._tcp.example.com', '_sip._tcp.example.com'],
    ['localhost', 'localhost', 'localhost'],
    ['a', 'a', 'a'],
    ['ab--c.example', 'ab--c.example', 'ab--c.example'],
    ['bücher.de', 'xn--bcher-kva.de', 'bücher.de'],
    ['BÜCHER.de', 'xn--bcher-kva.de', 'bücher.de'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de', 'bücher.de'],
    ['XN--BCHER-KVA.DE', 'xn--bcher-kva.de', 'bücher.de'],
    ['faße.de', 'xn--fae-6ka.de', 'faße.de'],
    ['ｅｘａｍｐｌｅ。ｃｏｍ', 'example.com', 'example.com'],
    ['bücher.de。', 'xn--bcher-kva.de', 'bücher.de'],
    ['☃.example', 'xn--n3h.example', '☃.example'],
    ['192.0.2.1', '192.0.2.1', '192.0.2.1'],
    ['1.2.3', '1.2.3', '1.2.3'],
    // Full-width digits are a UTS 46 mapping, not an IPv4 literal: the name stays three labels.
    ['１.２.３', '1.2.3', '1.2.3'],
  ])('%j → %s', (input, ascii, unicode) => {
    const d = parseDomainName(input);
    expect(d.ascii).toBe(ascii);
    expect(d.unicode).toBe(unicode);
    expect(d.labels.join('.')).toBe(ascii);
  });

  it('reports whether the name was absolute', () => {
    expect(parseDomainName('example.com.').absolute).toBe(true);
    expect(parseDomainName('example.com').absolute).toBe(false);
  });

  it('accepts the length limits exactly', () => {
    const label63 = 'a'.repeat(63);
    expect(parseDomainName(`${label63}.com`).ascii).toBe(`${label63}.com`);
    const name253 = [label63, label63, label63, 'b'.repeat(61)].join('.');
    expect(name253.length).toBe(253);
    expect(parseDomainName(name253).ascii).toBe(name253);
    expect(parseDomainName(`${name253}.`).ascii).toBe(name253);
  });
});

describe('parseDomainName rejects', () => {
  it.each([
    ['', 'empty'],
    [' example.com', 'whitespace'],
    ['example.com ', 'whitespace'],
    ['example.com\n', 'whitespace'],
    ['.', 'no labels'],
    ['a..b', 'empty label'],
    ['.example.com', 'empty label'],
    ['example.com..', 'empty label'],
    ['-a.com', 'hyphen'],
    ['a-.com', 'hyphen'],
    ['ex ample.com', 'character'],
    ['a%2e.com', 'character'],
    ['a/b', 'character'],
    ['a:443', 'character'],
    ['*.example.com', 'character'],
    ['user@example.com', 'character'],
    ['[::1]', 'character'],
    ['xn--zz.com', 'punycode'],
    ['xn--a.com', 'punycode'],
    ['a\u00ADb.com', 'invisible'],
    ['a\uFE0Fb.com', 'invisible'],
    ['a\u200Bb.com', 'invisible'],
    ['a\u200Cb.com', 'UTS 46'],
    ['ü%2e.com', 'character'],
    ['ü/a.com', 'character'],
    ['ü／a.com', 'UTS 46'],
    ['\u05D0a1.com', 'UTS 46'],
    ['⒈example.com', 'labels'],
    ['ü！.com', 'character'],
    ['a.b\u0000', 'character'],
  ])('%j (%s)', (input, why) => {
    const e = rejection(input);
    expect(e.code).toBe('invalid_domain');
    expect(e.status).toBe(400);
    expect(e.message).toContain(why);
    expect(e.message).toContain('expected');
  });

  it('rejects a label of 64 octets and a name of 254 octets', () => {
    expect(rejection(`${'a'.repeat(64)}.com`).message).toContain('63');
    const name254 = ['a'.repeat(63), 'a'.repeat(63), 'a'.repeat(63), 'b'.repeat(62)].join('.');
    expect(rejection(name254).message).toContain('253');
  });

  it('rejects a Unicode label whose punycode exceeds 63 octets', () => {
    expect(rejection(`${'ü'.repeat(60)}.com`).code).toBe('invalid_domain');
  });

  it('bounds the quoted input in the message', () => {
    expect(rejection('x'.repeat(5000)).message.length).toBeLessThan(400);
  });
});

const labelArb = fc
  .stringMatching(/^[a-z0-9_](?:[a-z0-9_-]{0,20}[a-z0-9_])?$/)
  .filter((l) => !l.startsWith('xn--') && !/^..--/.test(l));
const nameArb = fc.array(labelArb, { minLength: 1, maxLength: 6 }).map((ls) => ls.join('.'));

describe('parseDomainName properties', () => {
  it('valid ASCII names round-trip, case-folded, with or without the trailing dot', () => {
    fc.assert(
      fc.property(nameArb, fc.boolean(), fc.boolean(), (name, upper, dot) => {
        const input = (upper ? name.toUpperCase() : name) + (dot ? '.' : '');
        const d = parseDomainName(input);
        expect(d.ascii).toBe(name);
        expect(d.absolute).toBe(dot);
        expect(parseDomainName(d.ascii).ascii).toBe(d.ascii);
      }),
    );
  });

  it('any string either parses to a valid ASCII name or throws invalid_domain', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.stringMatching(/^[a-zA-Z0-9.\-_%ü。 ]{0,80}$/)), (input) => {
        let d;
        try {
          d = parseDomainName(input);
        } catch (e) {
          expect(e).toBeInstanceOf(LookupError);
          expect((e as LookupError).code).toBe('invalid_domain');
          return;
        }
        expect(d.ascii.length).toBeGreaterThan(0);
        expect(d.ascii.length).toBeLessThanOrEqual(253);
        for (const l of d.ascii.split('.')) expect(l).toMatch(/^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/);
        // The ASCII form is a fixed point, and the Unicode form maps back to it.
        expect(parseDomainName(d.ascii).ascii).toBe(d.ascii);
        expect(parseDomainName(d.unicode).ascii).toBe(d.ascii);
      }),
      { numRuns: 2000 },
    );
  });

  it('Unicode names round-trip through their punycode form', () => {
    const uLabel = fc.stringMatching(/^[a-zäöüßéèàçñ]{1,12}$/);
    fc.assert(
      fc.property(fc.array(uLabel, { minLength: 1, maxLength: 4 }), (ls) => {
        const d = parseDomainName(ls.join('.'));
        expect(parseDomainName(d.ascii).unicode).toBe(d.unicode);
      }),
    );
  });
});
