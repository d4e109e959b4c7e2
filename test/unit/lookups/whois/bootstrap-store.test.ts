import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { openDatabase, type Db } from '../../../../src/platform/sqlite.js';
import { Datasets } from '../../../../src/datasets/registry.js';
import pino from 'pino';
import { BootstrapView, hasRdapBootstrap, importRdapBootstrap, importRdapBootstrapFromConfig } from '../../../../src/lookups/whois/bootstrap-store.js';
import { getImporter } from '../../../../src/datasets/import.js';
import { Metrics } from '../../../../src/platform/metrics.js';
import { matchRdapBase } from '../../../../src/lookups/whois/bootstrap.js';
import { writeBootstrap } from '../../../helpers/rdap-whois-servers.js';

let db: Db;
let dir: string;
const config = (sources: string[]) => ({ extraCa: null, refreshTimeoutMs: 2000, rdapBootstrap: sources });

beforeEach(() => {
  db = openDatabase(':memory:');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdap-bootstrap-'));
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('importRdapBootstrap', () => {
  it('imports a file and records the dataset row the health resource shows', async () => {
    const file = path.join(dir, 'dns.json');
    writeBootstrap(file, 'http://127.0.0.1:9/');
    const r = await importRdapBootstrap({ db, config: config([]) }, file);
    expect(r).toMatchObject({ records: 3, built_at: '2026-11-20T20:00:02Z', version: 'rdap-dns 2026-11-20T20:00:02Z', changed: true });
    expect(hasRdapBootstrap(db)).toBe(true);
    const status = new Datasets(db, 10 * 365 * 86400).status(Date.parse('2026-11-21T00:00:00Z'))['rdap_bootstrap'];
    expect(status).toMatchObject({ loaded: true, records: 3, dataset: 'rdap-dns 2026-11-20T20:00:02Z', source: file, last_error: null });
    expect((await importRdapBootstrap({ db, config: config([]) }, file)).changed).toBe(false);
  });

  it('imports over HTTP and keeps the active version when a later import fails', async () => {
    let body = '';
    const server = http.createServer((_req, res) => res.end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dns.json?token=secret`;
    try {
      const file = path.join(dir, 'dns.json');
      writeBootstrap(file, 'http://127.0.0.1:9/');
      body = fs.readFileSync(file, 'utf8');
      expect((await importRdapBootstrap({ db, config: config([]) }, url)).records).toBe(3);
      body = '{"services": []}';
      await expect(importRdapBootstrap({ db, config: config([]) }, url)).rejects.toThrow(/no usable service/);
      const row = db.prepare("SELECT * FROM dataset WHERE name = 'rdap_bootstrap'").get() as Record<string, unknown>;
      expect(row['records']).toBe(3);
      expect(row['last_error']).toMatch(/no usable service/);
      expect(row['source']).not.toContain('secret');
    } finally {
      server.close();
    }
  });

  it('refuses a much smaller file unless forced', async () => {
    const big = path.join(dir, 'big.json');
    const small = path.join(dir, 'small.json');
    writeBootstrap(big, 'http://127.0.0.1:9/', [[Array.from({ length: 20 }, (_, i) => `t${i}`), ['https://x.example/']]]);
    writeBootstrap(small, 'http://127.0.0.1:9/');
    await importRdapBootstrap({ db, config: config([]) }, big);
    await expect(importRdapBootstrap({ db, config: config([]) }, small)).rejects.toThrow(/90%/);
    expect((await importRdapBootstrap({ db, config: config([]) }, small, { force: true })).records).toBe(3);
  });

  it('tries configured sources in order', async () => {
    const file = path.join(dir, 'dns.json');
    writeBootstrap(file, 'http://127.0.0.1:9/');
    const r = await importRdapBootstrapFromConfig({ db, config: config([path.join(dir, 'missing.json'), file]) });
    expect(r.source).toBe(file);
    await expect(importRdapBootstrapFromConfig({ db, config: config([]) })).rejects.toThrow(/no RDAP bootstrap source/);
  });
});

describe('the rdap-bootstrap importer (netintel import rdap-bootstrap)', () => {
  const ctx = () => ({ db, log: pino({ level: 'silent' }), metrics: new Metrics({ defaultMetrics: false }) });

  it('is registered and merges several files, the first entry for a label winning', async () => {
    const importer = getImporter('rdap-bootstrap');
    expect(importer?.dataset).toBe('rdap_bootstrap');
    const overlay = path.join(dir, 'overlay.json');
    const iana = path.join(dir, 'iana.json');
    writeBootstrap(overlay, 'https://internal.example/rdap/');
    writeBootstrap(iana, 'https://rdap.iana.example/', [[['net'], ['https://rdap.net.example/']]]);
    const r = await importer!.run(ctx() as never, [overlay, iana], { source: 'overlay + iana', version: 'custom label' });
    expect(r).toMatchObject({ dataset: 'rdap_bootstrap', version: 'custom label', records: 4, previousRecords: null, rejectedLines: [] });
    expect(r.files.map((f) => f.imported)).toEqual([3, 4]);
    const view = await new BootstrapView({ db, config: config([]) }, 1000).current();
    expect(view && matchRdapBase(view.bootstrap, 'a.com')).toBe('https://internal.example/rdap/');
    expect(view && matchRdapBase(view.bootstrap, 'a.net')).toBe('https://rdap.net.example/');
  });

  it('names the file that does not parse', async () => {
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, '{"services": 1}');
    await expect(getImporter('rdap-bootstrap')!.run(ctx() as never, [bad], {})).rejects.toThrow(`${bad}: the RDAP bootstrap file has no "services" array`);
  });
});

describe('BootstrapView', () => {
  it('loads lazily from the configured source, then follows new versions in the store', async () => {
    const file = path.join(dir, 'dns.json');
    writeBootstrap(file, 'http://127.0.0.1:9/');
    const view = new BootstrapView({ db, config: config([file]) }, 1000);
    const first = await view.current();
    expect(first && matchRdapBase(first.bootstrap, 'a.com')).toBe('http://127.0.0.1:9/');
    writeBootstrap(file, 'http://127.0.0.1:10/');
    await importRdapBootstrap({ db, config: config([]) }, file);
    const second = await view.current();
    expect(second && matchRdapBase(second.bootstrap, 'a.com')).toBe('http://127.0.0.1:10/');
  });

  it('a failed lazy load means "no RDAP", without retrying on every request', async () => {
    const view = new BootstrapView({ db, config: config([path.join(dir, 'missing.json')]) }, 1000);
    expect(await view.current()).toBeNull();
    const errorsBefore = (db.prepare("SELECT last_error_at FROM dataset WHERE name = 'rdap_bootstrap'").get() as { last_error_at: string }).last_error_at;
    expect(errorsBefore).not.toBeNull();
    fs.writeFileSync(path.join(dir, 'missing.json'), 'still not json');
    expect(await view.current()).toBeNull();
    // The second call did not try again (the file is broken now, but the error text is unchanged).
    const row = db.prepare("SELECT last_error FROM dataset WHERE name = 'rdap_bootstrap'").get() as { last_error: string };
    expect(row.last_error).toMatch(/ENOENT/);
  });
});
