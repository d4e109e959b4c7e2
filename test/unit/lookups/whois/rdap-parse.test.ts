import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RdapFormatError, isRdapNotFound, parseRdapDomain, relatedRdapLinks } from '../../../../src/lookups/whois/rdap-parse.js';
import { rdapFull, rdapQuirky, rdapRedacted, rdapRegistrarCopy, rdapRegistry } from '../../../helpers/rdap-whois-servers.js';

describe('parseRdapDomain', () => {
  it('reads a full ICANN-profile record', () => {
    const r = parseRdapDomain(rdapFull('example.com'));
    expect(r).toEqual({
      registrar: {
        name: 'Example Registrar, Inc.',
        iana_id: '376',
        url: 'https://registrar.example',
        abuse_email: 'abuse@registrar.example',
        abuse_phone: '+1.5555550100',
      },
      registered_at: '1995-08-14T04:00:00Z',
      expires_at: '2026-08-13T04:00:00Z',
      updated_at: '2025-08-14T07:01:39Z',
      status: ['client delete prohibited', 'client transfer prohibited', 'client update prohibited'],
      nameservers: ['a.iana-servers.net', 'b.iana-servers.net'],
      dnssec: true,
      registrant: { name: 'Jane Doe', organization: 'Example Org', country: 'US', email: 'jane@example.org', redacted: false },
    });
  });

  it('marks redacted registrants and drops placeholder values', () => {
    const r = parseRdapDomain(rdapRedacted('example.com'));
    expect(r.registrant).toEqual({ name: null, organization: 'Example Org', country: 'US', email: null, redacted: true });
    expect(r.dnssec).toBe(false);
    expect(r.status).toEqual(['active']);
  });

  it('detects RFC 9537 redaction even without a registrant entity', () => {
    const doc = { objectClassName: 'domain', ldhName: 'x.com', redacted: [{ name: { description: 'Registrant Email' }, method: 'removal' }] };
    expect(parseRdapDomain(doc).registrant.redacted).toBe(true);
  });

  it('tolerates numbers as strings, missing dates, headerless vCards and odd shapes', () => {
    const r = parseRdapDomain(rdapQuirky('quirky.com'));
    expect(r.registrar).toEqual({ name: 'Quirky Registrar', iana_id: '9999', url: null, abuse_email: null, abuse_phone: null });
    expect(r.registered_at).toBe('2010-05-06T07:08:09Z');
    expect(r.expires_at).toBeNull();
    expect(r.updated_at).toBe('2020-01-02T01:04:05Z');
    expect(r.status).toEqual(['active', 'server hold']);
    expect(r.nameservers).toEqual(['ns.example.org']);
    expect(r.dnssec).toBe(true);
    expect(r.registrant).toEqual({ name: null, organization: 'Quirky Holdings', country: 'DE', email: null, redacted: false });
  });

  it('reads the registrar copy (abuse contact beside the registrar, country from adr)', () => {
    const r = parseRdapDomain(rdapRegistrarCopy('linked.com'));
    expect(r.registrar.abuse_email).toBe('abuse@linked.example');
    expect(r.registrar.abuse_phone).toBe('+1.5550000');
    expect(r.registrant).toEqual({ name: 'Link Holder', organization: null, country: 'FR', email: 'holder@linked.example', redacted: false });
  });

  it('reads JSContact cards when there is no vCard', () => {
    const doc = {
      objectClassName: 'domain',
      ldhName: 'js.com',
      entities: [{ roles: ['registrant'], jscard: { name: { full: 'JS Person' }, emails: { e: { address: 'js@example.com' } }, addresses: { a: { countryCode: 'nl' } } } }],
    };
    expect(parseRdapDomain(doc).registrant).toEqual({ name: 'JS Person', organization: null, country: 'NL', email: 'js@example.com', redacted: false });
  });

  it('refuses what is not a domain object', () => {
    expect(() => parseRdapDomain('x')).toThrow(RdapFormatError);
    expect(() => parseRdapDomain([])).toThrow(RdapFormatError);
    expect(() => parseRdapDomain({ objectClassName: 'entity' })).toThrow(RdapFormatError);
    expect(() => parseRdapDomain({ errorCode: 404 })).toThrow(RdapFormatError);
    expect(() => parseRdapDomain({ foo: 1 })).toThrow(RdapFormatError);
  });

  it('never throws anything but RdapFormatError on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        try {
          parseRdapDomain(v);
        } catch (e) {
          if (!(e instanceof RdapFormatError)) throw e;
        }
        try {
          parseRdapDomain({ objectClassName: 'domain', ...(typeof v === 'object' && v !== null && !Array.isArray(v) ? v : { entities: v, events: v, nameservers: v }) });
        } catch (e) {
          if (!(e instanceof RdapFormatError)) throw e;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('relatedRdapLinks', () => {
  it('keeps RDAP related links, skips web pages and the answer itself', () => {
    const doc = rdapRegistry('linked.com', 'https://rdap.registrar.example/domain/linked.com');
    expect(relatedRdapLinks(doc, 'http://registry.invalid/domain/linked.com')).toEqual(['https://rdap.registrar.example/domain/linked.com']);
    expect(relatedRdapLinks({ links: [{ rel: 'related', href: 'http://registry.invalid/domain/linked.com/', type: 'application/rdap+json' }] }, 'http://registry.invalid/domain/linked.com')).toEqual([]);
    expect(relatedRdapLinks({ links: [{ rel: 'related', href: 'ftp://x/domain/a.com' }] }, 'http://r/')).toEqual([]);
    expect(relatedRdapLinks({ links: [{ rel: 'related', href: '/domain/a.com' }] }, 'https://r.example/x/')).toEqual(['https://r.example/domain/a.com']);
  });

  it('never throws and only returns absolute http(s) URLs', () => {
    const link = fc.record({
      rel: fc.oneof(fc.constant('related'), fc.string()),
      href: fc.oneof(fc.webUrl(), fc.string(), fc.constant('/domain/x.com'), fc.integer()),
      type: fc.oneof(fc.constant('application/rdap+json'), fc.string()),
    });
    fc.assert(
      fc.property(fc.oneof(fc.array(link, { maxLength: 5 }), fc.jsonValue({ maxDepth: 3 })), fc.constantFrom('https://r.example/domain/a.com', 'http://127.0.0.1:1/'), (links, self) => {
        for (const u of relatedRdapLinks({ links }, self)) expect(u).toMatch(/^https?:\/\//);
      }),
      { numRuns: 300 },
    );
  });
});

describe('isRdapNotFound', () => {
  it('recognises a 404 error object', () => {
    expect(isRdapNotFound({ errorCode: 404 })).toBe(true);
    expect(isRdapNotFound({ errorCode: '404' })).toBe(true);
    expect(isRdapNotFound({ errorCode: 500 })).toBe(false);
    expect(isRdapNotFound(null)).toBe(false);
  });
});
