import { afterEach, describe, expect, it } from 'vitest';
import zlib from 'node:zlib';
import type { AppContext } from '../../../src/context.js';
import { ImportError, importDataset, registerImporter } from '../../../src/datasets/import.js';
import { Datasets } from '../../../src/datasets/registry.js';
import { readDatasetRow, writeDatasetActivated } from '../../../src/datasets/store.js';
import { removeTempDirs, tempDir, testContext, writeFile } from './helpers.js';

const contexts: AppContext[] = [];
function ctxFor(): { ctx: AppContext; dir: string } {
  const dir = tempDir();
  const ctx = testContext(dir);
  contexts.push(ctx);
  return { ctx, dir };
}
afterEach(() => {
  for (const c of contexts.splice(0)) c.db.close();
  removeTempDirs();
});

const OUI_CSV = [
  'Registry,Assignment,Organization Name,Organization Address',
  'MA-L,B827EB,Raspberry Pi Foundation,Mitchell Wood House Caldecote Cambridgeshire GB CB23 7NU',
  'MA-L,70B3D5,IEEE Registration Authority,445 Hoes Lane Piscataway NJ US 08554',
  'MA-S,70B3D5001,SOREDI touch systems GmbH,Werner-von-Siemens-Str. 13 Olching  DE 82140',
  'MA-L,00000C,"Cisco Systems, Inc",170 WEST TASMAN DRIVE SAN JOSE CA US 95134-1706',
].join('\n');

const MAM_CSV = ['Registry,Assignment,Organization Name,Organization Address', 'MA-M,8C1F64D,Example Devices GmbH,Somewhere Olching Bavaria DE 82140'].join('\n');

function pfx2as(n: number): string {
  const lines = ['10.0.0.0\t8\t64500', '10.1.0.0\t16\t64501', '10.1.2.0\t24\t64502_64503', '2001:db8::\t32\t64504', '2001:db8:1::\t48\t{64505,64506}'];
  for (let i = 0; i < n; i++) lines.push(`192.168.${i}.0\t24\t${65000 + (i % 3)}`);
  return lines.join('\n') + '\n';
}

describe('importDataset: OUI', () => {
  it('imports several IEEE files, longest match wins, RA parents never answer', async () => {
    const { ctx, dir } = ctxFor();
    const r = await importDataset(ctx, 'oui', [writeFile(dir, 'oui.csv', OUI_CSV), writeFile(dir, 'mam.csv', MAM_CSV)]);
    expect(r.records).toBe(5);
    expect(r.files.map((f) => f.format)).toEqual(['ieee-csv', 'ieee-csv']);
    const oui = ctx.datasets.oui!;
    expect(oui.lookup('B827EB123456')).toMatchObject({ vendor: 'Raspberry Pi Foundation', country: 'GB', registry: 'MA-L', bits: 24 });
    expect(oui.lookup('70B3D5001ABC')).toMatchObject({ vendor: 'SOREDI touch systems GmbH', registry: 'MA-S', bits: 36 });
    expect(oui.lookup('70B3D5FFF000')).toBeNull();
    expect(oui.lookup('8C1F64D00000')).toMatchObject({ registry: 'MA-M', bits: 28, prefix: '8C1F64D' });
    expect(oui.lookup('000000000000')).toBeNull();
    const row = readDatasetRow(ctx.db, 'oui')!;
    expect(row).toMatchObject({ records: 5, version: 'oui.csv + mam.csv', last_error: null });
    expect(row.sha256).toMatch(/^[0-9a-f]{64},[0-9a-f]{64}$/);
  });

  it('accepts gzip input, detected by its magic bytes', async () => {
    const { ctx, dir } = ctxFor();
    await importDataset(ctx, 'oui', [writeFile(dir, 'oui-csv.data', zlib.gzipSync(OUI_CSV))]);
    expect(ctx.datasets.oui!.lookup('00000C000001')!.vendor).toBe('Cisco Systems, Inc');
  });
});

