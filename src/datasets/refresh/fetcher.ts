// Fetches one source into staging/: conditional GET (ETag / Last-Modified), size cap, timeout, the
// `.sha256`/`.md5` sidecar when the source publishes one. Bytes are kept exactly as served (a .gz stays
// gzip; the importers detect it), so checksums match what the upstream published.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { interceptors, request, type Dispatcher } from 'undici';
import { createHttpAgent } from '../../platform/fetch.js';
import type { Progress } from '../progress.js';
import { digestFromSidecar, type ChecksumAlgorithm } from './checksum.js';
import { describeSource, isHttpSource, localPath, sidecarOf } from './sources.js';

/** A refresh step failed; the message says which source and why. */
export class RefreshError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefreshError';
  }
}

/** What was fetched last time (only kept once that version was activated). */
export interface Validators {
  readonly etag: string | null;
  readonly lastModified: string | null;
}

export type FetchOutcome =
  | { readonly kind: 'not_modified' }
  | {
      readonly kind: 'fetched';
      readonly file: string;
      readonly etag: string | null;
      readonly lastModified: string | null;
      readonly sha256: string;
      readonly size: number;
      /** Which sidecar verified it, if any. */
      readonly checksum: ChecksumAlgorithm | null;
    };

export interface FetchOptions {
  /** Where to write the bytes (under staging/). */
  readonly dest: string;
  /** Validators of the retained copy; null sends an unconditional GET. */
  readonly previous: Validators | null;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly dispatcher: Dispatcher;
  readonly signal?: AbortSignal;
  readonly progress?: Progress;
}

/** Request headers for a conditional GET. Pure. */
export function conditionalHeaders(previous: Validators | null): Record<string, string> {
  const h: Record<string, string> = {};
  if (previous?.etag != null && previous.etag !== '') h['if-none-match'] = previous.etag;
  if (previous?.lastModified != null && previous.lastModified !== '') h['if-modified-since'] = previous.lastModified;
  return h;
}

/** Validators of a local file: its size and modification time stand in for an ETag. Pure. */
export function fileValidators(st: { size: number; mtimeMs: number }): Validators {
  return { etag: `"${st.size}-${Math.floor(st.mtimeMs)}"`, lastModified: new Date(Math.floor(st.mtimeMs)).toUTCString() };
}

/** The built-at hint of a fetched file: its Last-Modified, when it is a valid date. Pure. */
export function lastModifiedIso(value: string | null): string | null {
  if (value === null) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** One agent for a refresh run: our trust store (system CAs + NETINTEL_EXTRA_CA) and redirects. */
export function createRefreshDispatcher(extraCa: string | null, timeoutMs: number): Dispatcher {
  const agent = createHttpAgent({ extraCa, connectTimeoutMs: Math.min(timeoutMs, 30_000), connections: 4 });
  // Closing the composed dispatcher closes the agent under it.
  return agent.compose(interceptors.redirect({ maxRedirections: 5 }));
}

export async function fetchSource(source: string, opts: FetchOptions): Promise<FetchOutcome> {
  const outcome = isHttpSource(source) ? await fetchHttp(source, opts) : await fetchFile(source, opts);
  if (outcome.kind === 'fetched') {
    try {
      const checksum = await verifySidecars(source, outcome.file, outcome.sha256, opts);
      return { ...outcome, checksum };
    } catch (e) {
      fs.rmSync(outcome.file, { force: true });
      throw e;
    }
  }
  return outcome;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const v = headers[name];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}

function combinedSignal(timeoutMs: number, outer: AbortSignal | undefined): AbortSignal {
  const t = AbortSignal.timeout(timeoutMs);
  return outer === undefined ? t : AbortSignal.any([t, outer]);
}

function failure(source: string, e: unknown, timeoutMs: number, signal: AbortSignal): RefreshError {
  if (e instanceof RefreshError) return e;
  const err = e as { name?: string; code?: string; message?: string };
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    if (reason?.name === 'TimeoutError') return new RefreshError(`${describeSource(source)}: no complete answer within ${timeoutMs} ms (NETINTEL_REFRESH_TIMEOUT_MS)`);
    return new RefreshError(`${describeSource(source)}: refresh cancelled (shutting down)`);
  }
  if (err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT') {
    return new RefreshError(`${describeSource(source)}: no complete answer within ${timeoutMs} ms (NETINTEL_REFRESH_TIMEOUT_MS)`);
  }
  const truncated = err.code === 'UND_ERR_SOCKET' || err.code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || err.code === 'ECONNRESET';
  return new RefreshError(`${describeSource(source)}: ${truncated ? 'download cut short' : 'download failed'}: ${err.message ?? String(e)}`);
}

