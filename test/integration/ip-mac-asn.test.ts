// /v1/ip, /v1/mac and /v1/asn over real HTTP against the built daemon.
// Part 1 needs no data (validation, bogons, reserved ASNs, 503 before any import).
// Part 2 imports small generated datasets (invented vendors and AS names) with `netintel import`
// and is skipped automatically while that command cannot import them yet.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';
import { buildMmdb, flatRecord } from '../unit/datasets/mmdb-writer.js';

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function get(d: Daemon, pathAndQuery: string): Promise<Reply> {
  const res = await fetch(d.url + pathAndQuery, { signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
  return { status: res.status, headers: res.headers, body };
}

function cli(dataDir: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', NETINTEL_DATA_DIR: dataDir, NETINTEL_IMPORT_DEFAULTS: 'false', NETINTEL_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Random (percent-encoded) parameters: a JSON answer or 400 with the endpoint's code; 503 only without data. */
async function randomParams(d: Daemon, noData: boolean): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('ip', 'mac', 'asn'),
      fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF:.-%/ asAS'.split('')), maxLength: 40 })),
      async (kind, raw) => {
        // "." and ".." (even percent-encoded) are dot-segments the client resolves away before sending
        // (RFC 3986 §5.2.4, WHATWG URL): the request would not reach this endpoint at all.
        fc.pre(!['.', '..'].includes(raw));
        const res = await fetch(`${d.url}/v1/${kind}/${encodeURIComponent(raw)}`, { signal: AbortSignal.timeout(10_000) });
        const body = (await res.json()) as Record<string, unknown>;
        const what = `${kind} ${JSON.stringify(raw)} → ${res.status} ${JSON.stringify(body).slice(0, 120)}`;
        if (res.status === 400) expect(body['code'], what).toBe(`invalid_${kind}`);
        else if (res.status === 503 && noData) expect(body['code'], what).toBe('dataset_unavailable');
        else expect(res.status, what).toBe(200);
      },
    ),
    { numRuns: 300 },
  );
}

