import { describe, expect, it } from 'vitest';
import { ageRecords, cacheTtl } from '../../../../src/lookups/dns/cache-policy.js';
import type { DnsAnswer, DnsRecord } from '../../../../src/lookups/dns/types.js';

const a = (ttl: number): DnsRecord => ({ name: 'x.test', type: 'A', ttl, data: '192.0.2.1', address: '192.0.2.1' });
const soa = (ttl: number, minimum: number): DnsRecord => ({ name: 'test', type: 'SOA', ttl, data: '', minimum });
const ans = (p: Partial<DnsAnswer>): DnsAnswer => ({ rcode: 0, authenticated: false, truncated: false, answers: [], authority: [], ...p });

describe('cacheTtl', () => {
  it('is the smallest answer TTL, capped', () => {
    expect(cacheTtl(ans({ answers: [a(300), a(120), a(900)] }), 3600)).toBe(120);
    expect(cacheTtl(ans({ answers: [a(300)] }), 60)).toBe(60);
    expect(cacheTtl(ans({ answers: [a(0)] }), 60)).toBe(0);
    expect(cacheTtl(ans({ answers: [a(300)] }), 0)).toBe(0);
  });

  it('negative answers use min(SOA TTL, SOA minimum) (RFC 2308)', () => {
    expect(cacheTtl(ans({ rcode: 3, authority: [soa(3600, 300)] }), 3600)).toBe(300);
    expect(cacheTtl(ans({ rcode: 3, authority: [soa(30, 300)] }), 3600)).toBe(30);
    expect(cacheTtl(ans({ rcode: 0, authority: [soa(3600, 300)] }), 3600)).toBe(300);
    expect(cacheTtl(ans({ rcode: 0, authority: [soa(3600, 300)] }), 100)).toBe(100);
  });

  it('does not cache a negative answer without an SOA', () => {
    expect(cacheTtl(ans({ rcode: 3 }), 3600)).toBe(0);
  });

  it('never caches resolver errors or truncated answers', () => {
    expect(cacheTtl(ans({ rcode: 2, authority: [soa(3600, 300)] }), 3600)).toBeNull();
    expect(cacheTtl(ans({ rcode: 5 }), 3600)).toBeNull();
    expect(cacheTtl(ans({ truncated: true, answers: [a(5)] }), 3600)).toBeNull();
  });
});

describe('ageRecords', () => {
  it('counts TTLs down, never below zero, without touching the originals', () => {
    const recs = [a(300), a(5)];
    expect(ageRecords(recs, 10).map((r) => r.ttl)).toEqual([290, 0]);
    expect(recs.map((r) => r.ttl)).toEqual([300, 5]);
    expect(ageRecords(recs, 0).map((r) => r.ttl)).toEqual([300, 5]);
  });
});