async function fetchHttp(source: string, opts: FetchOptions): Promise<FetchOutcome> {
  const signal = combinedSignal(opts.timeoutMs, opts.signal);
  let out: fs.WriteStream | null = null;
  try {
    const res = await request(source, {
      method: 'GET',
      dispatcher: opts.dispatcher,
      signal,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      // No Accept-Encoding: the bytes must be the published ones (checksums, gzip passthrough).
      headers: { 'user-agent': 'netintel-refresh', ...conditionalHeaders(opts.previous) },
    });
    if (res.statusCode === 304) {
      await res.body.dump();
      if (opts.previous === null) throw new RefreshError(`${describeSource(source)}: HTTP 304 to an unconditional request`);
      return { kind: 'not_modified' };
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new RefreshError(`${describeSource(source)}: HTTP ${res.statusCode}`);
    }
    const lengthHeader = header(res.headers, 'content-length');
    const expected = lengthHeader === null ? null : Number(lengthHeader);
    if (expected !== null && expected > opts.maxBytes) {
      await res.body.dump().catch(() => undefined);
      throw new RefreshError(`${describeSource(source)}: ${expected} bytes is larger than NETINTEL_REFRESH_MAX_BYTES (${opts.maxBytes})`);
    }
    const hash = crypto.createHash('sha256');
    out = openStaged(opts.dest);
    let size = 0;
    opts.progress?.start(describeSource(source), expected ?? 0);
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > opts.maxBytes) {
        res.body.destroy();
        throw new RefreshError(`${describeSource(source)}: larger than NETINTEL_REFRESH_MAX_BYTES (${opts.maxBytes})`);
      }
      hash.update(buf);
      opts.progress?.update(size);
      if (!out.write(buf)) await new Promise<void>((resolve) => out!.once('drain', resolve));
    }
    await closeStream(out);
    out = null;
    if (expected !== null && Number.isFinite(expected) && size !== expected) {
      throw new RefreshError(`${describeSource(source)}: download cut short: ${size} of ${expected} bytes`);
    }
    if (size === 0) throw new RefreshError(`${describeSource(source)}: empty answer`);
    return {
      kind: 'fetched',
      file: opts.dest,
      etag: header(res.headers, 'etag'),
      lastModified: header(res.headers, 'last-modified'),
      sha256: hash.digest('hex'),
      size,
      checksum: null,
    };
  } catch (e) {
    await discard(out, opts.dest);
    throw failure(source, e, opts.timeoutMs, signal);
  } finally {
    opts.progress?.stop();
  }
}

/** A staging file: write errors are reported through close/discard, never as an unhandled event. */
function openStaged(dest: string): fs.WriteStream {
  const out = fs.createWriteStream(dest, { flags: 'wx' });
  out.on('error', () => undefined);
  return out;
}

/** Destroys the stream, waits until its file is closed (no write lands afterwards), removes the file. */
async function discard(out: fs.WriteStream | null, dest: string): Promise<void> {
  if (out !== null && !out.closed) {
    const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
    out.destroy();
    await closed;
  }
  fs.rmSync(dest, { force: true });
}

