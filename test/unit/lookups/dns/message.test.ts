import { describe, expect, it } from 'vitest';
import dns2 from 'dns2';
import { decodeResponse, encodeQuery, isTruncated, messageId, InvalidResponseError, type Question } from '../../../../src/lookups/dns/message.js';
import { LONG_TXT, ZONE, answer } from '../../../helpers/dns-servers.js';

type Wire = Parameters<typeof answer>[0];
const Packet = dns2.Packet as unknown as { parse(b: Buffer): Wire };

function roundTrip(q: Question, mutate?: (p: Wire) => void, opts?: { authenticated?: boolean }) {
  const id = 0x1234;
  const query = encodeQuery(q, id);
  const res = answer(Packet.parse(query), opts);
  mutate?.(res);
  return decodeResponse(res.toBuffer(), q, id);
}

describe('encodeQuery', () => {
  it('asks recursively with EDNS0 and AD=1, the given id and the question', () => {
    const buf = encodeQuery({ name: 'xn--bcher-kva.example', type: 'CAA' }, 4242);
    expect(messageId(buf)).toBe(4242);
    const p = Packet.parse(buf) as unknown as { header: Record<string, number>; questions: { name: string; type: number; class: number }[]; additionals: { type: number; class: number }[] };
    expect(p.header['rd']).toBe(1);
    expect(p.header['ad']).toBe(1);
    expect(p.header['qr']).toBe(0);
    expect(p.questions).toEqual([{ name: 'xn--bcher-kva.example', type: 257, class: 1 }]);
    expect(p.additionals[0]).toMatchObject({ type: 41, class: 1232 });
  });
});

describe('decodeResponse: every type, presentation and parsed fields', () => {
  it('A (two records, in answer order)', () => {
    const a = roundTrip({ name: ZONE, type: 'A' });
    expect(a.rcode).toBe(0);
    expect(a.answers).toEqual([
      { name: ZONE, type: 'A', ttl: 300, data: '192.0.2.1', address: '192.0.2.1' },
      { name: ZONE, type: 'A', ttl: 120, data: '192.0.2.2', address: '192.0.2.2' },
    ]);
  });

  it('AAAA', () => {
    expect(roundTrip({ name: ZONE, type: 'AAAA' }).answers).toEqual([{ name: ZONE, type: 'AAAA', ttl: 300, data: '2001:db8::1', address: '2001:db8::1' }]);
  });

  it('MX', () => {
    expect(roundTrip({ name: ZONE, type: 'MX' }).answers).toEqual([
      { name: ZONE, type: 'MX', ttl: 1800, data: `10 mx1.${ZONE}.`, priority: 10, exchange: `mx1.${ZONE}` },
      { name: ZONE, type: 'MX', ttl: 1800, data: `20 mx2.${ZONE}.`, priority: 20, exchange: `mx2.${ZONE}` },
    ]);
  });

  it('TXT: single, multi-string with quotes, and a 300-octet value split in 255 + 45', () => {
    const txt = roundTrip({ name: ZONE, type: 'TXT' }).answers;
    expect(txt[0]).toEqual({ name: ZONE, type: 'TXT', ttl: 600, data: '"v=spf1 -all"', text: 'v=spf1 -all', strings: ['v=spf1 -all'] });
    expect(txt[1]).toMatchObject({ data: '"first part " "second \\"quoted\\" part"', text: 'first part second "quoted" part', strings: ['first part ', 'second "quoted" part'] });
    expect(txt[2]!['text']).toBe(LONG_TXT);
    expect((txt[2]!['strings'] as string[]).map((s) => s.length)).toEqual([255, 45]);
    expect(txt[2]!.data).toBe(`"${LONG_TXT.slice(0, 255)}" "${LONG_TXT.slice(255)}"`);
  });

  it('NS', () => {
    expect(roundTrip({ name: ZONE, type: 'NS' }).answers.map((r) => [r.data, r['host']])).toEqual([[`ns1.${ZONE}.`, `ns1.${ZONE}`], [`ns2.${ZONE}.`, `ns2.${ZONE}`]]);
  });

  it('SOA', () => {
    expect(roundTrip({ name: ZONE, type: 'SOA' }).answers).toEqual([{
      name: ZONE, type: 'SOA', ttl: 3600,
      data: `ns1.${ZONE}. hostmaster.${ZONE}. 2026112201 7200 3600 1209600 300`,
      mname: `ns1.${ZONE}`, rname: `hostmaster.${ZONE}`, serial: 2026112201, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300,
    }]);
  });

  it('CAA issue and critical iodef', () => {
    expect(roundTrip({ name: ZONE, type: 'CAA' }).answers).toEqual([
      { name: ZONE, type: 'CAA', ttl: 3600, data: '0 issue "letsencrypt.org"', flags: 0, tag: 'issue', value: 'letsencrypt.org' },
      { name: ZONE, type: 'CAA', ttl: 3600, data: `128 iodef "mailto:security@${ZONE}"`, flags: 128, tag: 'iodef', value: `mailto:security@${ZONE}` },
    ]);
  });

  it('SRV', () => {
    expect(roundTrip({ name: `_sip._tcp.${ZONE}`, type: 'SRV' }).answers[0]).toEqual({
      name: `_sip._tcp.${ZONE}`, type: 'SRV', ttl: 300, data: `10 5 5060 sip.${ZONE}.`, priority: 10, weight: 5, port: 5060, target: `sip.${ZONE}`,
    });
  });

  it('a CNAME chain comes first, then the target records', () => {
    const a = roundTrip({ name: `www.${ZONE}`, type: 'A' });
    expect(a.answers.map((r) => [r.name, r.type, r.data])).toEqual([
      [`www.${ZONE}`, 'CNAME', `web.${ZONE}.`],
      [`web.${ZONE}`, 'CNAME', `host.${ZONE}.`],
      [`host.${ZONE}`, 'A', '192.0.2.10'],
    ]);
    expect(a.answers[0]!['target']).toBe(`web.${ZONE}`);
  });

  it('NXDOMAIN carries the SOA in authority', () => {
    const a = roundTrip({ name: `nope.${ZONE}`, type: 'A' });
    expect(a.rcode).toBe(3);
    expect(a.answers).toEqual([]);
    expect(a.authority.map((r) => r.type)).toEqual(['SOA']);
  });

  it('reports the AD bit', () => {
    expect(roundTrip({ name: ZONE, type: 'A' }).authenticated).toBe(false);
    expect(roundTrip({ name: ZONE, type: 'A' }, undefined, { authenticated: true }).authenticated).toBe(true);
  });

  it('accepts a 0x20-recased question echo', () => {
    expect(roundTrip({ name: ZONE, type: 'A' }, (p) => { p.questions[0]!.name = ZONE.toUpperCase(); }).answers).toHaveLength(2);
  });
});

