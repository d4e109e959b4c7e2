import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LookupError } from '../../../../src/http/errors.js';
import { parseSslTarget, targetLabel } from '../../../../src/lookups/ssl/target.js';

function rejects(input: string): LookupError {
  try {
    parseSslTarget(input);
  } catch (e) {
    expect(e).toBeInstanceOf(LookupError);
    expect((e as LookupError).code).toBe('invalid_domain');
    return e as LookupError;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('parseSslTarget', () => {
  it('accepts names, with and without a port', () => {
    expect(parseSslTarget('example.com')).toEqual({ host: 'example.com', unicode: 'example.com', port: 443, isIp: false });
    expect(parseSslTarget('Example.COM:8443')).toEqual({ host: 'example.com', unicode: 'example.com', port: 8443, isIp: false });
    expect(parseSslTarget('example.com.')).toMatchObject({ host: 'example.com', port: 443 });
    expect(parseSslTarget('bücher.de:1')).toEqual({ host: 'xn--bcher-kva.de', unicode: 'bücher.de', port: 1, isIp: false });
    expect(parseSslTarget('localhost:65535')).toMatchObject({ host: 'localhost', port: 65535 });
  });

  it('accepts IP literals; IPv6 bare or in brackets, canonicalised', () => {
    expect(parseSslTarget('127.0.0.1')).toEqual({ host: '127.0.0.1', unicode: '127.0.0.1', port: 443, isIp: true });
    expect(parseSslTarget('127.0.0.1:8443')).toMatchObject({ host: '127.0.0.1', port: 8443, isIp: true });
    expect(parseSslTarget('[::1]')).toMatchObject({ host: '::1', port: 443, isIp: true });
    expect(parseSslTarget('[2001:DB8:0:0::1]:10443')).toMatchObject({ host: '2001:db8::1', port: 10443, isIp: true });
    expect(parseSslTarget('2001:db8::1')).toMatchObject({ host: '2001:db8::1', port: 443, isIp: true });
    expect(parseSslTarget('[::ffff:10.0.0.1]')).toMatchObject({ host: '10.0.0.1', isIp: true });
  });

  it('rejects malformed input with a message naming the problem and the accepted form', () => {
    expect(rejects('').message).toMatch(/is empty/);
    expect(rejects(' example.com').message).toMatch(/whitespace/);
    expect(rejects('example.com ').message).toMatch(/whitespace/);
    expect(rejects('example.com:0').message).toMatch(/port/);
    expect(rejects('example.com:65536').message).toMatch(/above 65535/);
    expect(rejects('example.com:0443').message).toMatch(/leading zeros/);
    expect(rejects('example.com:').message).toMatch(/port/);
    expect(rejects('example.com:https').message).toMatch(/port/);
    expect(rejects(':443').message).toMatch(/no host/);
    expect(rejects('[::1').message).toMatch(/without closing/);
    expect(rejects('[::1]x').message).toMatch(/after "\]"/);
    expect(rejects('[example.com]:443').message).toMatch(/not an IPv6/);
    expect(rejects('[1.2.3.4]').message).toMatch(/not an IPv6/);
    expect(rejects('fe80::1%eth0').message).toMatch(/not a valid IP/);
    expect(rejects('1.2.3').message).toMatch(/numeric/);
    expect(rejects('010.1.1.1').message).toMatch(/numeric/);
    expect(rejects('0x7f').message).toMatch(/numeric/);
    expect(rejects('exa mple.com').message).toMatch(/expected/);
    expect(rejects('a..b').message).toMatch(/empty label/);
    expect(rejects('https://example.com').message).toMatch(/expected/);
    expect(rejects('x'.repeat(400)).message).toMatch(/too long/);
  });

  it('targetLabel brackets IPv6', () => {
    expect(targetLabel(parseSslTarget('[::1]:8443'))).toBe('[::1]:8443');
    expect(targetLabel(parseSslTarget('example.com'))).toBe('example.com:443');
  });
});

describe('parseSslTarget properties', () => {
  const port = fc.integer({ min: 1, max: 65535 });

  it('domain[:port] round-trips to the lower-case name and the port', () => {
    fc.assert(
      fc.property(fc.domain(), fc.option(port), (d, p) => {
        const t = parseSslTarget(p === null ? d : `${d}:${p}`);
        expect(t.host).toBe(d.toLowerCase());
        expect(t.port).toBe(p ?? 443);
        expect(t.isIp).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('IPv4 and bracketed IPv6 literals are accepted with any port', () => {
    fc.assert(
      fc.property(fc.ipV4(), port, (ip, p) => {
        expect(parseSslTarget(`${ip}:${p}`)).toEqual({ host: ip, unicode: ip, port: p, isIp: true });
      }),
    );
    fc.assert(
      fc.property(fc.ipV6(), port, (ip, p) => {
        const t = parseSslTarget(`[${ip}]:${p}`);
        expect(t.isIp).toBe(true);
        expect(t.port).toBe(p);
        expect(parseSslTarget(targetLabel(t))).toEqual(t);
      }),
    );
  });

  it('never throws anything but invalid_domain, and accepted output is canonical', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        let t;
        try {
          t = parseSslTarget(s);
        } catch (e) {
          expect(e).toBeInstanceOf(LookupError);
          expect((e as LookupError).code).toBe('invalid_domain');
          return;
        }
        expect(t.port).toBeGreaterThanOrEqual(1);
        expect(t.port).toBeLessThanOrEqual(65535);
        expect(parseSslTarget(targetLabel(t))).toEqual(t);
      }),
      { numRuns: 1000 },
    );
  });

  it('surrounding whitespace is always rejected', () => {
    fc.assert(
      fc.property(fc.domain(), fc.constantFrom(' ', '\t', '\n', '\u00a0'), fc.boolean(), (d, ws, before) => {
        rejects(before ? ws + d : d + ws);
      }),
    );
  });
});