describe('importDataset: ASN data', () => {
  it('imports nested pfx2as prefixes; the most specific wins; counts per AS', async () => {
    const { ctx, dir } = ctxFor();
    await importDataset(ctx, 'prefixes', [writeFile(dir, 'pfx2as.txt', pfx2as(30))]);
    const p = ctx.datasets.prefixes!;
    expect(p.lookup('10.1.2.3')).toMatchObject({ asn: 64502, start: '10.1.2.0', end: '10.1.2.255', org: null });
    expect(p.lookup('10.1.3.3')!.asn).toBe(64501);
    expect(p.lookup('10.200.0.1')!.asn).toBe(64500);
    expect(p.lookup('2001:db8:1::5')).toMatchObject({ asn: 64505, start: '2001:db8:1::', end: '2001:db8:1:ffff:ffff:ffff:ffff:ffff' });
    expect(p.lookup('2001:db8:2::5')!.asn).toBe(64504);
    expect(p.lookup('::ffff:10.1.2.3')!.asn).toBe(64502);
    expect(p.lookup('11.0.0.1')).toBeNull();
    expect(p.lookup('not an ip')).toBeNull();
    expect(p.prefixCounts(65000)).toEqual({ ipv4: 10, ipv6: 0 });
    expect(p.prefixCounts(64504)).toEqual({ ipv4: 0, ipv6: 1 });
    expect(p.prefixCounts(1)).toEqual({ ipv4: 0, ipv6: 0 });
  });

  it('merges AS names with RIR blocks; without names, falls back to the prefix org column', async () => {
    const { ctx, dir } = ctxFor();
    await importDataset(ctx, 'prefixes', [writeFile(dir, 'asn.csv', '1.1.1.0,1.1.1.255,13335,"Cloudflare, Inc."\n8.8.8.0,8.8.8.255,15169,Google LLC\n')]);
    expect(ctx.datasets.asns!.get(13335)).toMatchObject({ name: 'Cloudflare, Inc.', rir: null });
    expect(ctx.datasets.asns!.names!.dataset).toBe('asn.csv');
    await importDataset(ctx, 'rir', [
      writeFile(dir, 'delegated-arin', '2|arin|20240101|3|19700101|20240101|-0500\narin|*|asn|*|2|summary\narin|US|asn|13335|1|20100714|assigned|x\narin|US|asn|15000|500|20000101|allocated|y\n'),
      writeFile(dir, 'delegated-ripe', 'ripencc|DE|asn|3320|1|19930901|allocated|z\n'),
    ]);
    expect(ctx.datasets.asns!.get(13335)).toMatchObject({ name: 'Cloudflare, Inc.', rir: 'ARIN', allocated: '2010-07-14', status: 'assigned', country: 'US' });
    expect(ctx.datasets.asns!.get(15169)).toMatchObject({ rir: 'ARIN', status: 'allocated', name: 'Google LLC' });
    await importDataset(ctx, 'asnames', [writeFile(dir, 'asn.txt', '13335 CLOUDFLARENET - Cloudflare, Inc., US\n3320 DTAG Internet service provider operations, DE\n')]);
    expect(ctx.datasets.asns!.get(13335)).toEqual({ asn: 13335, name: 'CLOUDFLARENET', description: 'Cloudflare, Inc.', country: 'US', rir: 'ARIN', allocated: '2010-07-14', status: 'assigned' });
    expect(ctx.datasets.asns!.get(3320)).toMatchObject({ name: 'DTAG Internet service provider operations', rir: 'RIPE NCC' });
    expect(ctx.datasets.asns!.get(99999)).toBeNull();
    const status = ctx.datasets.status(Date.now() + 5000);
    expect(status.asn.loaded).toBe(true);
    expect(Object.keys(status.asn.parts!)).toEqual(['prefixes', 'asnames', 'rir']);
    expect(status.asn.records).toBe(2 + 3 + 2);
  });
});

