// The RDAP client against a real loopback HTTP server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { RdapClient } from '../../../../src/lookups/whois/rdap-client.js';
import { startRdapServer, type RdapServer } from '../../../helpers/rdap-whois-servers.js';

let rdap: RdapServer;
let agent: Agent;
let client: RdapClient;

beforeAll(async () => {
  rdap = await startRdapServer({ slowMs: 2000 });
  agent = new Agent({ connect: { timeout: 1000 } });
  client = new RdapClient({ dispatcher: agent, timeoutMs: 500, maxBytes: 1024 * 1024 });
});
afterAll(async () => {
  await agent.close();
  await rdap.close();
});

describe('RdapClient', () => {
  it('reads a full record', async () => {
    const r = await client.domain(rdap.url, 'full.com');
    expect(r.kind).toBe('found');
    if (r.kind !== 'found') return;
    expect(r.registration.registrar.iana_id).toBe('376');
    expect(r.related).toBeNull();
    expect((r.raw as { ldhName: string }).ldhName).toBe('FULL.COM');
  });

  it('follows the related link to the registrar and merges its data', async () => {
    const r = await client.domain(rdap.url, 'linked.com');
    expect(r.kind).toBe('found');
    if (r.kind !== 'found') return;
    expect(r.related?.url).toBe(`${rdap.url}registrar/domain/linked.com`);
    // The registry's expiry wins; the registrar supplies registrant and abuse contact.
    expect(r.registration.expires_at).toBe('2030-01-01T00:00:00Z');
    expect(r.registration.registrant.name).toBe('Link Holder');
    expect(r.registration.registrar.abuse_email).toBe('abuse@linked.example');
    expect(r.registration.registrar.iana_id).toBe('1234');
  });

  it('404 and a 200 error object mean "does not exist"', async () => {
    expect((await client.domain(rdap.url, 'unknown.com')).kind).toBe('not_found');
    expect((await client.domain(rdap.url, 'errobj.com')).kind).toBe('not_found');
  });

  it('follows redirects', async () => {
    const r = await client.domain(rdap.url, 'moved.com');
    expect(r.kind === 'found' && r.url).toBe(`${rdap.url}domain/full.com`);
  });

  it.each([
    ['broken.com', 'upstream_error'],
    ['notjson.com', 'upstream_error'],
    ['wrongclass.com', 'upstream_error'],
    ['huge.com', 'upstream_error'],
    ['slow.com', 'upstream_timeout'],
  ])('%s → %s', async (domain, code) => {
    await expect(client.domain(rdap.url, domain)).rejects.toMatchObject({ code });
  });

  it('a refused connection is upstream_error', async () => {
    await expect(client.domain('http://127.0.0.1:1/', 'full.com')).rejects.toMatchObject({ code: 'upstream_error' });
  });
});
