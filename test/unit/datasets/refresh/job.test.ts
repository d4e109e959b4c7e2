// The refresh job in-process against a loopback mirror: every failure mode leaves the active data and
// its metadata as they were; success swaps; 304 changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { refreshDataset, rollbackDataset } from '../../../../src/datasets/refresh/job.js';
import { readDatasetRow } from '../../../../src/datasets/store.js';
import type { AppContext } from '../../../../src/context.js';
import { ieeeCsv, pfx2as, sha256, startMirror, type Mirror } from '../../../helpers/mirror.js';
import { buildMmdb, flatRecord } from '../mmdb-writer.js';
import { tempDir, testContext } from '../helpers.js';

let mirror: Mirror;
const contexts: AppContext[] = [];
beforeAll(async () => {
  mirror = await startMirror();
});
afterAll(async () => {
  for (const c of contexts) c.db.close();
  await mirror.close();
});

function ctxFor(env: Record<string, string>): AppContext {
  const ctx = testContext(tempDir('netintel-refresh-'), { NETINTEL_REFRESH_TIMEOUT_MS: '3000', ...env });
  contexts.push(ctx);
  return ctx;
}

async function metric(ctx: AppContext, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const all = await ctx.metrics.registry.getMetricsAsJSON();
  const m = all.find((x) => x.name === name) as { values: { labels: Record<string, string>; value: number }[] } | undefined;
  return m?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value;
}

function asnOf(ctx: AppContext, ip: string): number | null {
  const r = ctx.datasets.prefixes?.lookup(ip) as { asn?: number } | null | undefined;
  return r?.asn ?? null;
}

function stagingLeft(ctx: AppContext): string[] {
  try {
    return fs.readdirSync(path.join(ctx.config.dataDir, 'staging'));
  } catch {
    return [];
  }
}