describe('bad input leaves the active data as it was', () => {
  async function withActiveOui(): Promise<{ ctx: AppContext; dir: string }> {
    const c = ctxFor();
    await importDataset(c.ctx, 'oui', [writeFile(c.dir, 'oui.csv', OUI_CSV)]);
    return c;
  }

  async function expectRejected(ctx: AppContext, name: string, file: string, message: RegExp): Promise<void> {
    const before = readDatasetRow(ctx.db, name);
    const err = await importDataset(ctx, name, [file]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as Error).message).toMatch(message);
    const after = readDatasetRow(ctx.db, name)!;
    expect(after.version).toBe(before?.version ?? null);
    expect(after.records).toBe(before?.records ?? null);
    expect(after.last_error).toBe((err as Error).message);
  }

  it('wrong format: names the file and the line', async () => {
    const { ctx, dir } = await withActiveOui();
    const file = writeFile(dir, 'wrong.csv', '1.0.0.0,1.0.0.255,13335,x\n');
    await expectRejected(ctx, 'oui', file, new RegExp(`^${file.replace(/[.]/g, '\\.')}:1: not an IEEE registry file`));
    expect(ctx.datasets.oui!.lookup('B827EB000000')!.vendor).toBe('Raspberry Pi Foundation');
  });

  it('empty file, truncated gzip, too many bad lines, unterminated quote', async () => {
    const { ctx, dir } = await withActiveOui();
    await expectRejected(ctx, 'oui', writeFile(dir, 'empty.csv', ''), /empty\.csv: empty file/);
    const gz = zlib.gzipSync(OUI_CSV + '\n' + 'MA-L,AAAAAA,X,Y US\n'.repeat(2000));
    await expectRejected(ctx, 'oui', writeFile(dir, 'cut.csv.gz', gz.subarray(0, gz.length - 40)), /cut\.csv\.gz: .*(unexpected end|truncated)/);
    const bad = OUI_CSV + '\n' + 'MA-L,XYZ,Bad,Somewhere US\n'.repeat(3);
    await expectRejected(ctx, 'oui', writeFile(dir, 'bad.csv', bad), /bad\.csv: 3 of 7 data lines rejected .*line 6: assignment/);
    const open = OUI_CSV + '\nMA-L,ABCDEF,"Cut off here';
    await expectRejected(ctx, 'oui', writeFile(dir, 'open.csv', open), /open\.csv: .*line 6: quoted field is not closed/);
    expect(ctx.datasets.oui!.lookup('00000C000001')!.vendor).toBe('Cisco Systems, Inc');
  });

  it('refuses a version with under 90% of the active records unless forced', async () => {
    const { ctx, dir } = ctxFor();
    await importDataset(ctx, 'prefixes', [writeFile(dir, 'big.txt', pfx2as(100))]);
    const small = writeFile(dir, 'small.txt', pfx2as(50));
    await expectRejected(ctx, 'prefixes', small, /fewer than 90% of the active 105.*--force/);
    expect(ctx.datasets.prefixes!.lookup('192.168.99.1')!.asn).toBe(65000);
    const r = await importDataset(ctx, 'prefixes', [small], { force: true });
    expect(r.records).toBe(55);
    expect(r.previousRecords).toBe(105);
    expect(ctx.datasets.prefixes!.lookup('192.168.99.1')).toBeNull();
  });

  it('missing files and unknown datasets are clear errors', async () => {
    const { ctx } = ctxFor();
    await expect(importDataset(ctx, 'oui', ['/nonexistent/oui.csv'])).rejects.toThrow('/nonexistent/oui.csv: no such file');
    await expect(importDataset(ctx, 'bogus', ['/x'])).rejects.toThrow(/unknown dataset "bogus"/);
  });
});

describe('importer registry', () => {
  it('dispatches registered importers by CLI name; unregistered ones are "not available"', async () => {
    const { ctx, dir } = ctxFor();
    const file = writeFile(dir, 'log_list.json', '{}');
    await expect(importDataset(ctx, 'ct-logs', [file])).rejects.toThrow(/ct-logs importer is not available/);
    registerImporter({
      name: 'ct-logs',
      dataset: 'ct_logs',
      description: 'test',
      async run(c, files) {
        writeDatasetActivated(c.db, 'ct_logs', { source: files[0]!, version: 'v3', builtAt: null, records: 7, sha256: 'x' });
        c.datasets.activated('ct_logs');
        return { dataset: 'ct_logs', version: 'v3', records: 7, previousRecords: null, files: [], rejectedLines: [], durationMs: 0 };
      },
    });
    const r = await importDataset(ctx, 'ct-logs', [file]);
    expect(r.records).toBe(7);
    expect(ctx.datasets.status().ct_logs).toMatchObject({ loaded: true, records: 7 });
  });
});

