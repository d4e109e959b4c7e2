// The network side of DNS: one exchange (query bytes → response bytes) over DoH, UDP or TCP.
// Touches the network. Every exchange is bounded by the caller's AbortSignal and by size limits.
import dgram from 'node:dgram';
import net from 'node:net';
import { request, type Dispatcher } from 'undici';
import { MAX_MESSAGE_BYTES, isTruncated, messageId } from './message.js';
import type { ResolverEndpoint } from './resolver-url.js';

/** The exchange did not finish before its signal fired. */
export class TransportTimeoutError extends Error {
  constructor(message = 'no answer in time') {
    super(message);
    this.name = 'TransportTimeoutError';
  }
}

/** The resolver could not be reached or answered with something that is not a DNS message. */
export class TransportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransportError';
  }
}

export interface Transport {
  readonly kind: 'doh' | 'udp' | 'tcp';
  /** The resolver as shown to clients (no credentials). */
  readonly display: string;
  /**
   * Sends `query` (whose id is `id`) and returns the raw response, whose id matches.
   * @throws TransportTimeoutError when `signal` fires first; TransportError otherwise.
   */
  exchange(query: Buffer, id: number, signal: AbortSignal): Promise<Buffer>;
}

/**
 * @param dispatcher undici dispatcher for DoH, created on first use (it carries the trust store).
 * @param timeoutMs the per-exchange budget; UDP retransmits once halfway through it.
 */
export function createTransport(ep: ResolverEndpoint, dispatcher: () => Dispatcher, timeoutMs: number): Transport {
  switch (ep.kind) {
    case 'doh':
      return new DohTransport(ep.url, ep.authorization, ep.display, dispatcher);
    case 'udp':
      return new UdpTransport(ep.host, ep.port, ep.display, Math.max(1, Math.floor(timeoutMs / 2)));
    case 'tcp':
      return new TcpTransport(ep.host, ep.port, ep.display);
  }
}

function abortError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  // A deadline of the caller's own (a LookupError) passes through; a plain timeout becomes ours.
  if (r instanceof Error && r.name !== 'TimeoutError' && r.name !== 'AbortError') return r;
  return new TransportTimeoutError();
}

/** RFC 8484 POST with `application/dns-message` over undici (TLS trust comes with the dispatcher). */
class DohTransport implements Transport {
  readonly kind = 'doh' as const;
  constructor(
    private readonly url: string,
    private readonly authorization: string | null,
    readonly display: string,
    private readonly dispatcher: () => Dispatcher,
  ) {}

  async exchange(query: Buffer, id: number, signal: AbortSignal): Promise<Buffer> {
    if (signal.aborted) throw abortError(signal);
    const headers: Record<string, string> = { 'content-type': 'application/dns-message', accept: 'application/dns-message' };
    if (this.authorization !== null) headers['authorization'] = this.authorization;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(this.url, { method: 'POST', headers, body: query, dispatcher: this.dispatcher(), signal });
    } catch (e) {
      if (signal.aborted) throw abortError(signal);
      throw new TransportError(`request failed: ${describe(e)}`, { cause: e });
    }
    try {
      if (res.statusCode !== 200) throw new TransportError(`HTTP status ${res.statusCode}`);
      const type = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/dns-message') throw new TransportError(`content type ${JSON.stringify(type.slice(0, 64))} is not application/dns-message`);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_MESSAGE_BYTES) throw new TransportError('response body is larger than a DNS message can be');
        chunks.push(chunk);
      }
      const buf = Buffer.concat(chunks, size);
      if (messageId(buf) !== id) throw new TransportError('response id does not match the query');
      return buf;
    } catch (e) {
      // undici reports a destroyed body as an 'error' event; nobody else listens any more.
      res.body.on('error', () => undefined);
      res.body.destroy();
      if (signal.aborted) throw abortError(signal);
      if (e instanceof TransportError) throw e;
      throw new TransportError(`reading the response failed: ${describe(e)}`, { cause: e });
    }
  }
}

