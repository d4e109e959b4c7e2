// A bounded HTTP GET for RDAP servers and bootstrap sources: deadline, size cap, a few redirects.
import { request, type Dispatcher } from 'undici';

export type HttpFailureKind = 'timeout' | 'error';

export class HttpGetError extends Error {
  constructor(readonly kind: HttpFailureKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HttpGetError';
  }
}

export interface HttpGetOptions {
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly accept: string;
  readonly maxRedirects?: number;
  readonly signal?: AbortSignal;
}

export interface HttpGetResult {
  readonly status: number;
  /** The URL that answered, after redirects. */
  readonly url: string;
  readonly body: Buffer;
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** GETs `url`; the whole exchange, redirects included, shares one deadline. Never throws anything but HttpGetError. */
export async function httpGet(url: string, opts: HttpGetOptions): Promise<HttpGetResult> {
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal === undefined ? deadline : AbortSignal.any([deadline, opts.signal]);
  const host = safeHost(url);
  let current = url;
  try {
    for (let hop = 0; ; hop++) {
      const res = await request(current, {
        method: 'GET',
        dispatcher: opts.dispatcher,
        headers: { accept: opts.accept, 'user-agent': 'netintel' },
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
        signal,
      });
      const location = res.headers['location'];
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
        res.body.resume();
        if (hop >= (opts.maxRedirects ?? 3)) throw new HttpGetError('error', `${host} redirected too many times`);
        const next = new URL(location, current);
        if (next.protocol !== 'https:' && next.protocol !== 'http:') throw new HttpGetError('error', `${host} redirected to an unsupported scheme`);
        current = next.href;
        continue;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > opts.maxBytes) {
          res.body.destroy();
          throw new HttpGetError('error', `${host} sent more than ${opts.maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return { status: res.statusCode, url: current, body: Buffer.concat(chunks) };
    }
  } catch (e) {
    if (e instanceof HttpGetError) throw e;
    const code = (e as { code?: unknown }).code;
    if (deadline.aborted || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
      throw new HttpGetError('timeout', `${host} did not answer within ${opts.timeoutMs} ms`, { cause: e });
    }
    const reason = typeof code === 'string' ? code : e instanceof Error ? e.name : 'error';
    throw new HttpGetError('error', `${host} could not be reached (${reason})`, { cause: e });
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the server';
  }
}