function closeStream(out: fs.WriteStream): Promise<void> {
  return new Promise((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

async function fetchFile(source: string, opts: FetchOptions): Promise<FetchOutcome> {
  const file = localPath(source);
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new RefreshError(`${file}: no such file`);
  }
  if (!st.isFile()) throw new RefreshError(`${file}: not a regular file`);
  const v = fileValidators(st);
  if (opts.previous !== null && opts.previous.etag === v.etag) return { kind: 'not_modified' };
  if (st.size > opts.maxBytes) throw new RefreshError(`${file}: ${st.size} bytes is larger than NETINTEL_REFRESH_MAX_BYTES (${opts.maxBytes})`);
  if (st.size === 0) throw new RefreshError(`${file}: empty file`);
  const hash = crypto.createHash('sha256');
  const out = openStaged(opts.dest);
  let size = 0;
  opts.progress?.start(file, st.size);
  try {
    for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
      const buf = chunk as Buffer;
      size += buf.length;
      hash.update(buf);
      opts.progress?.update(size);
      if (!out.write(buf)) await new Promise<void>((resolve) => out.once('drain', resolve));
    }
    await closeStream(out);
  } catch (e) {
    await discard(out, opts.dest);
    throw new RefreshError(`${file}: read failed: ${(e as Error).message}`);
  } finally {
    opts.progress?.stop();
  }
  return { kind: 'fetched', file: opts.dest, etag: v.etag, lastModified: v.lastModified, sha256: hash.digest('hex'), size, checksum: null };
}

const SIDECAR_MAX_BYTES = 64 * 1024;
const ALGORITHMS: readonly ChecksumAlgorithm[] = ['sha256', 'md5'];

/**
 * Checks the fetched bytes against the first sidecar the source publishes (.sha256, then .md5).
 * No sidecar (404/410, or no file beside a path) is fine; a sidecar that is there must match.
 */
async function verifySidecars(source: string, file: string, sha256: string, opts: FetchOptions): Promise<ChecksumAlgorithm | null> {
  for (const algorithm of ALGORITHMS) {
    const where = sidecarOf(source, `.${algorithm}`);
    const text = isHttpSource(source) ? await readHttpSidecar(where, opts) : readFileSidecar(where);
    if (text === null) continue;
    const parsed = digestFromSidecar(text, algorithm, source);
    if (!parsed.ok) throw new RefreshError(`${describeSource(where)}: ${parsed.reason}`);
    const actual = algorithm === 'sha256' ? sha256 : await digestFile(file, algorithm);
    if (actual !== parsed.digest) {
      throw new RefreshError(`${describeSource(source)}: ${algorithm} mismatch: the file has ${actual}, ${describeSource(where)} says ${parsed.digest}`);
    }
    return algorithm;
  }
  return null;
}

function readFileSidecar(file: string): string | null {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > SIDECAR_MAX_BYTES) return null;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

async function readHttpSidecar(url: string, opts: FetchOptions): Promise<string | null> {
  const signal = combinedSignal(opts.timeoutMs, opts.signal);
  try {
    const res = await request(url, { method: 'GET', dispatcher: opts.dispatcher, signal, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs });
    // Most sources publish no sidecar; servers say so with 404, 410 or (S3-style) 403.
    if (res.statusCode === 404 || res.statusCode === 410 || res.statusCode === 403) {
      await res.body.dump();
      return null;
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new RefreshError(`${describeSource(url)}: HTTP ${res.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of res.body) {
      size += (c as Buffer).length;
      if (size > SIDECAR_MAX_BYTES) {
        res.body.destroy();
        throw new RefreshError(`${describeSource(url)}: larger than ${SIDECAR_MAX_BYTES} bytes; not a checksum file`);
      }
      chunks.push(c as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (e) {
    throw failure(url, e, opts.timeoutMs, signal);
  }
}

async function digestFile(file: string, algorithm: ChecksumAlgorithm): Promise<string> {
  const hash = crypto.createHash(algorithm);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
