import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CacheFormatError, parseExportLine, toExportLine } from '../../../../src/lookups/whois/cache-format.js';
import type { FetchedRecord } from '../../../../src/lookups/whois/types.js';

const sampleRecord = (over: Partial<FetchedRecord> = {}): FetchedRecord => ({
  domain: 'example.com',
  unicode_domain: 'example.com',
  source_type: 'rdap',
  registration: {
    registrar: { name: 'R', iana_id: '1', url: null, abuse_email: null, abuse_phone: null },
    registered_at: '1995-08-14T04:00:00Z',
    expires_at: null,
    updated_at: null,
    status: ['active'],
    nameservers: ['a.example.net'],
    dnssec: null,
    registrant: { name: null, organization: 'Org', country: 'US', email: null, redacted: true },
  },
  servers: { rdap: 'http://127.0.0.1:1/', whois: null, related: null },
  raw: { objectClassName: 'domain', ldhName: 'example.com' },
  raw_related: null,
  fetched_at_ms: Date.parse('2026-11-20T02:00:00.123Z'),
  bootstrap: { dataset: 'rdap-dns 2026-11-20T20:00:02Z', built_at: '2026-11-20T20:00:02Z' },
  ...over,
});

describe('whois-cache export format', () => {
  it('round-trips a record exactly', () => {
    const r = sampleRecord();
    expect(parseExportLine(toExportLine(r))).toEqual(r);
    const nx = sampleRecord({ domain: 'xn--bcher-kva.de', unicode_domain: 'bücher.de', source_type: 'whois', registration: null, raw: 'No match', bootstrap: null });
    expect(parseExportLine(toExportLine(nx))).toEqual(nx);
  });

  it('rejects malformed lines with a reason', () => {
    const good = JSON.parse(toExportLine(sampleRecord())) as Record<string, unknown>;
    const bad = (patch: Record<string, unknown>): string => JSON.stringify({ ...good, ...patch });
    expect(() => parseExportLine('nope')).toThrow(CacheFormatError);
    expect(() => parseExportLine(bad({ format: 'other' }))).toThrow(/format/);
    expect(() => parseExportLine(bad({ domain: 'EXAMPLE.com' }))).toThrow(/ASCII/);
    expect(() => parseExportLine(bad({ domain: 'bad domain' }))).toThrow(/domain/);
    expect(() => parseExportLine(bad({ source_type: 'http' }))).toThrow(/source_type/);
    expect(() => parseExportLine(bad({ fetched_at: 'yesterday' }))).toThrow(/fetched_at/);
    expect(() => parseExportLine(bad({ registration: { registrar: {} } }))).toThrow(CacheFormatError);
  });

  it('never throws anything but CacheFormatError', () => {
    const good = JSON.parse(toExportLine(sampleRecord())) as Record<string, unknown>;
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), fc.constantFrom(...Object.keys(good)), (s, v, key) => {
        for (const line of [s, JSON.stringify({ ...good, [key]: v })]) {
          try {
            parseExportLine(line);
          } catch (e) {
            if (!(e instanceof CacheFormatError)) throw e;
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