describe('decodeResponse rejects garbage', () => {
  const q: Question = { name: ZONE, type: 'A' };
  const good = (): Buffer => answer(Packet.parse(encodeQuery(q, 7))).toBuffer();

  it.each([
    ['too short', () => Buffer.from([0, 7, 0x81])],
    ['wrong id', () => { const b = Buffer.from(good()); b.writeUInt16BE(8, 0); return b; }],
    ['a query, not a response', () => encodeQuery(q, 7)],
    ['cut short', () => good().subarray(0, good().length - 5)],
    ['a different question', () => { const p = answer(Packet.parse(encodeQuery({ name: `www.${ZONE}`, type: 'A' }, 7))); return p.toBuffer(); }],
    ['a different type', () => answer(Packet.parse(encodeQuery({ name: ZONE, type: 'MX' }, 7))).toBuffer()],
    ['random bytes after the id', () => Buffer.concat([Buffer.from([0, 7, 0x81, 0x80, 0, 1, 0, 3, 0, 0, 0, 0]), Buffer.from('garbage!')])],
    ['NOERROR without a question', () => { const p = answer(Packet.parse(encodeQuery(q, 7))); p.questions = []; return p.toBuffer(); }],
    ['an A record of 3 octets', () => { const p = answer(Packet.parse(encodeQuery(q, 7))); p.answers = [{ name: ZONE, type: 1, class: 1, ttl: 5, address: '1.2.3' }]; return p.toBuffer(); }],
  ])('%s', (_why, make) => {
    expect(() => decodeResponse(make(), q, 7)).toThrow(InvalidResponseError);
  });

  it('accepts a REFUSED answer without a question', () => {
    const p = answer(Packet.parse(encodeQuery(q, 7)));
    p.questions = [];
    p.answers = [];
    p.header['rcode'] = 5;
    expect(decodeResponse(p.toBuffer(), q, 7).rcode).toBe(5);
  });

  it('sees the TC bit', () => {
    const b = Buffer.from(good());
    expect(isTruncated(b)).toBe(false);
    b[2] = b[2]! | 0x02;
    expect(isTruncated(b)).toBe(true);
  });

  it('never throws anything but InvalidResponseError on random bytes', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
      const b = Buffer.from(bytes);
      if (b.length >= 2) b.writeUInt16BE(7, 0);
      try {
        decodeResponse(b, q, 7);
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidResponseError);
      }
    }), { numRuns: 500 });
  });
});
