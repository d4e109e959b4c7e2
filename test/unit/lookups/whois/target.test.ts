import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isLookupError } from '../../../../src/http/errors.js';
import { whoisTarget } from '../../../../src/lookups/whois/target.js';
import { parseRawFlag, whoisBody } from '../../../../src/lookups/whois/result.js';

describe('whoisTarget', () => {
  it.each([
    ['example.com', 'example.com', 'example.com', 'com'],
    ['WWW.Example.COM.', 'example.com', 'example.com', 'com'],
    ['www.example.co.uk', 'example.co.uk', 'example.co.uk', 'uk'],
    ['a.b.bücher.de', 'xn--bcher-kva.de', 'bücher.de', 'de'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de', 'bücher.de', 'de'],
    ['foo.github.io', 'github.io', 'github.io', 'io'],
    ['example.zz', 'example.zz', 'example.zz', 'zz'],
  ])('%s → %s', (input, ascii, unicode, tld) => {
    expect(whoisTarget(input)).toEqual({ ascii, unicode, tld });
  });

  it.each(['', ' example.com', 'example.com ', 'com', 'co.uk', '1.2.3.4', 'exa mple.com', 'a..com', '-a.com', 'http://example.com'])('rejects %j with invalid_domain', (input) => {
    expect(() => whoisTarget(input)).toThrow(expect.objectContaining({ code: 'invalid_domain', status: 400 }));
  });

  it('only ever throws invalid_domain', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.domain(), fc.webUrl()), (s) => {
        try {
          const t = whoisTarget(s);
          expect(t.ascii.endsWith(`.${t.tld}`)).toBe(true);
        } catch (e) {
          if (!isLookupError(e) || e.code !== 'invalid_domain') throw e;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('response body', () => {
  it('raw flag', () => {
    expect(parseRawFlag(undefined)).toBe(false);
    expect(parseRawFlag('true')).toBe(true);
    expect(parseRawFlag('0')).toBe(false);
    expect(() => parseRawFlag('maybe')).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
  });

  it('an unregistered domain has null fields, never empty lists', () => {
    const body = whoisBody(
      {
        record: {
          domain: 'nothing.com', unicode_domain: 'nothing.com', source_type: 'rdap', registration: null,
          servers: { rdap: 'https://rdap.example/', whois: null, related: null }, raw: { errorCode: 404 }, raw_related: null,
          fetched_at_ms: Date.parse('2026-11-20T02:00:00.900Z'), bootstrap: { dataset: 'rdap-dns x', built_at: null },
        },
        cached: false, stale: false, maxAge: 10,
      },
      false,
    );
    expect(body).toEqual({
      domain: 'nothing.com', unicode_domain: 'nothing.com', registered: false, source_type: 'rdap',
      registrar: null, registered_at: null, expires_at: null, updated_at: null, status: null, nameservers: null, dnssec: null, registrant: null,
      servers: { rdap: 'https://rdap.example/', whois: null }, cached: false, stale: false, fetched_at: '2026-11-20T02:00:00Z',
      source: { rdap: { server: 'https://rdap.example/', related: null, fetched_at: '2026-11-20T02:00:00Z' }, rdap_bootstrap: { dataset: 'rdap-dns x', built_at: null } },
    });
  });
});
