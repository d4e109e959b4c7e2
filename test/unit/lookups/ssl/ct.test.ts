import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, type Db } from '../../../../src/platform/sqlite.js';
import { ImportError } from '../../../../src/datasets/import.js';
import { CtLogIndex, hasCtLogList, importCtLogList, loadCtLogListFromSources, parseCtLogList } from '../../../../src/lookups/ssl/ct-logs.js';
import { parseCtSearch } from '../../../../src/lookups/ssl/ct-search.js';
import { SslHistory } from '../../../../src/lookups/ssl/history.js';
import { tempDir } from '../../../helpers/daemon.js';
import { testLogList, type TestLog } from '../../../helpers/tls-fixtures.js';

const logId = (n: number) => Buffer.alloc(32, n).toString('base64');
const logA: TestLog = { logId: logId(1), description: 'Alpha 2026h2', operator: 'Alpha Op' };
const logB: TestLog = { logId: logId(2), description: 'Beta 2026h2', operator: 'Beta Op' };

describe('parseCtLogList (v3 log_list.json)', () => {
  it('reads operators, logs, tiled logs, version and timestamp', () => {
    const doc = testLogList([logA, logB], '72.5', '2026-11-20T12:00:00.5Z') as { operators: { tiled_logs: unknown[] }[] };
    doc.operators[0]!.tiled_logs.push({ description: 'Alpha Tiled', log_id: logId(3), submission_url: 'https://t.example/', state: { usable: {} } });
    const list = parseCtLogList(JSON.stringify(doc));
    expect(list.version).toBe('log_list v72.5');
    expect(list.builtAt).toBe('2026-11-20T12:00:00Z');
    expect(list.logs).toEqual([
      { log_id: logId(1), description: 'Alpha 2026h2', operator: 'Alpha Op', url: 'https://ct.example.test/', state: 'usable' },
      { log_id: logId(3), description: 'Alpha Tiled', operator: 'Alpha Op', url: 'https://t.example/', state: 'usable' },
      { log_id: logId(2), description: 'Beta 2026h2', operator: 'Beta Op', url: 'https://ct.example.test/', state: 'usable' },
    ]);
  });

  it('rejects what is not a log list, naming the problem', () => {
    const bad = (text: string, msg: RegExp) => {
      expect(() => parseCtLogList(text, 'f.json')).toThrow(ImportError);
      expect(() => parseCtLogList(text, 'f.json')).toThrow(msg);
    };
    bad('nope', /not JSON/);
    bad('{}', /no "operators"/);
    bad('{"operators":[{"logs":[]}]}', /has no "name"/);
    bad('{"operators":[{"name":"x","logs":[]}]}', /names no logs/);
    bad('{"operators":[{"name":"x","logs":[{"log_id":"abc","description":"d"}]}]}', /valid "log_id"/);
    bad(`{"operators":[{"name":"x","logs":[{"log_id":"${logId(1)}"}]}]}`, /no "description"/);
    bad('{"operators":[{"name":"x","logs":{}}]}', /not an array/);
  });

  it('property: any JSON input either parses to logs with 32-byte ids or throws ImportError', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        try {
          const l = parseCtLogList(text);
          for (const log of l.logs) expect(Buffer.from(log.log_id, 'base64')).toHaveLength(32);
        } catch (e) {
          expect(e).toBeInstanceOf(ImportError);
        }
      }),
    );
  });
});

describe('CT log list store', () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = tempDir();
    db = openDatabase(path.join(dir, 'netintel.db'));
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('importCtLogList activates the list; the index names logs and follows a re-import', async () => {
    const f1 = path.join(dir, 'a.json');
    fs.writeFileSync(f1, JSON.stringify(testLogList([logA], '1.0')));
    let clock = 0;
    const index = new CtLogIndex(db, () => clock);
    expect(index.current()).toBeNull();
    expect(index.lookup(logA.logId)).toBeNull();
    expect(hasCtLogList(db)).toBe(false);

    const r = await importCtLogList({ db }, [f1]);
    expect(r).toMatchObject({ dataset: 'ct_logs', version: 'log_list v1.0', records: 1, previousRecords: null });
    expect(hasCtLogList(db)).toBe(true);
    clock += 1000;
    expect(index.lookup(logA.logId)).toEqual({ log_name: 'Alpha 2026h2', operator: 'Alpha Op' });
    expect(index.current()).toEqual({ version: 'log_list v1.0', built_at: '2026-11-01T00:00:00Z' });

    const f2 = path.join(dir, 'b.json');
    fs.writeFileSync(f2, JSON.stringify(testLogList([logB], '2.0')));
    // loaded_at has second resolution: make the new version visibly newer.
    db.prepare("UPDATE dataset SET loaded_at = '2000-01-01T00:00:00Z' WHERE name = 'ct_logs'").run();
    clock += 1000;
    index.current();
    const r2 = await importCtLogList({ db }, [f2]);
    expect(r2.previousRecords).toBe(1);
    clock += 1000;
    expect(index.lookup(logA.logId)).toBeNull();
    expect(index.lookup(logB.logId)).toEqual({ log_name: 'Beta 2026h2', operator: 'Beta Op' });
    const row = db.prepare("SELECT source, records, sha256, last_error FROM dataset WHERE name = 'ct_logs'").get();
    expect(row).toMatchObject({ source: f2, records: 1, last_error: null });
  });

  it('a failed import keeps the active list', async () => {
    const good = path.join(dir, 'good.json');
    fs.writeFileSync(good, JSON.stringify(testLogList([logA])));
    await importCtLogList({ db }, [good]);
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, '{"operators": []}');
    await expect(importCtLogList({ db }, [bad])).rejects.toThrow(/names no logs/);
    expect(new CtLogIndex(db).lookup(logA.logId)).not.toBeNull();
  });

  it('loadCtLogListFromSources: first working source wins; all failing records last_error', async () => {
    const good = path.join(dir, 'good.json');
    fs.writeFileSync(good, JSON.stringify(testLogList([logA])));
    const opts = { extraCa: null, timeoutMs: 1000, maxBytes: 1 << 20 };
    expect(await loadCtLogListFromSources(db, [path.join(dir, 'missing.json')], opts)).toBe(false);
    expect(db.prepare("SELECT loaded_at, last_error FROM dataset WHERE name = 'ct_logs'").get()).toMatchObject({ loaded_at: null, last_error: expect.stringMatching(/missing\.json/) });
    expect(await loadCtLogListFromSources(db, [path.join(dir, 'missing.json'), `file://${good}`], opts)).toBe(true);
    expect(hasCtLogList(db)).toBe(true);
  });
});

