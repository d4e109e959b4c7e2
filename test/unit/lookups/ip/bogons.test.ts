import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { SPECIAL_PURPOSE, bogonReason, bogonReasonV4 } from '../../../../src/lookups/bogons.js';
import { ipv4, parseIp } from '../../../../src/lookups/ip-address.js';

const reason = (s: string) => bogonReason(parseIp(s)!);

describe('bogonReason', () => {
  it.each([
    ['0.1.2.3', 'this network (RFC 791)'],
    ['0.0.0.0', 'this host on this network (RFC 1122)'],
    ['10.0.0.1', 'private-use (RFC 1918)'],
    ['172.16.0.1', 'private-use (RFC 1918)'],
    ['172.31.255.255', 'private-use (RFC 1918)'],
    ['192.168.1.1', 'private-use (RFC 1918)'],
    ['100.64.0.1', 'shared address space, CGNAT (RFC 6598)'],
    ['100.127.255.255', 'shared address space, CGNAT (RFC 6598)'],
    ['127.0.0.1', 'loopback (RFC 1122)'],
    ['169.254.169.254', 'link-local (RFC 3927)'],
    ['192.0.0.5', 'IPv4 service continuity prefix, DS-Lite (RFC 7335)'],
    ['192.0.0.9', 'port control protocol anycast (RFC 7723)'],
    ['192.0.0.170', 'NAT64/DNS64 discovery (RFC 8880)'],
    ['192.0.0.171', 'NAT64/DNS64 discovery (RFC 8880)'],
    ['192.0.0.200', 'IETF protocol assignments (RFC 6890)'],
    ['192.0.2.1', 'documentation, TEST-NET-1 (RFC 5737)'],
    ['198.51.100.7', 'documentation, TEST-NET-2 (RFC 5737)'],
    ['203.0.113.9', 'documentation, TEST-NET-3 (RFC 5737)'],
    ['198.18.0.1', 'benchmarking (RFC 2544)'],
    ['198.19.255.255', 'benchmarking (RFC 2544)'],
    ['192.88.99.1', 'deprecated 6to4 relay anycast (RFC 7526)'],
    ['192.31.196.1', 'AS112-v4 (RFC 7535)'],
    ['192.175.48.6', 'direct delegation AS112 service (RFC 7534)'],
    ['224.0.0.1', 'multicast (RFC 5771)'],
    ['239.255.255.250', 'multicast (RFC 5771)'],
    ['240.0.0.1', 'reserved (RFC 1112)'],
    ['255.255.255.254', 'reserved (RFC 1112)'],
    ['255.255.255.255', 'limited broadcast (RFC 919)'],
    ['::', 'unspecified address (RFC 4291)'],
    ['::1', 'loopback (RFC 4291)'],
    ['::2', 'deprecated IPv4-compatible address (RFC 4291)'],
    ['::1:0:0:0', 'reserved by IETF (RFC 4291)'],
    ['::ffff:10.0.0.1', 'private-use (RFC 1918)'], // mapped → IPv4 → the IPv4 entry
    ['64:ff9b::8.8.8.8', 'IPv4-IPv6 translation (RFC 6052)'],
    ['64:ff9b:1::1', 'local-use IPv4-IPv6 translation (RFC 8215)'],
    ['100::1', 'discard-only (RFC 6666)'],
    ['100:0:0:1::1', 'reserved by IETF (RFC 4291)'],
    ['2001::1', 'Teredo (RFC 4380)'],
    ['2001:1::1', 'port control protocol anycast (RFC 7723)'],
    ['2001:1::4', 'IETF protocol assignments (RFC 2928)'],
    ['2001:2::5', 'benchmarking (RFC 5180)'],
    ['2001:2:1::5', 'IETF protocol assignments (RFC 2928)'],
    ['2001:4:112::1', 'AS112-v6 (RFC 7535)'],
    ['2001:10::1', 'deprecated ORCHID (RFC 4843)'],
    ['2001:20::1', 'ORCHIDv2 (RFC 7343)'],
    ['2001:db8::1', 'documentation (RFC 3849)'],
    ['2002:c000:204::1', '6to4 (RFC 3056)'],
    ['2620:4f:8000::1', 'direct delegation AS112 service (RFC 7534)'],
    ['3fff::1', 'documentation (RFC 9637)'],
    ['3fff:fff::1', 'documentation (RFC 9637)'],
    ['5f00::1', 'segment routing SIDs (RFC 9602)'],
    ['fc00::1', 'unique local (RFC 4193)'],
    ['fd12:3456::1', 'unique local (RFC 4193)'],
    ['fe80::1', 'link-local (RFC 4291)'],
    ['febf::1', 'link-local (RFC 4291)'],
    ['fec0::1', 'deprecated site-local (RFC 3879)'],
    ['ff02::1', 'multicast (RFC 4291)'],
    ['8000::1', 'reserved by IETF (RFC 4291)'],
    ['5f01::1', 'reserved by IETF (RFC 4291)'],
    ['2001:1ff::1', 'IETF protocol assignments (RFC 2928)'],
  ])('%s → %s', (ip, expected) => {
    expect(reason(ip)).toBe(expected);
  });

  it.each([
    '1.1.1.1', '8.8.8.8', '9.255.255.255', '11.0.0.0', '100.63.255.255', '100.128.0.0', '126.255.255.255', '128.0.0.0',
    '169.253.255.255', '172.15.255.255', '172.32.0.0', '192.0.1.1', '192.0.3.0', '192.167.255.255', '192.169.0.0',
    '198.17.255.255', '198.20.0.0', '223.255.255.255', '203.0.112.255',
    '2001:4860:4860::8888', '2606:4700:4700::1111', '2a00:1450::1', '2001:200::1', '2001:db9::1',
    '2003::1', '2620:4f:8001::1', '3ffe::1', '3fff:1000::1', '2c0f:f000::1', '2001:400::1',
  ])('%s is public', (ip) => {
    expect(reason(ip)).toBeNull();
  });

  it('agrees with ipaddr.js range() for every class both know (most specific wins where ours is finer)', () => {
    // ipaddr.js names: what each of its ranges must map to in our table (null = public for ipaddr too).
    const v4Expect: Record<string, RegExp | null> = {
      unicast: null,
      unspecified: /this network|this host/,
      broadcast: /limited broadcast/,
      multicast: /multicast/,
      linkLocal: /link-local/,
      loopback: /loopback/,
      carrierGradeNat: /CGNAT/,
      private: /private-use/,
      reserved: /reserved|IETF|documentation|benchmarking|6to4|AS112|service continuity|dummy|anycast|NAT64|multicast tunneling|this network/,
      as112: /AS112/,
      amt: /multicast tunneling/,
    };
    fc.assert(
      fc.property(fc.ipV4(), (s) => {
        const kind = ipaddr.IPv4.parse(s).range();
        const ours = reason(s);
        const want = v4Expect[kind];
        if (want === undefined) return;
        if (want === null) expect(ours, s).toBeNull();
        else expect(ours ?? '', `${s} ${kind}`).toMatch(want);
      }),
      { numRuns: 20000 },
    );
  });

  it('every table entry classifies its own first and last address, and none has host bits set', () => {
    for (const [cidr, why] of SPECIAL_PURPOSE) {
      const [base] = cidr.split('/');
      const ip = parseIp(base!)!;
      // The most specific entry wins, so the network address may carry a nested entry's reason;
      // but it is always a bogon.
      expect(bogonReason(ip), cidr).not.toBeNull();
      if (!SPECIAL_PURPOSE.some(([c]) => c !== cidr && c.startsWith(base!))) expect(bogonReason(ip), cidr).toBe(why);
    }
  });

  it('bogonReasonV4 (the by-value hot path) agrees with bogonReason on every IPv4 address, table edges included', () => {
    const edges: number[] = [];
    for (const [cidr] of SPECIAL_PURPOSE) {
      const [base, bits] = cidr.split('/');
      const ip = parseIp(base!)!;
      if (ip.version !== 4 || base!.includes(':')) continue;
      const first = ip.words[0];
      const last = first + 2 ** (32 - Number(bits)) - 1;
      edges.push(first, last, first - 1, last + 1);
    }
    for (const v of edges.filter((v) => v >= 0 && v <= 0xffffffff)) expect(bogonReasonV4(v), String(v)).toBe(bogonReason(ipv4(v)));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (v) => {
        expect(bogonReasonV4(v)).toBe(bogonReason(ipv4(v)));
      }),
      { numRuns: 20000 },
    );
  });
});
