// Client address: socket peer, trusted-proxy X-Forwarded-For, IPv6 /64 subjects.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientAddress, normaliseAddress, parseForwardedEntry, subjectOf } from '../../../src/http/client-ip.js';
import { parseCidr, type Cidr } from '../../../src/platform/cidr.js';

const cidrs = (...items: string[]): Cidr[] => items.map((i) => parseCidr(i)!);
const PROXIES = cidrs('10.0.0.0/8', 'fd00::/8');

describe('normaliseAddress', () => {
  it('compresses the uncompressed IPv6 that uWS reports and unwraps v4-mapped addresses', () => {
    expect(normaliseAddress('0000:0000:0000:0000:0000:0000:0000:0001')).toBe('::1');
    expect(normaliseAddress('0000:0000:0000:0000:0000:ffff:7f00:0001')).toBe('127.0.0.1');
    expect(normaliseAddress('203.0.113.9')).toBe('203.0.113.9');
    expect(normaliseAddress('')).toBeNull();
    expect(normaliseAddress('garbage')).toBeNull();
  });
});

describe('parseForwardedEntry', () => {
  it('accepts addresses with or without ports and brackets', () => {
    expect(parseForwardedEntry(' 198.51.100.7 ')).toBe('198.51.100.7');
    expect(parseForwardedEntry('198.51.100.7:4711')).toBe('198.51.100.7');
    expect(parseForwardedEntry('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(parseForwardedEntry('[2001:db8::1]')).toBe('2001:db8::1');
    expect(parseForwardedEntry('2001:DB8:0:0::1')).toBe('2001:db8::1');
  });
  it('rejects everything else', () => {
    for (const bad of ['', 'unknown', 'fe80::1%eth0', '1.2.3', '01.2.3.4', '1.2.3.4:', 'example.com', '[::1', `${'1'.repeat(100)}`]) {
      expect(parseForwardedEntry(bad), bad).toBeNull();
    }
  });
  it('never throws on arbitrary input', () => {
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (s) => {
      const r = parseForwardedEntry(s);
      expect(r === null || typeof r === 'string').toBe(true);
    }), { numRuns: 500 });
  });
});

describe('clientAddress', () => {
  it('ignores X-Forwarded-For from an untrusted peer', () => {
    expect(clientAddress('203.0.113.5', '198.51.100.1', PROXIES)).toBe('203.0.113.5');
    expect(clientAddress('203.0.113.5', '198.51.100.1', [])).toBe('203.0.113.5');
  });
  it('takes the first untrusted hop from the right when the peer is a trusted proxy', () => {
    expect(clientAddress('10.0.0.2', '198.51.100.1', PROXIES)).toBe('198.51.100.1');
    // A client-supplied left part cannot win over what the proxies appended.
    expect(clientAddress('10.0.0.2', '1.1.1.1, 198.51.100.1, 10.0.0.9', PROXIES)).toBe('198.51.100.1');
    expect(clientAddress('0000:0000:0000:0000:0000:ffff:0a00:0002', '198.51.100.1', PROXIES)).toBe('198.51.100.1');
  });
  it('stops at a malformed hop: the trusted hop that reported it is the client', () => {
    expect(clientAddress('10.0.0.2', '198.51.100.1, garbage', PROXIES)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.2', '198.51.100.1, garbage, 10.0.0.7', PROXIES)).toBe('10.0.0.7');
    expect(clientAddress('10.0.0.2', '', PROXIES)).toBe('10.0.0.2');
  });
  it('falls back to the leftmost hop when every hop is trusted', () => {
    expect(clientAddress('10.0.0.2', '10.1.1.1, 10.0.0.3', PROXIES)).toBe('10.1.1.1');
  });
  it('a client behind a trusted proxy can only ever be an address it did not forge past the proxies', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.ipV4(), fc.string({ maxLength: 20 })), { maxLength: 6 }), fc.ipV4(), (forged, real) => {
        const header = [...forged, real, '10.0.0.9'].join(', ');
        const got = clientAddress('10.0.0.2', header, PROXIES);
        if (real.startsWith('10.')) return; // the real client is itself in a trusted range: nothing to assert
        expect(got).toBe(real);
      }),
      { numRuns: 300 },
    );
  });
});

describe('subjectOf', () => {
  it('gives one subject per IPv6 /64 and per IPv4 address', () => {
    expect(subjectOf('2001:db8:1:2::1', 1)).toEqual(subjectOf('2001:db8:1:2:ffff:ffff:ffff:ffff', 1));
    expect(subjectOf('2001:db8:1:2::1', 1)).not.toEqual(subjectOf('2001:db8:1:3::1', 1));
    expect(subjectOf('192.0.2.1', 1)).not.toEqual(subjectOf('192.0.2.2', 1));
    expect(subjectOf('192.0.2.1', 1)).not.toEqual(subjectOf('192.0.2.1', 2));
    expect(subjectOf('0.0.0.1', 1)).not.toEqual(subjectOf('::1', 1));
    expect(subjectOf(null, 1).k2).not.toBe(0);
  });
  it('is defined for every address', () => {
    fc.assert(fc.property(fc.oneof(fc.ipV4(), fc.ipV6().map((a) => normaliseAddress(a)!)), (a) => {
      const s = subjectOf(a, 2);
      expect(Number.isInteger(s.k0) && Number.isInteger(s.k1) && s.k2 !== 0).toBe(true);
    }), { numRuns: 300 });
  });
});
