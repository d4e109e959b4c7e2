// The WHOIS chain against real loopback TCP servers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WhoisClient, parseServerAddress, queryWhoisServer } from '../../../../src/lookups/whois/whois-client.js';
import { startUpstreams, startWhoisServer, type Upstreams } from '../../../helpers/rdap-whois-servers.js';

let up: Upstreams;
let client: WhoisClient;
const TIMEOUT = 400;

beforeAll(async () => {
  up = await startUpstreams(fs.mkdtempSync(path.join(os.tmpdir(), 'whois-client-')));
  client = new WhoisClient({ root: up.root.address, timeoutMs: TIMEOUT, maxBytes: 256 * 1024 });
});
afterAll(async () => up.close());

describe('WhoisClient', () => {
  it('walks root → registry → registrar and merges the answers', async () => {
    const r = await client.lookup('chain.net', 'net');
    expect(r.kind).toBe('answer');
    if (r.kind !== 'answer') return;
    expect(r.registry.server).toBe(up.registry.address);
    expect(r.registrar?.server).toBe(up.registrar.address);
    expect(r.registration?.registered_at).toBe('1995-08-14T04:00:00Z');
    expect(r.registration?.registrant).toEqual({ name: 'Jane Doe', organization: 'Example Org', country: 'US', email: 'jane@example.org', redacted: false });
    expect(up.root.queries).toContain('net');
    expect(up.registry.queries).toContain('chain.net');
  });

  it('reports "does not exist"', async () => {
    const r = await client.lookup('nomatch.net', 'net');
    expect(r).toMatchObject({ kind: 'answer', notFound: true, registration: null });
  });

  it('says unsupported when the root names no server', async () => {
    expect(await client.lookup('example.zz', 'zz')).toEqual({ kind: 'unsupported', root: up.root.address });
  });

  it('stops at a referral loop with data: each server asked once', async () => {
    const before = [up.loopA.queries.length, up.loopB.queries.length];
    const r = await client.lookup('data.loop', 'loop');
    expect(r.kind).toBe('answer');
    expect(up.loopA.queries.length - before[0]!).toBe(1);
    expect(up.loopB.queries.length - before[1]!).toBe(1);
  });

  it('a loop of pure referrals is an upstream error, bounded to 3 hops', async () => {
    const before = [up.loopA.queries.length, up.loopB.queries.length];
    await expect(client.lookup('pure.loop', 'loop')).rejects.toMatchObject({ code: 'upstream_error' });
    expect(up.loopA.queries.length - before[0]! + (up.loopB.queries.length - before[1]!)).toBe(2);
  });

  it('cuts off a server that never closes, keeping what it sent', async () => {
    const r = await client.lookup('open.hang', 'hang');
    expect(r.kind === 'answer' && r.registry.answer.cutOff).toBe(true);
    expect(r.kind === 'answer' && r.registration?.registered_at).toBe('1995-08-14T04:00:00Z');
  });

  it('times out on a server that never answers', async () => {
    await expect(client.lookup('silent.hang', 'hang')).rejects.toMatchObject({ code: 'upstream_timeout' });
  });

  it('caps a huge answer and still parses its head', async () => {
    const r = await client.lookup('huge.net', 'net');
    expect(r.kind).toBe('answer');
    if (r.kind !== 'answer') return;
    expect(r.registry.answer.truncated).toBe(true);
    expect(Buffer.byteLength(r.registry.answer.text, 'latin1')).toBeLessThanOrEqual(256 * 1024);
    expect(r.registration?.nameservers).toEqual(['a.iana-servers.net', 'b.iana-servers.net']);
  });

  it('maps a refused connection to upstream_error', async () => {
    const dead = new WhoisClient({ root: '127.0.0.1:1', timeoutMs: TIMEOUT, maxBytes: 1024 });
    await expect(dead.lookup('example.com', 'com')).rejects.toMatchObject({ code: 'upstream_error' });
  });

  it('a registrar that resets the connection leaves the registry answer standing', async () => {
    up.registrar.set('flaky.net', { kind: 'reset' });
    const r = await client.lookup('flaky.net', 'net');
    expect(r.kind === 'answer' && r.registrar).toBeNull();
    expect(r.kind === 'answer' && r.registration?.registrar.iana_id).toBe('376');
  });
});

describe('queryWhoisServer', () => {
  it('decodes Latin-1 answers and keeps UTF-8 ones', async () => {
    const s = await startWhoisServer((q) => (q === 'latin' ? Buffer.from('Registrant Name: Müller\n', 'latin1') : 'Registrant Name: Müller\n'));
    try {
      expect((await queryWhoisServer(s.address, 'latin', { timeoutMs: TIMEOUT, maxBytes: 1024 })).text).toBe('Registrant Name: Müller\n');
      expect((await queryWhoisServer(s.address, 'utf8', { timeoutMs: TIMEOUT, maxBytes: 1024 })).text).toBe('Registrant Name: Müller\n');
      expect(s.queries).toEqual(['latin', 'utf8']);
    } finally {
      await s.close();
    }
  });

  it('parses server addresses', () => {
    expect(parseServerAddress('whois.iana.org')).toEqual({ host: 'whois.iana.org', port: 43 });
    expect(parseServerAddress('127.0.0.1:4343')).toEqual({ host: '127.0.0.1', port: 4343 });
    expect(parseServerAddress('[::1]:4343')).toEqual({ host: '::1', port: 4343 });
    expect(parseServerAddress('::1')).toEqual({ host: '::1', port: 43 });
  });
});
