import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { extractReferral, normaliseWhoisServer, parseWhois, whoisFields } from '../../../../src/lookups/whois/whois-parse.js';
import { denicAnswer, noMatchAnswer, registrarAnswer, verisignAnswer } from '../../../helpers/rdap-whois-servers.js';

describe('parseWhois', () => {
  it('reads a Verisign-style registry answer', () => {
    const p = parseWhois(verisignAnswer('example.com', 'whois.registrar.example'));
    expect(p.notFound).toBe(false);
    expect(p.hasData).toBe(true);
    expect(p.referral).toBe('whois.registrar.example');
    expect(p.registration).toEqual({
      registrar: { name: 'Example Registrar, Inc.', iana_id: '376', url: 'http://www.registrar.example', abuse_email: 'abuse@registrar.example', abuse_phone: '+1.5555550100' },
      registered_at: '1995-08-14T04:00:00Z',
      expires_at: '2025-08-13T04:00:00Z',
      updated_at: '2024-08-14T07:01:34Z',
      status: ['client delete prohibited', 'client transfer prohibited'],
      nameservers: ['a.iana-servers.net', 'b.iana-servers.net'],
      dnssec: true,
      registrant: { name: null, organization: null, country: null, email: null, redacted: false },
    });
  });

  it('reads a registrar answer with registrant data', () => {
    const p = parseWhois(registrarAnswer('example.com'));
    expect(p.registration.registrant).toEqual({ name: 'Jane Doe', organization: 'Example Org', country: 'US', email: 'jane@example.org', redacted: false });
    expect(p.registration.expires_at).toBe('2025-08-13T04:00:00Z');
  });

  it('reads DENIC-style answers (Nserver with glue, Dnskey, Changed, Status)', () => {
    const p = parseWhois(denicAnswer('xn--bcher-kva.de'));
    expect(p.hasData).toBe(true);
    expect(p.registration.nameservers).toEqual(['ns1.denic.example', 'ns2.denic.example']);
    expect(p.registration.dnssec).toBe(true);
    expect(p.registration.updated_at).toBe('2018-03-12T20:44:25Z');
    expect(p.registration.status).toEqual(['connect']);
  });

  it('reads .ru-style lower-case keys', () => {
    const text = [
      'domain:        EXAMPLE.RU',
      'nserver:       ns1.example.ru.',
      'nserver:       ns2.example.ru.',
      'state:         REGISTERED, DELEGATED, VERIFIED',
      'org:           Example LLC',
      'registrar:     RU-CENTER-RU',
      'created:       2004-02-29T21:00:00Z',
      'paid-till:     2026-02-28T21:00:00Z',
      'source:        TCI',
    ].join('\n');
    const p = parseWhois(text);
    expect(p.registration.registered_at).toBe('2004-02-29T21:00:00Z');
    expect(p.registration.expires_at).toBe('2026-02-28T21:00:00Z');
    expect(p.registration.nameservers).toEqual(['ns1.example.ru', 'ns2.example.ru']);
    expect(p.registration.status).toEqual(['registered', 'delegated', 'verified']);
    expect(p.registration.registrant.organization).toBe('Example LLC');
    expect(p.registration.registrar.name).toBe('RU-CENTER-RU');
  });

  it('reads Nominet-style indented blocks', () => {
    const text = [
      '',
      '    Domain name:',
      '        example.co.uk',
      '',
      '    Registrant:',
      '        Example Ltd',
      '',
      '    Registrar:',
      '        Markmonitor Inc. t/a MarkMonitor Inc. [Tag = MARKMONITOR]',
      '        URL: http://www.markmonitor.com',
      '',
      '    Relevant dates:',
      '        Registered on: 14-Aug-1999',
      '        Expiry date:  14-Aug-2026',
      '        Last updated:  13-Jul-2024',
      '',
      '    Name servers:',
      '        ns1.example.net',
      '        ns2.example.net     192.0.2.1',
      '',
    ].join('\n');
    const p = parseWhois(text);
    expect(p.hasData).toBe(true);
    expect(p.registration.registrar.name).toBe('Markmonitor Inc. t/a MarkMonitor Inc.');
    expect(p.registration.registrar.url).toBe('http://www.markmonitor.com');
    expect(p.registration.registered_at).toBe('1999-08-14T00:00:00Z');
    expect(p.registration.expires_at).toBe('2026-08-14T00:00:00Z');
    expect(p.registration.updated_at).toBe('2024-07-13T00:00:00Z');
    expect(p.registration.nameservers).toEqual(['ns1.example.net', 'ns2.example.net']);
    expect(p.registration.registrant.name).toBe('Example Ltd');
  });

  it('turns privacy placeholders into redacted', () => {
    const p = parseWhois(['Domain Name: x.com', 'Creation Date: 2001-01-01', 'Registrant Name: REDACTED FOR PRIVACY', 'Registrant Organization: ACME', 'Registrant Country: DE', 'Registrant Email: Please query the RDDS service of the Registrar of Record'].join('\n'));
    expect(p.registration.registrant).toEqual({ name: null, organization: 'ACME', country: 'DE', email: null, redacted: true });
  });

  it.each([
    noMatchAnswer('nomatch.com'),
    'NOT FOUND\n',
    '%% NOT FOUND\n',
    'No Data Found\n',
    'Domain: frei.de\nStatus: free\n',
    'No entries found for the selected source(s).\n',
    'The queried object does not exist: DOMAIN NOT FOUND\n',
  ])('recognises "does not exist": %j', (text) => {
    const p = parseWhois(text);
    expect(p.notFound).toBe(true);
    expect(p.hasData).toBe(false);
  });

  it('does not call a registered domain "not found" because of footer text', () => {
    const p = parseWhois(verisignAnswer('example.com', null) + '\nIf the domain is NOT FOUND, no match is shown.\n');
    expect(p.notFound).toBe(false);
  });

  it('stays linear on hostile answers (256 KiB of blank lines, one huge line, colons)', () => {
    for (const text of ['\n'.repeat(256 * 1024), ' '.repeat(256 * 1024), `${' '.repeat(100_000)}:${' '.repeat(100_000)}`, 'a:'.repeat(100_000), '\r\n \t'.repeat(60_000)]) {
      expect(parseWhois(text).hasData).toBe(false);
    }
  });

  it('answers without data are neither found nor not found', () => {
    const p = parseWhois('% Rate limit exceeded. Try again later.\n');
    expect(p.notFound).toBe(false);
    expect(p.hasData).toBe(false);
  });

  it('never throws on random text and returns well-formed fields', () => {
    const line = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.tuple(fc.constantFrom('Creation Date', 'Name Server', 'Domain Status', 'refer', 'whois', 'Registrar WHOIS Server', 'DNSSEC', 'Registrant Country', 'nserver', 'Changed', '   Registrar'), fc.string({ maxLength: 60 })).map(([k, v]) => `${k}: ${v}`),
      fc.constantFrom('', '    Name servers:', '        ns1.example.net', 'No match for', 'Status: free'),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.constantFrom('\n', '\r\n', '\r'), (lines, eol) => {
        const p = parseWhois(lines.join(eol));
        for (const ns of p.registration.nameservers) expect(ns).toMatch(/^[a-z0-9_.-]+$/);
        for (const d of [p.registration.registered_at, p.registration.expires_at, p.registration.updated_at]) {
          if (d !== null) expect(d).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
        }
        if (p.referral !== null) expect(normaliseWhoisServer(p.referral)).toBe(p.referral);
        expect(p.notFound && p.hasData).toBe(false);
      }),
      { numRuns: 1000 },
    );
    fc.assert(fc.property(fc.string({ maxLength: 2000 }), (s) => typeof parseWhois(s).notFound === 'boolean'), { numRuns: 500 });
  });
});