describe('health status', () => {
  it('has the API keys, is cached for a second, and is refreshed by an activation', async () => {
    const { ctx, dir } = ctxFor();
    const t = Date.now();
    const s1 = ctx.datasets.status(t);
    expect(Object.keys(s1)).toEqual(['geo', 'oui', 'asn', 'rdap_bootstrap', 'ct_logs']);
    expect(s1.oui.loaded).toBe(false);
    expect(ctx.datasets.status(t + 500)).toBe(s1);
    await importDataset(ctx, 'oui', [writeFile(dir, 'oui.csv', OUI_CSV)]);
    expect(ctx.datasets.status(t + 600).oui.loaded).toBe(true);
    // Another thread's registry sees the change after reload() (the worker path).
    const other = new Datasets(ctx.db, 3600);
    expect(other.oui!.lookup('B827EB000000')!.country).toBe('GB');
  });
});

describe('start-up housekeeping', () => {
  it('drops staging tables and files of dead import processes, keeps live ones, and loads', async () => {
    const { ctx, dir } = ctxFor();
    const { createStaging } = await import('../../../src/datasets/store.js');
    const { prepareDatasets } = await import('../../../src/datasets/defaults.js');
    const fs = await import('node:fs');
    const path = await import('node:path');
    const live = createStaging(ctx.db, 'oui');
    ctx.db.exec('CREATE TABLE oui_staging_999999999_1 (x)');
    fs.mkdirSync(path.join(dir, 'staging'));
    fs.writeFileSync(path.join(dir, 'staging', 'geo-999999999-1-abc.mmdb'), 'x');
    fs.writeFileSync(path.join(dir, 'staging', `geo-${process.pid}-1-abc.mmdb`), 'x');
    await prepareDatasets(ctx);
    const tables = ctx.db.prepare("SELECT name FROM sqlite_master WHERE name GLOB '*_staging_*'").pluck().all();
    expect(tables).toEqual([live]);
    expect(fs.readdirSync(path.join(dir, 'staging'))).toEqual([`geo-${process.pid}-1-abc.mmdb`]);
  });

  it('progress: log lines at each quarter when not on a terminal', async () => {
    const { progressFor } = await import('../../../src/datasets/progress.js');
    const lines: string[] = [];
    const log = { info: (_o: unknown, msg: string) => lines.push(msg) } as never;
    const p = progressFor(log, { isTTY: false } as NodeJS.WriteStream)();
    p.start('file.csv', 1000);
    for (let i = 0; i <= 1000; i += 50) p.update(i);
    p.stop();
    expect(lines).toEqual(['importing file.csv: 25%', 'importing file.csv: 50%', 'importing file.csv: 75%']);
  });
});

describe('syncWithStore (SIGHUP after a CLI import)', () => {
  it('on the main thread (loadShared: OUI not read) a sync reports nothing new until another process imports', async () => {
    const { ctx, dir } = ctxFor();
    await importDataset(ctx, 'oui', [writeFile(dir, 'oui.csv', OUI_CSV)]);
    const main = testContext(dir);
    contexts.push(main);
    main.datasets.loadShared();
    expect(main.datasets.syncWithStore()).toEqual([]);
    await importDataset(ctx, 'oui', [writeFile(dir, 'mam.csv', MAM_CSV)], { force: true });
    expect(main.datasets.syncWithStore()).toEqual(['oui']);
    expect(main.datasets.syncWithStore()).toEqual([]);
  });

  it('activates exactly the datasets another process changed and tells the listeners', async () => {
    const { ctx, dir } = ctxFor();
    await importDataset(ctx, 'oui', [writeFile(dir, 'oui.csv', OUI_CSV)]);
    expect(ctx.datasets.oui).not.toBeNull(); // loaded in this thread, as in a worker
    expect(ctx.datasets.syncWithStore()).toEqual([]);
    const seen: string[] = [];
    ctx.datasets.onActivated((name) => seen.push(name));
    // Another process (the CLI) imports into the same store.
    const cli = testContext(dir);
    contexts.push(cli);
    await importDataset(cli, 'oui', [writeFile(dir, 'mam.csv', MAM_CSV + '\nMA-M,8C1F64E,Other,Here DE 1')], { force: true });
    expect(ctx.datasets.oui!.lookup('8C1F64E00000')).toBeNull();
    expect(ctx.datasets.syncWithStore()).toEqual(['oui']);
    expect(seen).toEqual(['oui']);
    expect(ctx.datasets.oui!.lookup('8C1F64E00000')!.vendor).toBe('Other');
    expect(ctx.datasets.syncWithStore()).toEqual([]);
  });
});