describe('refresh job', () => {
  it('imports from the mirror, then a 304 is a success that changes nothing', async () => {
    mirror.put('/a/pfx2as.txt.gz', zlib.gzipSync(pfx2as(64500)));
    const ctx = ctxFor({ NETINTEL_SOURCE_PREFIXES: `${mirror.url}/a/pfx2as.txt.gz` });
    const first = await refreshDataset(ctx, 'prefixes');
    expect(first).toMatchObject({ result: 'success', records: 201, changed: true });
    expect(asnOf(ctx, '10.0.1.1')).toBe(64500);
    const row = readDatasetRow(ctx.db, 'prefixes')!;
    expect(row.version).toBe('pfx2as.txt.gz');
    expect(row.built_at).not.toBeNull();
    expect(await metric(ctx, 'netintel_dataset_refresh_total', { dataset: 'prefixes', result: 'success' })).toBe(1);
    expect(await metric(ctx, 'netintel_dataset_records', { dataset: 'prefixes' })).toBe(201);
    expect(fs.readdirSync(path.join(ctx.config.dataDir, 'sources', 'prefixes'))).toEqual(['00-pfx2as.txt.gz', 'meta.json']);

    const before = mirror.requests.length;
    const second = await refreshDataset(ctx, 'prefixes');
    expect(second.result).toBe('not_modified');
    const req = mirror.requests.slice(before).find((r) => r.path === '/a/pfx2as.txt.gz')!;
    expect(req.headers['if-none-match']).toMatch(/^"/);
    expect(req.headers['if-modified-since']).toBeDefined();
    expect(req.status).toBe(304);
    expect(readDatasetRow(ctx.db, 'prefixes')).toEqual(row);
    expect(await metric(ctx, 'netintel_dataset_refresh_total', { dataset: 'prefixes', result: 'not_modified' })).toBe(1);
    expect(stagingLeft(ctx).filter((f) => !f.endsWith('.lock'))).toEqual([]);
  });

  it('Last-Modified alone (no ETag) gives a conditional GET too', async () => {
    mirror.put('/lm/pfx.txt', pfx2as(64501), { etag: null, lastModified: new Date('2026-11-20T00:00:00Z') });
    const ctx = ctxFor({ NETINTEL_SOURCE_PREFIXES: `${mirror.url}/lm/pfx.txt` });
    expect((await refreshDataset(ctx, 'prefixes')).result).toBe('success');
    expect(readDatasetRow(ctx.db, 'prefixes')!.built_at).toBe('2026-11-20T00:00:00Z');
    expect((await refreshDataset(ctx, 'prefixes')).result).toBe('not_modified');
  });

  describe('failures keep the active data and metadata', () => {
    let ctx: AppContext;
    const p = '/f/pfx2as.txt';
    let statusCalls = 0;
    beforeAll(async () => {
      mirror.put(p, pfx2as(64510));
      ctx = ctxFor({ NETINTEL_SOURCE_PREFIXES: `${mirror.url}${p}`, NETINTEL_REFRESH_TIMEOUT_MS: '500' });
      expect((await refreshDataset(ctx, 'prefixes')).result).toBe('success');
    });

    async function expectKept(expectReason: RegExp, cleanup: () => void = () => undefined): Promise<void> {
      try {
        await check(expectReason);
      } finally {
        cleanup();
      }
    }

    async function check(expectReason: RegExp): Promise<void> {
      const before = readDatasetRow(ctx.db, 'prefixes')!;
      const failuresBefore = (await metric(ctx, 'netintel_dataset_refresh_total', { dataset: 'prefixes', result: 'failure' })) ?? 0;
      const out = await refreshDataset(ctx, 'prefixes');
      expect(out.result).toBe('failure');
      expect(out.message).toMatch(expectReason);
      const after = readDatasetRow(ctx.db, 'prefixes')!;
      expect({ ...after, last_error: null, last_error_at: null }).toEqual({ ...before, last_error: null, last_error_at: null });
      expect(after.last_error).toMatch(expectReason);
      expect(asnOf(ctx, '10.0.1.1')).toBe(64510);
      expect(await metric(ctx, 'netintel_dataset_refresh_total', { dataset: 'prefixes', result: 'failure' })).toBe(failuresBefore + 1);
      expect(stagingLeft(ctx).filter((f) => !f.endsWith('.lock'))).toEqual([]);
      // status() is cached for a second; ask as if later each time.
      expect(ctx.datasets.status(Date.now() + 2000 * ++statusCalls).asn.last_error).toMatch(expectReason);
    }

    it('HTTP 500', async () => {
      mirror.update(p, { status: 500 });
      await expectKept(/HTTP 500/, () => mirror.update(p, { status: undefined }));
    });

    it('a truncated body (Content-Length larger than sent)', async () => {
      mirror.update(p, { body: Buffer.from(pfx2as(64511)), truncateAt: 1000 });
      await expectKept(/cut short/, () => mirror.update(p, { truncateAt: undefined }));
    });

    it('a corrupt file', async () => {
      mirror.update(p, { body: Buffer.from('this is not\na prefix file\nat all\n') });
      await expectKept(/pfx2as|prefix|rejected|no valid/i);
    });

    it('a checksum mismatch against the .sha256 sidecar', async () => {
      mirror.update(p, { body: Buffer.from(pfx2as(64512)) });
      mirror.put(`${p}.sha256`, `${sha256('something else')}  pfx2as.txt\n`);
      await expectKept(/sha256 mismatch/, () => mirror.remove(`${p}.sha256`));
    });

    it('a checksum mismatch against the .md5 sidecar', async () => {
      mirror.put(`${p}.md5`, `${'0'.repeat(32)}  pfx2as.txt\n`);
      await expectKept(/md5 mismatch/, () => mirror.remove(`${p}.md5`));
    });

    it('a slow source hitting the timeout', async () => {
      mirror.update(p, { delayMs: 2000 });
      await expectKept(/within 500 ms/, () => mirror.update(p, { delayMs: undefined }));
    });

    it('a file 95% smaller: rejected, then accepted with force', async () => {
      mirror.update(p, { body: Buffer.from(pfx2as(64513, 9)) });
      await expectKept(/90%/);
      const forced = await refreshDataset(ctx, 'prefixes', { force: true });
      expect(forced).toMatchObject({ result: 'success', records: 10, previousRecords: 201 });
      expect(asnOf(ctx, '10.0.1.1')).toBe(64513);
      expect(readDatasetRow(ctx.db, 'prefixes')!.last_error).toBeNull();
    });

    it('a matching sidecar is accepted; rollback restores the previous version', async () => {
      const body = pfx2as(64514);
      mirror.update(p, { body: Buffer.from(body) });
      mirror.put(`${p}.sha256`, `SHA256 (pfx2as.txt) = ${sha256(body)}\n`);
      expect((await refreshDataset(ctx, 'prefixes')).result).toBe('success');
      expect(asnOf(ctx, '10.0.1.1')).toBe(64514);
      const rb = await rollbackDataset(ctx, 'prefixes');
      expect(rb).toMatchObject({ result: 'success', records: 10 });
      expect(asnOf(ctx, '10.0.1.1')).toBe(64513);
      // The upstream still has the version rolled back from: the next refresh keeps the rollback.
      expect((await refreshDataset(ctx, 'prefixes')).result).toBe('not_modified');
      expect(asnOf(ctx, '10.0.1.1')).toBe(64513);
      mirror.remove(`${p}.sha256`);
    });
  });

  it('several sources merge; one changed source re-imports with the others reused', async () => {
    mirror.put('/oui/oui.csv', ieeeCsv('Alpha', 20, 0x001000));
    mirror.put('/oui/other.csv', ieeeCsv('Beta', 20, 0x002000));
    const ctx = ctxFor({ NETINTEL_SOURCE_OUI: `${mirror.url}/oui/oui.csv,${mirror.url}/oui/other.csv` });
    expect(await refreshDataset(ctx, 'oui')).toMatchObject({ result: 'success', records: 40 });
    mirror.put('/oui/other.csv', ieeeCsv('Gamma', 20, 0x002000));
    const before = mirror.requests.length;
    expect(await refreshDataset(ctx, 'oui')).toMatchObject({ result: 'success', records: 40 });
    expect(mirror.requests.slice(before).filter((r) => r.path === '/oui/oui.csv').map((r) => r.status)).toEqual([304]);
    expect(ctx.datasets.oui?.lookup('002001000000')?.vendor).toBe('Gamma 1');
    expect(ctx.datasets.oui?.lookup('001001000000')?.vendor).toBe('Alpha 1');
    const prev = fs.readdirSync(path.join(ctx.config.dataDir, 'previous', 'oui'));
    expect(prev).toEqual(['00-oui.csv', '01-other.csv', 'meta.json']);
  });

  it('geo from mmdb files, gzip passed through, and a corrupt mmdb rejected', async () => {
    const v4 = buildMmdb({ ipVersion: 4, databaseType: 'Test-City', networks: [{ cidr: '10.0.0.0/8', data: flatRecord('DE', 'Berlin', 52.5, 13.4) }] });
    mirror.put('/geo/v4.mmdb.gz', zlib.gzipSync(v4));
    const ctx = ctxFor({ NETINTEL_SOURCE_GEO: `${mirror.url}/geo/v4.mmdb.gz` });
    expect((await refreshDataset(ctx, 'geo')).result).toBe('success');
    expect(ctx.datasets.geo).not.toBeNull();
    mirror.put('/geo/v4.mmdb.gz', zlib.gzipSync(Buffer.from('definitely not an mmdb file')));
    const bad = await refreshDataset(ctx, 'geo');
    expect(bad.result).toBe('failure');
    expect(readDatasetRow(ctx.db, 'geo')!.version).toBe('Test-City');
  });

  it('a dataset without sources is skipped; an unconditional 304 is an error', async () => {
    const ctx = ctxFor({ NETINTEL_SOURCE_GEO: 'none' });
    expect((await refreshDataset(ctx, 'geo')).result).toBe('skipped');
  });
});

describe('interrupted after activation', () => {
  it('missing retained copies (crash before they were kept) cost a full download, nothing else', async () => {
    mirror.put('/c/pfx2as.txt', pfx2as(64520));
    const ctx = ctxFor({ NETINTEL_SOURCE_PREFIXES: `${mirror.url}/c/pfx2as.txt` });
    expect((await refreshDataset(ctx, 'prefixes')).result).toBe('success');
    fs.rmSync(path.join(ctx.config.dataDir, 'sources', 'prefixes'), { recursive: true });
    const before = mirror.requests.length;
    const again = await refreshDataset(ctx, 'prefixes');
    expect(again).toMatchObject({ result: 'success', changed: false, records: 201 });
    const req = mirror.requests.slice(before).find((r) => r.path === '/c/pfx2as.txt')!;
    expect(req.headers['if-none-match']).toBeUndefined();
    expect(req.status).toBe(200);
    expect((await refreshDataset(ctx, 'prefixes')).result).toBe('not_modified');
  });
});
