// Streams a (possibly gzipped) text file line by line, hashing the raw bytes on the way.
// Never holds the whole file: the big dumps (pfx2as, ip2asn) are tens of megabytes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';

export interface LineSourceStats {
  /** Raw (compressed, if gzipped) bytes read so far. */
  bytesRead: number;
  readonly totalBytes: number;
  readonly gzip: boolean;
  sha256: string | null;
}

/** True when the file starts with the gzip magic bytes. */
export function isGzipFile(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(2);
    return fs.readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    fs.closeSync(fd);
  }
}

/** Opens a file as a byte stream (decompressed when gzipped); hashes and counts the raw bytes. */
export function openInput(file: string, onBytes?: (n: number) => void): { stream: Readable; stats: LineSourceStats } {
  const gzip = isGzipFile(file);
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  const stats: LineSourceStats = { bytesRead: 0, totalBytes: fs.statSync(file).size, gzip, sha256: null };
  const hash = crypto.createHash('sha256');
  raw.on('data', (chunk) => {
    hash.update(chunk as Buffer);
    stats.bytesRead += (chunk as Buffer).length;
    onBytes?.(stats.bytesRead);
  });
  raw.on('end', () => {
    stats.sha256 = hash.digest('hex');
  });
  if (!gzip) return { stream: raw, stats };
  const gunzip = zlib.createGunzip();
  raw.on('error', (e) => gunzip.destroy(e));
  return { stream: raw.pipe(gunzip), stats };
}

/**
 * Calls `fn(line, lineNumber)` (1-based, without the terminator; a UTF-8 BOM stripped) for every line.
 * Synchronous per chunk, so a multi-megabyte file costs no per-line promise. Errors of the stream
 * (a truncated gzip, a read error) reject the returned promise.
 */
export async function forEachLine(stream: Readable, fn: (line: string, lineNo: number) => void): Promise<number> {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  let lineNo = 0;
  let first = true;
  for await (const chunk of stream) {
    let text = pending + decoder.decode(chunk as Buffer, { stream: true });
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    let from = 0;
    let nl: number;
    while ((nl = text.indexOf('\n', from)) >= 0) {
      const end = nl > from && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      fn(text.slice(from, end), ++lineNo);
      from = nl + 1;
    }
    pending = text.slice(from);
  }
  pending += decoder.decode();
  if (pending.length > 0) fn(pending.endsWith('\r') ? pending.slice(0, -1) : pending, ++lineNo);
  return lineNo;
}