/**
 * Classic DNS over UDP from a fresh connected socket (random source port, only the resolver's
 * datagrams delivered). One retransmission halfway through the budget covers a lost datagram;
 * datagrams with another id are ignored (late or forged), a bounded number of times; a truncated
 * answer is retried over TCP within the same budget.
 */
class UdpTransport implements Transport {
  readonly kind = 'udp' as const;
  private readonly tcp: TcpTransport;
  constructor(private readonly host: string, private readonly port: number, readonly display: string, private readonly retransmitMs: number) {
    this.tcp = new TcpTransport(host, port, display);
  }

  async exchange(query: Buffer, id: number, signal: AbortSignal): Promise<Buffer> {
    const buf = await this.udpExchange(query, id, signal);
    return isTruncated(buf) ? this.tcp.exchange(query, id, signal) : buf;
  }

  private udpExchange(query: Buffer, id: number, signal: AbortSignal): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      if (signal.aborted) return reject(abortError(signal));
      const family = net.isIPv6(this.host) ? 'udp6' : 'udp4';
      const sock = dgram.createSocket({ type: family, recvBufferSize: MAX_MESSAGE_BYTES });
      let strangers = 0;
      let retransmit: NodeJS.Timeout | undefined;
      let settled = false;
      const finish = (err: Error | null, buf?: Buffer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(retransmit);
        signal.removeEventListener('abort', onAbort);
        sock.close();
        if (err !== null) reject(err);
        else resolve(buf!);
      };
      const onAbort = (): void => finish(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      sock.on('error', (e) => finish(new TransportError(`UDP: ${describe(e)}`, { cause: e })));
      sock.on('message', (msg) => {
        if (messageId(msg) === id) return finish(null, msg);
        if (++strangers >= 8) finish(new TransportError('UDP: only datagrams with other ids arrived'));
      });
      sock.connect(this.port, this.host, () => {
        if (settled) return;
        const send = (): void => sock.send(query, (e) => { if (e) finish(new TransportError(`UDP: ${describe(e)}`, { cause: e })); });
        send();
        retransmit = setTimeout(send, this.retransmitMs);
        retransmit.unref();
      });
    });
  }
}

/** Classic DNS over TCP: one connection per query, 2-byte length prefix (RFC 1035 §4.2.2, RFC 7766). */
class TcpTransport implements Transport {
  readonly kind = 'tcp' as const;
  constructor(private readonly host: string, private readonly port: number, readonly display: string) {}

  exchange(query: Buffer, id: number, signal: AbortSignal): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      if (signal.aborted) return reject(abortError(signal));
      const sock = net.connect({ host: this.host, port: this.port });
      let acc: Buffer = Buffer.alloc(0);
      let settled = false;
      const finish = (err: Error | null, buf?: Buffer): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        sock.destroy();
        if (err !== null) reject(err);
        else resolve(buf!);
      };
      const onAbort = (): void => finish(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      sock.on('connect', () => {
        const frame = Buffer.allocUnsafe(2 + query.length);
        frame.writeUInt16BE(query.length, 0);
        query.copy(frame, 2);
        sock.write(frame);
      });
      sock.on('data', (chunk: Buffer) => {
        acc = acc.length === 0 ? chunk : Buffer.concat([acc, chunk]);
        // At most one message is awaited, so the buffer never exceeds 2 + 65535 bytes plus one chunk.
        if (acc.length < 2) return;
        const len = acc.readUInt16BE(0);
        if (acc.length < 2 + len) return;
        const msg = acc.subarray(2, 2 + len);
        if (messageId(msg) !== id) return finish(new TransportError('TCP: response id does not match the query'));
        finish(null, msg);
      });
      sock.on('end', () => finish(new TransportError('TCP: connection closed before a full response')));
      sock.on('error', (e) => finish(new TransportError(`TCP: ${describe(e)}`, { cause: e })));
    });
  }
}

/** A short, secret-free description of a network error (code and syscall, never a URL). */
function describe(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown; cause?: unknown } | null;
  const code = typeof err?.code === 'string' ? err.code : null;
  if (code !== null) return code;
  const cause = err?.cause as { code?: unknown } | undefined;
  if (typeof cause?.code === 'string') return cause.code;
  return e instanceof Error ? e.name : 'error';
}

