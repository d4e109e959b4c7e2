import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { digestFromSidecar, parseChecksumLines } from '../../../../src/datasets/refresh/checksum.js';
import { conditionalHeaders, fileValidators, lastModifiedIso } from '../../../../src/datasets/refresh/fetcher.js';
import { describeSource, sidecarOf, sourceBaseName, toRefreshName } from '../../../../src/datasets/refresh/sources.js';

const HEX = '0123456789abcdef';
const hexOf = (n: number) => fc.string({ unit: fc.constantFrom(...HEX.split('')), minLength: n, maxLength: n });
const fileName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,30}$/);

describe('checksum sidecars', () => {
  it('reads the GNU, binary-mode, BSD and bare forms', () => {
    const d = 'a'.repeat(64);
    expect(digestFromSidecar(`${d}  file.gz\n`, 'sha256', 'file.gz')).toEqual({ ok: true, digest: d });
    expect(digestFromSidecar(`${d} *file.gz\n`, 'sha256', 'https://m/x/file.gz')).toEqual({ ok: true, digest: d });
    expect(digestFromSidecar(`SHA256 (file.gz) = ${d.toUpperCase()}\n`, 'sha256', 'file.gz')).toEqual({ ok: true, digest: d });
    expect(digestFromSidecar(`${d}\n`, 'sha256', 'file.gz')).toEqual({ ok: true, digest: d });
    expect(digestFromSidecar(`MD5 (f) = ${'b'.repeat(32)}`, 'md5', 'f')).toEqual({ ok: true, digest: 'b'.repeat(32) });
  });

  it('picks the entry naming the file among several, and refuses when none does', () => {
    const a = 'a'.repeat(64);
    const b = 'b'.repeat(64);
    const text = `${a}  one.csv\n${b}  two.csv\n`;
    expect(digestFromSidecar(text, 'sha256', 'http://h/p/two.csv?x=1')).toEqual({ ok: true, digest: b });
    expect(digestFromSidecar(text, 'sha256', 'three.csv').ok).toBe(false);
  });

  it('rejects wrong lengths, wrong algorithms, garbage and empty files with a reason', () => {
    expect(digestFromSidecar('abc  f\n', 'sha256', 'f')).toMatchObject({ ok: false, reason: expect.stringContaining('64 hex digits') });
    expect(digestFromSidecar(`MD5 (f) = ${'b'.repeat(32)}`, 'sha256', 'f').ok).toBe(false);
    expect(digestFromSidecar('<html>not found</html>', 'sha256', 'f').ok).toBe(false);
    expect(digestFromSidecar('\n# comment\n', 'md5', 'f')).toEqual({ ok: false, reason: 'checksum file is empty' });
    expect(digestFromSidecar(`${'a'.repeat(64)}  f\n${'c'.repeat(64)}  f\n`, 'sha256', 'f').ok).toBe(false);
  });

  it('property: a line written in any accepted form reads back to its digest', () => {
    fc.assert(
      fc.property(hexOf(64), fileName, fc.constantFrom('gnu', 'bin', 'bsd', 'bare'), fc.boolean(), fc.boolean(), (hex, name, form, upper, crlf) => {
        const h = upper ? hex.toUpperCase() : hex;
        const line = form === 'gnu' ? `${h}  ${name}` : form === 'bin' ? `${h} *${name}` : form === 'bsd' ? `SHA256 (${name}) = ${h}` : h;
        const r = digestFromSidecar(line + (crlf ? '\r\n' : '\n'), 'sha256', `https://mirror.test/a/${name}`);
        expect(r).toEqual({ ok: true, digest: hex });
      }),
    );
  });

  it('property: never throws on arbitrary text; any success is a digest of the right length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.constantFrom('sha256' as const, 'md5' as const), fileName, (text, algo, name) => {
        const r = digestFromSidecar(text, algo, name);
        if (r.ok) expect(r.digest).toMatch(algo === 'sha256' ? /^[0-9a-f]{64}$/ : /^[0-9a-f]{32}$/);
        else expect(r.reason.length).toBeGreaterThan(0);
        const lines = parseChecksumLines(text, algo);
        expect(typeof lines === 'string' || Array.isArray(lines)).toBe(true);
      }),
    );
  });
});

describe('conditional GET and source helpers', () => {
  it('sends If-None-Match and If-Modified-Since only for what was recorded', () => {
    expect(conditionalHeaders(null)).toEqual({});
    expect(conditionalHeaders({ etag: '"x"', lastModified: null })).toEqual({ 'if-none-match': '"x"' });
    expect(conditionalHeaders({ etag: null, lastModified: 'Sat, 21 Nov 2026 10:00:00 GMT' })).toEqual({ 'if-modified-since': 'Sat, 21 Nov 2026 10:00:00 GMT' });
    expect(conditionalHeaders({ etag: '"x"', lastModified: 'Sat, 21 Nov 2026 10:00:00 GMT' })).toHaveProperty('if-none-match', '"x"');
  });

  it('property: validators of a local file change with its size or mtime', () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 0, max: 4e12 }), fc.nat(), fc.integer({ min: 1, max: 1e6 }), (size, mtime, dSize, dTime) => {
        const a = fileValidators({ size, mtimeMs: mtime });
        expect(fileValidators({ size, mtimeMs: mtime })).toEqual(a);
        expect(fileValidators({ size: size + dSize + 1, mtimeMs: mtime }).etag).not.toBe(a.etag);
        expect(fileValidators({ size, mtimeMs: mtime + dTime }).etag).not.toBe(a.etag);
      }),
    );
  });

  it('Last-Modified becomes an ISO build time, garbage becomes null', () => {
    expect(lastModifiedIso('Sat, 21 Nov 2026 10:00:00 GMT')).toBe('2026-11-21T10:00:00Z');
    expect(lastModifiedIso('yesterday-ish')).toBeNull();
    expect(lastModifiedIso(null)).toBeNull();
  });

  it('sidecars go on the path, names are safe, credentials stay out of messages', () => {
    expect(sidecarOf('https://u:p@m.test/a/f.gz?token=1', '.sha256')).toBe('https://u:p@m.test/a/f.gz.sha256?token=1');
    expect(sidecarOf('/srv/f.csv', '.md5')).toBe('/srv/f.csv.md5');
    expect(describeSource('https://u:p@m.test/a/f.gz?token=1')).toBe('https://m.test/a/f.gz');
    expect(sourceBaseName('https://m.test/')).toBe('download');
    expect(sourceBaseName('https://m.test/a/..%2f..%2fetc')).not.toContain('/');
    expect(sourceBaseName('/x/y/delegated-arin-extended-latest')).toBe('delegated-arin-extended-latest');
    expect(toRefreshName('rdap_bootstrap')).toBe('rdap-bootstrap');
    expect(toRefreshName('nope')).toBeNull();
  });

  it('property: the retained file name is never empty, never a path, never hidden', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl(), fc.string({ maxLength: 80 })), (s) => {
        const n = sourceBaseName(s);
        expect(n.length).toBeGreaterThan(0);
        expect(n).not.toMatch(/[/\\]/);
        expect(n.startsWith('.')).toBe(false);
      }),
    );
  });
});
