import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatAuthority, parseHostPort } from '../../../src/lookups/host-port.js';
import { LookupError } from '../../../src/http/errors.js';

function codeOf(input: string): string | null {
  try {
    parseHostPort(input);
    return null;
  } catch (e) {
    if (e instanceof LookupError) return `${e.status} ${e.code}`;
    throw e;
  }
}

describe('parseHostPort: accepted forms', () => {
  it.each([
    ['example.com', { kind: 'name', host: 'example.com', unicode: 'example.com', port: null }],
    ['Example.COM:8443', { kind: 'name', host: 'example.com', unicode: 'example.com', port: 8443 }],
    ['example.com.', { kind: 'name', host: 'example.com', unicode: 'example.com', port: null }],
    ['bücher.de', { kind: 'name', host: 'xn--bcher-kva.de', unicode: 'bücher.de', port: null }],
    ['bücher.de:80', { kind: 'name', host: 'xn--bcher-kva.de', unicode: 'bücher.de', port: 80 }],
    ['localhost', { kind: 'name', host: 'localhost', unicode: 'localhost', port: null }],
    ['93.184.215.14', { kind: 'ipv4', host: '93.184.215.14', unicode: '93.184.215.14', port: null }],
    ['10.0.0.1:65535', { kind: 'ipv4', host: '10.0.0.1', unicode: '10.0.0.1', port: 65535 }],
    ['::1', { kind: 'ipv6', host: '::1', unicode: '::1', port: null }],
    ['[::1]', { kind: 'ipv6', host: '::1', unicode: '::1', port: null }],
    ['[::1]:8080', { kind: 'ipv6', host: '::1', unicode: '::1', port: 8080 }],
    ['2001:DB8:0:0:0:0:0:1', { kind: 'ipv6', host: '2001:db8::1', unicode: '2001:db8::1', port: null }],
    ['[2001:db8::1]:1', { kind: 'ipv6', host: '2001:db8::1', unicode: '2001:db8::1', port: 1 }],
    ['::ffff:127.0.0.1', { kind: 'ipv4', host: '127.0.0.1', unicode: '127.0.0.1', port: null }],
    ['[::ffff:7f00:1]:80', { kind: 'ipv4', host: '127.0.0.1', unicode: '127.0.0.1', port: 80 }],
  ])('%s', (input, expected) => {
    expect(parseHostPort(input)).toEqual(expected);
  });
});

describe('parseHostPort: rejected forms', () => {
  it.each([
    '', ' example.com', 'example.com ', 'exa mple.com', 'example.com\n',
    'https://example.com', 'example.com/path', 'user@example.com', 'example.com?x', 'example.com#x',
    'example.com:', 'example.com:0', 'example.com:65536', 'example.com:080', 'example.com:http', 'example.com:-1',
    ':80', '1.2.3', '1.2.3.4.5', '010.1.1.1', '256.1.1.1', '127.1', '0x7f.0.0.1', 'example.123', 'a..b', '-a.com',
    '2001:db8::1:80:x', '2001:db8::g', '[2001:db8::1', '2001:db8::1]', '[example.com]:80', '[1.2.3.4]:80',
    '[::1]80', '[::1]:', '[::1]:99999', 'fe80::1%eth0', '[fe80::1%25eth0]:80', '1.2.3.4:80:90',
    'a'.repeat(64) + '.com', 'x'.repeat(400),
  ])('%j → 400 invalid_host', (input) => {
    expect(codeOf(input)).toBe('400 invalid_host');
  });

  it('says what was wrong and what is accepted, with the input quoted', () => {
    expect(() => parseHostPort('example.com:99999')).toThrow(/"example\.com:99999".*port.*expected a host name/);
  });

  it('can report under invalid_domain for the ssl lookup', () => {
    expect(() => parseHostPort('bad host', { code: 'invalid_domain' })).toThrow(expect.objectContaining({ code: 'invalid_domain', status: 400 }));
    expect(() => parseHostPort('-bad-.com', { code: 'invalid_domain' })).toThrow(expect.objectContaining({ code: 'invalid_domain' }));
  });
});

describe('formatAuthority', () => {
  it('brackets IPv6 and appends a port only when given', () => {
    expect(formatAuthority({ kind: 'ipv6', host: '::1' }, 8080)).toBe('[::1]:8080');
    expect(formatAuthority({ kind: 'ipv6', host: '::1' }, null)).toBe('[::1]');
    expect(formatAuthority({ kind: 'name', host: 'example.com' }, 443)).toBe('example.com:443');
    expect(formatAuthority({ kind: 'ipv4', host: '1.2.3.4' }, null)).toBe('1.2.3.4');
  });
});

describe('parseHostPort: properties', () => {
  it('any string either parses or is a 400 invalid_host, never anything else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: fc.constantFrom(...'[]:.%0123456789abcdefx-/ ') })), (s) => {
        const c = codeOf(s);
        expect(c === null || c === '400 invalid_host').toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('every notation of the same IPv6 address, with or without a port, agrees', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: null }), (addr, port) => {
        const expanded = expandV6(addr);
        const forms = [`[${addr}]`, `[${addr.toUpperCase()}]`, `[${expanded}]`];
        if (port === null) forms.push(addr, expanded);
        const parsed = forms.map((f) => parseHostPort(port === null ? f : `${f}:${port}`));
        for (const p of parsed) expect(p).toEqual(parsed[0]);
        expect(parsed[0]!.port).toBe(port);
      }),
      { numRuns: 500 },
    );
  });

  it('IPv4 addresses round-trip, also as IPv4-mapped IPv6', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: null }), (addr, port) => {
        const suffix = port === null ? '' : `:${port}`;
        const direct = parseHostPort(`${addr}${suffix}`);
        expect(direct).toEqual({ kind: 'ipv4', host: addr, unicode: addr, port });
        expect(parseHostPort(`[::ffff:${addr}]${suffix}`)).toEqual(direct);
        expect(formatAuthority(direct, direct.port)).toBe(`${addr}${suffix}`);
      }),
      { numRuns: 500 },
    );
  });

  it('host names are case-insensitive and keep their port', () => {
    fc.assert(
      fc.property(fc.domain(), fc.integer({ min: 1, max: 65535 }), (name, port) => {
        let p;
        try {
          p = parseHostPort(`${name}:${port}`);
        } catch (e) {
          // fc.domain() can produce a numeric last label, which resolvers read as IPv4: refused by design.
          expect(/\.[0-9]+$/.test(name)).toBe(true);
          expect((e as LookupError).code).toBe('invalid_host');
          return;
        }
        expect(p).toEqual(parseHostPort(`${name.toUpperCase()}:${port}`));
        expect(p.kind).toBe('name');
        expect(p.port).toBe(port);
        expect(formatAuthority(p, port)).toBe(`${name.toLowerCase()}:${port}`);
      }),
      { numRuns: 500 },
    );
  });
});

// Writes an IPv6 address with all eight groups (an embedded dotted quad stays as it is).
function expandV6(addr: string): string {
  const [head, tail] = addr.split('::') as [string, string | undefined];
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const h = groups(head);
  if (tail === undefined) return h.map((g) => (g.includes('.') ? g : g.padStart(4, '0'))).join(':');
  const t = groups(tail);
  const width = (gs: string[]): number => gs.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const zeros = Array(8 - width(h) - width(t)).fill('0000');
  return [...h, ...zeros, ...t].map((g) => (g.includes('.') ? g : g.padStart(4, '0'))).join(':');
}