describe('referrals', () => {
  it('reads IANA refer:/whois: lines and registrar servers', () => {
    expect(extractReferral('refer:        whois.verisign-grs.com\n\ndomain:       COM\n')).toBe('whois.verisign-grs.com');
    expect(extractReferral('domain: COM\nwhois:        whois.nic.example\n')).toBe('whois.nic.example');
    expect(extractReferral('Registrar WHOIS Server: whois://WHOIS.Registrar.Example/\n')).toBe('whois.registrar.example');
    expect(extractReferral('Registrar WHOIS Server: 127.0.0.1:4343\n')).toBe('127.0.0.1:4343');
    expect(extractReferral('Registrar WHOIS Server: whois.example.net:43\n')).toBe('whois.example.net');
  });

  it('ignores web URLs, placeholders and bare words', () => {
    expect(extractReferral('Registrar WHOIS Server: https://www.registrar.example/whois\n')).toBeNull();
    expect(extractReferral('Registrar WHOIS Server: N/A\n')).toBeNull();
    expect(extractReferral('refer: none\n')).toBeNull();
    expect(extractReferral('whois: host.example:99999\n')).toBeNull();
    expect(extractReferral('% This query returned 0 objects.\n')).toBeNull();
  });

  it('referral extraction never throws and returns null or a normalised server', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.constantFrom('refer', 'whois', 'Registrar WHOIS Server', 'ReferralServer'), (v, key) => {
        const r = extractReferral(`${key}: ${v}\n${v}`);
        return r === null || (normaliseWhoisServer(r) === r && /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(:\d{1,5})?$/.test(r));
      }),
      { numRuns: 1000 },
    );
    fc.assert(fc.property(fc.domain(), fc.integer({ min: 1, max: 65535 }), (d, port) => {
      const r = extractReferral(`refer: ${d}:${port}\n`);
      return r === (port === 43 ? d.toLowerCase() : `${d.toLowerCase()}:${port}`);
    }));
  });

  it('whoisFields keeps at most a bounded number of values per key', () => {
    const f = whoisFields(Array.from({ length: 1000 }, (_, i) => `Name Server: ns${i}.example.net`).join('\n'));
    expect(f.get('name server')!.length).toBe(64);
  });
});