describe('no data loaded', () => {
  let d: Daemon;
  beforeAll(async () => {
    d = await startDaemon();
  });
  afterAll(async () => {
    await d?.stop();
    if (d !== undefined) fs.rmSync(d.dataDir, { recursive: true, force: true });
  });

  it.each([
    ['/v1/ip/1.2.3', 'invalid_ip'],
    ['/v1/ip/010.1.1.1', 'invalid_ip'],
    ['/v1/ip/10.0.0.0/8', 'invalid_ip'],
    ['/v1/ip/example.com', 'invalid_ip'],
    ['/v1/ip/fe80::1%25eth0', 'invalid_ip'],
    ['/v1/ip/%208.8.8.8', 'invalid_ip'],
    ['/v1/ip/8.8.8.8%20', 'invalid_ip'],
    ['/v1/ip/', 'invalid_ip'],
    ['/v1/ip/%E0%A4%A', 'invalid_ip'],
    ['/v1/ip/%00', 'invalid_ip'],
    ['/v1/mac/00:1A:2B:3C:4D:5E:6F', 'invalid_mac'],
    ['/v1/mac/001A2B3C4D5E6', 'invalid_mac'],
    ['/v1/mac/00:1A-2B:3C:4D:5E', 'invalid_mac'],
    ['/v1/mac/nonsense', 'invalid_mac'],
    ['/v1/mac/', 'invalid_mac'],
    ['/v1/asn/AS4294967296', 'invalid_asn'],
    ['/v1/asn/ASfoo', 'invalid_asn'],
    ['/v1/asn/1.2.3', 'invalid_asn'],
    ['/v1/asn/', 'invalid_asn'],
    ['/v1/asn/%25%25', 'invalid_asn'],
  ])('%s → 400 %s', async (p, code) => {
    const r = await get(d, p);
    expect(r.status).toBe(400);
    expect(r.body['code']).toBe(code);
    expect(typeof r.body['error']).toBe('string');
    expect(r.body['error']).not.toMatch(/at .*\.js|node_modules|\/work\//);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('the 400 message for "1.2.3" says what was wrong and what is accepted', async () => {
    const r = await get(d, '/v1/ip/1.2.3');
    expect(r.body['error']).toMatch(/^Invalid IP address format: "1\.2\.3" is not an IPv4 or IPv6 address/);
  });

  it.each([
    ['10.0.0.1', 'private-use (RFC 1918)'],
    ['127.0.0.1', 'loopback (RFC 1122)'],
    ['100.64.0.1', 'shared address space, CGNAT (RFC 6598)'],
    ['::1', 'loopback (RFC 4291)'],
    ['fd00::1', 'unique local (RFC 4193)'],
    ['::ffff:192.168.1.1', 'private-use (RFC 1918)'],
    ['2001:db8::1', 'documentation (RFC 3849)'],
  ])('bogon %s → 200 without any dataset', async (ip, why) => {
    const r = await get(d, `/v1/ip/${ip}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(r.body).toMatchObject({ bogon: true, bogon_reason: why, city: null, country: null, asn: null, isp: null, prefix: null });
    expect(r.body['source']).toEqual({ special_purpose: { dataset: 'iana-special-purpose-registries (built in)', built_at: null } });
  });

  it('a public address before any import: 503 dataset_unavailable with Retry-After', async () => {
    for (const p of ['/v1/ip/8.8.8.8', '/v1/mac/B8:27:EB:00:00:01', '/v1/asn/AS13335', '/v1/asn/8.8.8.8']) {
      const r = await get(d, p);
      expect(r.status, p).toBe(503);
      expect(r.body['code']).toBe('dataset_unavailable');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('answers what needs no data: a randomized MAC and a reserved ASN', async () => {
    const mac = await get(d, '/v1/mac/da-a1-19-01-02-03');
    expect(mac.status).toBe(200);
    expect(mac.body).toMatchObject({ mac: 'DA:A1:19:01:02:03', assigned: false, randomized: true, locally_administered: true });
    const asn = await get(d, '/v1/asn/AS64512');
    expect(asn.status).toBe(200);
    expect(asn.body).toMatchObject({ asn: 64512, reserved: true, name: null });
    expect(asn.headers.get('cache-control')).toBe('public, max-age=3600');
  });

  it('random junk never gives a 5xx', async () => {
    const junk = ['%', '%%', '..', '::::', '0x1', 'AS', '1e3', '\u00e9', '%E2%80%AE', '%F0%9F%98%80', 'a'.repeat(500), '1.1.1.1.1', '[::1]'];
    for (const j of junk) {
      for (const kind of ['ip', 'mac', 'asn']) {
        const res = await fetch(`${d.url}/v1/${kind}/${j}`, { signal: AbortSignal.timeout(10_000) });
        expect(res.status, `${kind} ${j}`).toBeLessThan(500);
        await res.arrayBuffer();
      }
    }
  });

  it('property: random parameters never give a 5xx other than 503 dataset_unavailable', async () => {
    await randomParams(d, true);
  });

  it('the CLI prints the same JSON', () => {
    const r = cli(d.dataDir, ['lookup', 'ip', '192.168.1.1']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ip: '192.168.1.1', bogon: true, bogon_reason: 'private-use (RFC 1918)' });
    const bad = cli(d.dataDir, ['lookup', 'mac', 'zz']);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ code: 'invalid_mac' });
  });
});

// ---------------------------------------------------------------------------------------------
// Generated datasets. The formats are the real upstream ones (DESIGN.md §3).

const PREFIXES_CSV = [
  '1.1.1.0,1.1.1.255,13335,"Elbonia Cloud, Inc."',
  '8.8.4.0,8.8.11.255,64999,Mudville Transit',
  '8.8.8.0,8.8.8.255,15169,Elbonia Search LLC',
  '104.16.0.0,104.31.255.255,13335,"Elbonia Cloud, Inc."',
  '2606:4700::,2606:4700:ffff:ffff:ffff:ffff:ffff:ffff,13335,"Elbonia Cloud, Inc."',
].join('\n') + '\n';

const ASNAMES_TXT = [
  '13335 ELBONIA-CLOUDNET - Elbonia Cloud, Inc., US',
  '15169 ELBONIA-SEARCH - Elbonia Search LLC, US',
  '64999 MUDVILLE-TRANSIT - Mudville Transit, DE',
  '398765 UNANNOUNCED-MUD - Quiet Mud Ltd, GB',
].join('\n') + '\n';

const RIR_STATS = [
  '2.3|arin|20260601|4|19700101|20260601|+0000',
  'arin|*|asn|*|3|summary',
  'arin|US|asn|13335|1|20100714|assigned|0001',
  'arin|US|asn|15169|1|20000330|assigned|0002',
  'arin|US|asn|398765|1|20210101|assigned|0003',
].join('\n') + '\n';

const OUI_CSV = [
  'Registry,Assignment,Organization Name,Organization Address',
  'MA-L,B827EB,Mudberry Pi Trading Ltd,"Maurice Wilkes Building, Cowley Road Cambridge  GB CB4 0DS "',
  'MA-L,001A2B,Elbonia Networks,"1 Mud Street Mudville  DE 12345 "',
  'MA-L,70B3D5,IEEE Registration Authority,"445 Hoes Lane Piscataway NJ US 08554 "',
].join('\n') + '\n';

const OUI36_CSV = [
  'Registry,Assignment,Organization Name,Organization Address',
  'MA-S,70B3D594D,Example Devices GmbH,"Werner-von-Siemens-Str. 13 Olching Bavaria DE 82140 "',
].join('\n') + '\n';

// A dual-stack mmdb in the DB-IP flat layout (no timezone: it is derived from the coordinates).
function geoMmdb(): Buffer {
  return buildMmdb({
    ipVersion: 6,
    databaseType: 'DBIP-City-Lite',
    networks: [
      { cidr: '8.8.8.0/24', data: flatRecord('US', 'Mudville', 37.422, -122.085) },
      { cidr: '1.1.1.0/24', data: flatRecord('AU', 'Elbonia Bay', -33.8688, 151.2093) },
      { cidr: '2606:4700::/32', data: flatRecord('DE', 'Mudburg', 52.52, 13.405) },
    ],
  });
}

function writeFixtures(dir: string): Record<string, string[]> {
  const files: Record<string, [string, string | Buffer][]> = {
    geo: [['geo.mmdb', geoMmdb()]],
    prefixes: [['asn-ipv4.csv', PREFIXES_CSV]],
    asnames: [['asn.txt', ASNAMES_TXT]],
    rir: [['delegated-arin-extended-latest', RIR_STATS]],
    oui: [['oui.csv', OUI_CSV], ['oui36.csv', OUI36_CSV]],
  };
  const out: Record<string, string[]> = {};
  for (const [name, list] of Object.entries(files)) {
    out[name] = list.map(([file, text]) => {
      const p = path.join(dir, file);
      fs.writeFileSync(p, text);
      return p;
    });
  }
  return out;
}

// Imported once at collection time: if `netintel import` cannot take these files yet, the suite is skipped.
const importDir = tempDir('netintel-ipmacasn-');
const fixtureDir = fs.mkdtempSync(path.join(importDir, 'fixtures-'));
const fixtures = writeFixtures(fixtureDir);
const importResults = Object.entries(fixtures).map(([name, files]) => ({ name, ...cli(importDir, ['import', name, ...files]) }));
const importable = importResults.every((r) => r.status === 0);
afterAll(() => {
  fs.rmSync(importDir, { recursive: true, force: true });
});

describe.skipIf(!importable)('generated datasets', () => {
  let d: Daemon;
  beforeAll(async () => {
    d = await startDaemon({ dataDir: importDir });
  });
  afterAll(async () => {
    await d?.stop();
  });

  it.each([
    ['8.8.8.8', {
      ip: '8.8.8.8', version: 4, city: 'Mudville', region: 'Mudville State', region_code: null, country: 'United States', country_code: 'US',
      continent: 'North America', postal: null, latitude: 37.422, longitude: -122.085, accuracy_radius_km: null, timezone: 'America/Los_Angeles',
      asn: 15169, as_name: 'Elbonia Search LLC', isp: 'AS15169 Elbonia Search LLC', prefix: '8.8.8.0/24', bogon: false, bogon_reason: null,
    }],
    ['8.8.9.9', { city: null, country: null, asn: 64999, as_name: 'Mudville Transit', prefix: '8.8.8.0/22' }],
    ['::ffff:1.1.1.1', { ip: '1.1.1.1', version: 4, city: 'Elbonia Bay', country: 'Australia', continent: 'Oceania', timezone: 'Australia/Sydney', latitude: -33.8688, asn: 13335, prefix: '1.1.1.0/24' }],
    ['2606:4700:0::1111', { ip: '2606:4700::1111', version: 6, city: 'Mudburg', country: 'Germany', timezone: 'Europe/Berlin', asn: 13335, prefix: '2606:4700::/32' }],
    ['5.5.5.5', { ip: '5.5.5.5', city: null, country: null, latitude: null, timezone: null, asn: null, as_name: null, isp: null, prefix: null, bogon: false }],
  ])('GET /v1/ip/%s', async (ip, expected) => {
    const r = await get(d, `/v1/ip/${ip}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(r.body).toMatchObject(expected);
    expect(Object.keys(r.body)).toEqual([
      'ip', 'version', 'city', 'region', 'region_code', 'country', 'country_code', 'continent', 'postal', 'latitude', 'longitude',
      'accuracy_radius_km', 'timezone', 'asn', 'as_name', 'isp', 'prefix', 'bogon', 'bogon_reason', 'source',
    ]);
    expect(r.body['source']).toMatchObject({ geo: { dataset: expect.any(String) }, asn: { dataset: expect.any(String) } });
  });

  it.each([
    ['AS13335', { asn: 13335, name: 'ELBONIA-CLOUDNET', description: 'Elbonia Cloud, Inc.', country: 'US', rir: 'ARIN', allocated: '2010-07-14', status: 'assigned', reserved: false, ip: null, prefix: null, announced: true, prefixes: { ipv4: 2, ipv6: 1 } }],
    ['as13335', { asn: 13335, query: 'as13335' }],
    ['AS0.13335', { asn: 13335 }],
    ['1.1.1.1', { query: '1.1.1.1', asn: 13335, ip: '1.1.1.1', prefix: '1.1.1.0/24', announced: true, name: 'ELBONIA-CLOUDNET' }],
    ['104.20.1.1', { asn: 13335, prefix: '104.16.0.0/12' }],
    ['9.9.9.9', { asn: null, name: null, announced: false, ip: '9.9.9.9', prefix: null }],
    ['AS398765', { asn: 398765, name: 'UNANNOUNCED-MUD', announced: false, prefixes: { ipv4: 0, ipv6: 0 }, reserved: false }],
    ['AS396999', { asn: 396999, name: null, description: null, rir: null, announced: false, reserved: false }],
    ['AS64512', { asn: 64512, reserved: true }],
  ])('GET /v1/asn/%s', async (q, expected) => {
    const r = await get(d, `/v1/asn/${q}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(r.body).toMatchObject(expected);
  });

  it.each([
    ['B8:27:EB:12:34:56', { mac: 'B8:27:EB:12:34:56', prefix: 'B8:27:EB', prefix_bits: 24, registry: 'MA-L', assigned: true, vendor: 'Mudberry Pi Trading Ltd', country: 'GB' }],
    ['b827.eb12.3456', { mac: 'B8:27:EB:12:34:56', vendor: 'Mudberry Pi Trading Ltd' }],
    ['B827EB', { mac: 'B8:27:EB', vendor: 'Mudberry Pi Trading Ltd' }],
    ['70:B3:D5:94:D0:00', { prefix: '70:B3:D5:94:D', prefix_bits: 36, registry: 'MA-S', vendor: 'Example Devices GmbH', country: 'DE', block: { start: '70:B3:D5:94:D0:00', end: '70:B3:D5:94:DF:FF', size: 4096 } }],
    // The IEEE RA's own MA-L entry only means "look deeper": with no deeper block, nothing is assigned.
    ['70-B3-D5-00-00-01', { assigned: false, vendor: null, registry: null }],
    ['00:11:22:33:44:55', { assigned: false, vendor: null, address: null, country: null }],
    ['DA:A1:19:01:02:03', { assigned: false, randomized: true, locally_administered: true }],
  ])('GET /v1/mac/%s', async (q, expected) => {
    const r = await get(d, `/v1/mac/${q}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(r.body).toMatchObject(expected);
    expect((r.body['source'] as Record<string, unknown>)['oui']).toMatchObject({ dataset: expect.any(String) });
  });

  it('property: random parameters give 200 or 400, never a 5xx', async () => {
    await randomParams(d, false);
  });

  it('the CLI answers from the same data', () => {
    const r = cli(importDir, ['lookup', 'asn', 'AS15169']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ asn: 15169, name: 'ELBONIA-SEARCH' });
  });
});

if (!importable) {
  // Shown in the test output so a skipped suite says why.
  const failed = importResults.filter((r) => r.status !== 0).map((r) => `${r.name}: exit ${r.status}: ${(r.stderr || r.stdout).trim().slice(0, 160)}`);
  console.warn(`generated-dataset tests skipped, \`netintel import\` failed:\n  ${failed.join('\n  ')}`);
}
