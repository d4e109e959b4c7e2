// A loopback HTTP mirror for refresh tests: serves files from memory with ETag / Last-Modified and
// conditional GET, and can misbehave per path (status, truncated body, slow answer).
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MirrorFile {
  body: Buffer;
  /** Defaults to a hash of the body. */
  etag?: string | null;
  /** Defaults to the time the file was put. */
  lastModified?: Date | null;
  /** Answer this status instead (body "error"). */
  status?: number;
  /** Announce the full Content-Length but send only this many bytes, then close. */
  truncateAt?: number;
  /** Send the headers and this many bytes, then nothing more (until the mirror closes). */
  stallAt?: number;
  /** Wait this long before the headers. */
  delayMs?: number;
}

export interface MirrorRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly status: number;
}

export interface Mirror {
  readonly url: string;
  readonly requests: MirrorRequest[];
  put(path: string, body: Buffer | string, opts?: Omit<MirrorFile, 'body'>): void;
  update(path: string, opts: Partial<MirrorFile>): void;
  remove(path: string): void;
  close(): Promise<void>;
}

export async function startMirror(): Promise<Mirror> {
  const files = new Map<string, MirrorFile>();
  const requests: MirrorRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const f = files.get(path);
    const answer = (status: number, headers: Record<string, string | number> = {}, body?: Buffer): void => {
      requests.push({ path, headers: req.headers, status });
      res.writeHead(status, headers).end(body);
    };
    const go = (): void => {
      if (f === undefined) return answer(404, { 'content-type': 'text/plain' }, Buffer.from('not found\n'));
      if (f.status !== undefined) return answer(f.status, { 'content-type': 'text/plain' }, Buffer.from('error\n'));
      const etag = f.etag === undefined ? `"${crypto.createHash('sha1').update(f.body).digest('hex')}"` : f.etag;
      const lm = f.lastModified === undefined ? null : f.lastModified;
      const headers: Record<string, string | number> = { 'content-type': 'application/octet-stream', 'content-length': f.body.length };
      if (etag !== null) headers['etag'] = etag;
      if (lm !== null) headers['last-modified'] = lm.toUTCString();
      const inm = req.headers['if-none-match'];
      const ims = req.headers['if-modified-since'];
      const notModified =
        (etag !== null && inm !== undefined && inm === etag) ||
        (inm === undefined && lm !== null && ims !== undefined && Math.floor(lm.getTime() / 1000) <= Math.floor(Date.parse(ims) / 1000));
      if (notModified) return answer(304, etag === null ? {} : { etag });
      if (f.truncateAt !== undefined) {
        requests.push({ path, headers: req.headers, status: 200 });
        res.writeHead(200, headers);
        res.write(f.body.subarray(0, f.truncateAt), () => res.socket?.destroy());
        return;
      }
      if (f.stallAt !== undefined) {
        requests.push({ path, headers: req.headers, status: 200 });
        res.writeHead(200, headers);
        res.write(f.body.subarray(0, f.stallAt));
        return;
      }
      answer(200, headers, f.body);
    };
    if (f?.delayMs !== undefined) setTimeout(go, f.delayMs).unref();
    else go();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    put(path, body, opts = {}) {
      files.set(path, { body: Buffer.isBuffer(body) ? body : Buffer.from(body), lastModified: new Date(Math.floor(Date.now() / 1000) * 1000), ...opts });
    },
    update(path, opts) {
      const f = files.get(path);
      if (f === undefined) throw new Error(`mirror: no file ${path}`);
      files.set(path, { ...f, ...opts });
    },
    remove(path) {
      files.delete(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A pfx2as file where every range is originated by AS `asn`: `ranges` /16 blocks from 10.0.0.0. */
export function pfx2as(asn: number, ranges = 200): string {
  const lines: string[] = [];
  for (let i = 0; i < ranges; i++) lines.push(`${10 + (i >> 8)}.${i & 255}.0.0\t16\t${asn}`);
  lines.push(`2001:db8:${asn.toString(16)}::\t48\t${asn}`);
  return lines.join('\n') + '\n';
}

/** An IEEE MA-L CSV with `n` assignments of one vendor name. */
export function ieeeCsv(vendor: string, n = 20, start = 0x001000): string {
  const lines = ['Registry,Assignment,Organization Name,Organization Address'];
  for (let i = 0; i < n; i++) lines.push(`MA-L,${(start + i).toString(16).toUpperCase().padStart(6, '0')},${vendor} ${i},"1 Road, Town, DE"`);
  return lines.join('\r\n') + '\r\n';
}

export function sha256(body: Buffer | string): string {
  return crypto.createHash('sha256').update(body).digest('hex');
}