describe('SslHistory', () => {
  it('upserts by (domain, port, fingerprint): first_seen stays, last_seen moves', () => {
    const dir = tempDir();
    const db = openDatabase(path.join(dir, 'netintel.db'));
    try {
      const h = new SslHistory(db);
      const cert = { fingerprint: 'AA:BB', serial: '01', issuer: 'CN=I', validFrom: '2026-01-01T00:00:00Z', expiresAt: '2026-04-01T00:00:00Z' };
      h.record('example.com', 443, cert, '2026-02-01T00:00:00Z');
      h.record('example.com', 443, cert, '2026-02-02T00:00:00Z');
      h.record('example.com', 8443, cert, '2026-02-03T00:00:00Z');
      h.record('example.com', 443, { ...cert, fingerprint: 'CC:DD', serial: '02' }, '2026-03-01T00:00:00Z');
      expect(h.list('example.com', 443)).toEqual([
        { fingerprint_sha256: 'CC:DD', serial_number: '02', issuer: 'CN=I', valid_from: cert.validFrom, expires_at: cert.expiresAt, first_seen: '2026-03-01T00:00:00Z', last_seen: '2026-03-01T00:00:00Z', origin: 'observed' },
        { fingerprint_sha256: 'AA:BB', serial_number: '01', issuer: 'CN=I', valid_from: cert.validFrom, expires_at: cert.expiresAt, first_seen: '2026-02-01T00:00:00Z', last_seen: '2026-02-02T00:00:00Z', origin: 'observed' },
      ]);
      expect(h.list('example.com', 8443)).toHaveLength(1);
      expect(h.list('other.example', 443)).toEqual([]);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parseCtSearch (crt.sh JSON)', () => {
  it('maps entries, dedupes precertificate/certificate pairs by serial, newest first', () => {
    const out = parseCtSearch([
      { issuer_name: 'C=US, O=Let\'s Encrypt, CN=R11', not_before: '2026-01-01T00:00:00', not_after: '2026-04-01T00:00:00', serial_number: '04a1', entry_timestamp: '2026-01-01T01:00:00.5' },
      { issuer_name: 'C=US, O=Let\'s Encrypt, CN=R11', not_before: '2026-01-01T00:00:00', not_after: '2026-04-01T00:00:00', serial_number: '04A1', entry_timestamp: '2026-01-01T00:30:00' },
      { issuer_name: 'C=US, O="Example, Inc.", CN=CA 2', not_before: '2026-03-01T00:00:00', not_after: '2026-06-01T00:00:00', serial_number: '00ff', entry_timestamp: null },
    ]);
    expect(out).toEqual([
      { fingerprint_sha256: null, serial_number: 'FF', issuer: 'CN=CA 2,O="Example, Inc.",C=US', valid_from: '2026-03-01T00:00:00Z', expires_at: '2026-06-01T00:00:00Z', first_seen: null, last_seen: null, origin: 'ct-log' },
      { fingerprint_sha256: null, serial_number: '04:A1', issuer: "CN=R11,O=Let's Encrypt,C=US", valid_from: '2026-01-01T00:00:00Z', expires_at: '2026-04-01T00:00:00Z', first_seen: '2026-01-01T00:30:00Z', last_seen: null, origin: 'ct-log' },
    ]);
  });

  it('skips malformed entries and rejects a non-array', () => {
    expect(parseCtSearch([null, 1, {}, { serial_number: 'zz', not_before: '2026-01-01T00:00:00', not_after: '2026-01-02T00:00:00' }, { serial_number: '01', not_before: 'yesterday', not_after: '2026-01-02T00:00:00' }])).toEqual([]);
    expect(() => parseCtSearch({ error: 'x' })).toThrow(/not a JSON array/);
  });

  it('property: never throws on arrays; every entry is well-formed', () => {
    const isoish = fc.oneof(fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString().slice(0, 19)), fc.string());
    fc.assert(
      fc.property(fc.array(fc.record({ serial_number: fc.oneof(fc.stringMatching(/^[0-9a-f]{0,40}$/), fc.string()), not_before: isoish, not_after: isoish, issuer_name: fc.string(), entry_timestamp: fc.option(isoish) })), (entries) => {
        for (const e of parseCtSearch(entries)) {
          expect(e.serial_number).toMatch(/^([0-9A-F]{2}:)*[0-9A-F]{2}$/);
          expect(e.origin).toBe('ct-log');
        }
      }),
    );
  });
});
