import { describe, expect, it } from 'vitest';
import { MalformedRecordError, absolute, hostOf, quoteString, toApiRecord, typeName } from '../../../../src/lookups/dns/records.js';

const base = { name: 'example.test', class: 1, ttl: 60 };

describe('presentation format', () => {
  it('quotes character-strings as dig does', () => {
    expect(quoteString('plain')).toBe('"plain"');
    expect(quoteString('a "b" \\c')).toBe('"a \\"b\\" \\\\c"');
    expect(quoteString('tab\there')).toBe('"tab\\009here"');
    expect(quoteString('ü')).toBe('"\\195\\188"');
    expect(quoteString('')).toBe('""');
  });

  it('escapes special and non-printable octets in names', () => {
    expect(hostOf('a b.example')).toBe('a\\032b.example');
    expect(hostOf('semi;colon.example')).toBe('semi\\;colon.example');
    expect(hostOf('\u00ff.example')).toBe('\\255.example');
    expect(hostOf('')).toBe('.');
    expect(absolute('')).toBe('.');
    expect(absolute('mx.example')).toBe('mx.example.');
  });

  it('formats a null MX (RFC 7505)', () => {
    expect(toApiRecord({ ...base, type: 15, priority: 0, exchange: '' })).toMatchObject({ data: '0 .', exchange: '.' });
  });

  it('formats CAA values with quotes escaped', () => {
    expect(toApiRecord({ ...base, type: 257, flags: 0, tag: 'issuewild', value: 'ca.example; "x"' }).data).toBe('0 issuewild "ca.example; \\"x\\""');
  });

  it('shows unknown types in RFC 3597 generic form', () => {
    expect(toApiRecord({ ...base, type: 39, data: Buffer.from([1, 2, 255]) })).toEqual({ name: 'example.test', type: 'DNAME', ttl: 60, data: '\\# 3 0102FF' });
    expect(toApiRecord({ ...base, type: 4242, data: Buffer.alloc(0) }).data).toBe('\\# 0');
    expect(typeName(4242)).toBe('TYPE4242');
  });

  it.each([
    [{ ...base, type: 1, address: '300.1.1.1' }],
    [{ ...base, type: 28, address: '192.0.2.1' }],
    [{ ...base, type: 15, priority: 70000, exchange: 'mx' }],
    [{ ...base, type: 15, priority: 1 }],
    [{ ...base, type: 16, data: 'not-an-array' }],
    [{ ...base, type: 257, flags: 0, tag: '', value: 'x' }],
    [{ ...base, type: 6, primary: 'a', admin: 'b', serial: -1, refresh: 1, retry: 1, expiration: 1, minimum: 1 }],
    [{ ...base, ttl: -5, type: 1, address: '192.0.2.1' }],
  ])('refuses malformed RDATA %#', (r) => {
    expect(() => toApiRecord(r)).toThrow(MalformedRecordError);
  });
});
