import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BootstrapFormatError, matchRdapBase, parseRdapBootstrap } from '../../../../src/lookups/whois/bootstrap.js';

const doc = {
  version: '1.0',
  publication: '2026-11-20T20:00:02Z',
  services: [
    [['com', 'NET'], ['http://rdap.verisign.example/com/v1', 'https://rdap.verisign.example/com/v1/']],
    [['uk'], ['https://rdap.nominet.example/uk/']],
    [['co.uk'], ['https://rdap.co-uk.example/']],
    [['com'], ['https://duplicate.example/']],
    'garbage',
    [['bad label!'], ['https://x.example/']],
    [['nourl'], ['ftp://x.example/', 'not a url']],
  ],
};

describe('parseRdapBootstrap', () => {
  it('reads IANA dns.json, preferring https and normalising trailing slashes', () => {
    const b = parseRdapBootstrap(JSON.stringify(doc));
    expect(b.version).toBe('1.0');
    expect(b.publication).toBe('2026-11-20T20:00:02Z');
    expect(b.services.get('com')).toEqual(['https://rdap.verisign.example/com/v1/', 'http://rdap.verisign.example/com/v1/']);
    expect(b.services.get('net')).toEqual(b.services.get('com'));
    expect(b.services.has('nourl')).toBe(false);
    expect(b.services.size).toBe(4);
  });

  it('refuses files that would switch RDAP off', () => {
    expect(() => parseRdapBootstrap('not json')).toThrow(BootstrapFormatError);
    expect(() => parseRdapBootstrap('[]')).toThrow(BootstrapFormatError);
    expect(() => parseRdapBootstrap('{"services": {}}')).toThrow(BootstrapFormatError);
    expect(() => parseRdapBootstrap('{"services": []}')).toThrow(BootstrapFormatError);
  });

  it('never throws anything but BootstrapFormatError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify({ services: v }))), (text) => {
        try {
          const b = parseRdapBootstrap(text);
          for (const urls of b.services.values()) for (const u of urls) expect(u).toMatch(/^https?:\/\/.+\/$/);
        } catch (e) {
          if (!(e instanceof BootstrapFormatError)) throw e;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('matchRdapBase', () => {
  const b = parseRdapBootstrap(JSON.stringify(doc));
  it('uses the longest label suffix', () => {
    expect(matchRdapBase(b, 'example.co.uk')).toBe('https://rdap.co-uk.example/');
    expect(matchRdapBase(b, 'example.org.uk')).toBe('https://rdap.nominet.example/uk/');
    expect(matchRdapBase(b, 'EXAMPLE.COM')).toBe('https://rdap.verisign.example/com/v1/');
    expect(matchRdapBase(b, 'example.zz')).toBeNull();
    expect(matchRdapBase(b, 'notcom')).toBeNull();
  });
});
