// Pure core of the ping lookup: error classification, URL shaping and the result body (API.md "GET /v1/ping").
import { formatAuthority, type HostKind } from '../host-port.js';

export type Scheme = 'https' | 'http';
export type PingMethod = 'HEAD' | 'GET';

/**
 * Why a round trip (or the connection set-up) failed. API.md names `host not found`, `connection refused`
 * and `timeout`; the others keep rarer failures apart instead of mislabelling them.
 */
export type PingError =
  | 'host not found'
  | 'connection refused'
  | 'timeout'
  | 'host unreachable'
  | 'connection reset'
  | 'tls handshake failed'
  | 'protocol error'
  | 'connection failed';

export interface Attempt {
  readonly seq: number;
  /** Request written → response headers received, in ms; null when the attempt was lost. */
  readonly rttMs: number | null;
  readonly status: number | null;
  readonly error: PingError | null;
}

/** What the prober observed; everything the body needs besides the target. */
export interface ProbeOutcome {
  /** The address connected to (or last tried); null when the name did not resolve. */
  readonly address: string | null;
  /** Scheme and port last tried (the chosen ones once a connection was made); null before any connection attempt. */
  readonly scheme: Scheme | null;
  readonly port: number | null;
  readonly method: PingMethod;
  /** TCP (+TLS) set-up including the scheme probe; null when no connection was made. */
  readonly connectMs: number | null;
  readonly attempts: readonly Attempt[];
  /** Set when the connection could not be set up at all (then every attempt is lost with this error). */
  readonly setupError: PingError | null;
}

export interface PingTarget {
  readonly host: string;
  readonly kind: HostKind;
}

export const DEFAULT_PORT: Readonly<Record<Scheme, number>> = { https: 443, http: 80 };

/** Two decimals: loopback and LAN round trips are well under a millisecond, so 0.1 ms would flatten them. */
export function roundMs(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/** `https://example.com/`, `http://[2001:db8::1]:8080/`: the default port of the scheme is left out. */
export function pingUrl(scheme: Scheme, target: Pick<PingTarget, 'host' | 'kind'>, port: number): string {
  return `${scheme}://${formatAuthority(target, port === DEFAULT_PORT[scheme] ? null : port)}/`;
}

/** The Host header: the authority as a browser would send it for the URL above. */
export function hostHeader(scheme: Scheme, target: Pick<PingTarget, 'host' | 'kind'>, port: number): string {
  return formatAuthority(target, port === DEFAULT_PORT[scheme] ? null : port);
}

/** Every attempt lost with the same error: the shape of a target that could not be reached at all. */
export function lostAttempts(count: number, error: PingError): Attempt[] {
  return Array.from({ length: count }, (_, i) => ({ seq: i + 1, rttMs: null, status: null, error }));
}

/** Maps a socket, TLS or HTTP-parser error to the error vocabulary of the result. */
export function classifyError(e: unknown): PingError {
  if (e instanceof PingFailure) return e.reason;
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'connection failed';
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return 'timeout';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
    case 'EADDRNOTAVAIL':
      return 'host unreachable';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ECONNABORTED':
    case 'ERR_STREAM_DESTROYED':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
  }
  if (code.startsWith('HPE_')) return 'protocol error';
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO') return 'tls handshake failed';
  return 'connection failed';
}

/**
 * True when a TLS handshake failed because the peer answered with something that is not TLS: OpenSSL reads
 * the "HTTP/1.1 400" a plain-HTTP server sends back to a ClientHello as a record with a bad version or length.
 */
export function isPlainHttpReply(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  const code = typeof err?.code === 'string' ? err.code : '';
  if (PLAIN_HTTP_CODES.has(code)) return true;
  const message = typeof err?.message === 'string' ? err.message : '';
  return code === 'EPROTO' && /wrong version number|packet length too long|http request|unknown protocol/i.test(message);
}

const PLAIN_HTTP_CODES = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST', 'ERR_SSL_UNKNOWN_PROTOCOL']);

/** A response that cannot carry a body (RFC 9110 §6.4.1), whatever its headers say. */
export function isBodiless(method: PingMethod, status: number): boolean {
  return method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
}

/** Whether the server lets the connection persist: HTTP/1.1 unless `Connection: close`, HTTP/1.0 only with keep-alive. */
export function keepsAlive(httpVersion: string, connection: string | undefined): boolean {
  const tokens = (connection ?? '').toLowerCase().split(',').map((t) => t.trim());
  if (tokens.includes('close')) return false;
  if (httpVersion === '1.1') return true;
  return httpVersion === '1.0' && tokens.includes('keep-alive');
}

/** A failure the prober itself decided (deadline passed), carried with its result-vocabulary reason. */
export class PingFailure extends Error {
  /** Metrics outcome label (timeUpstream wants [a-z_]+). */
  readonly code: string;
  constructor(readonly reason: PingError, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'PingFailure';
    this.code = reason.replace(/ /g, '_');
  }
}

export interface PingSummary {
  readonly sent: number;
  readonly received: number;
  readonly packetLoss: number;
  readonly minMs: number | null;
  readonly avgMs: number | null;
  readonly maxMs: number | null;
}

/** Counts and statistics over the attempts; the statistics are rounded only after they are computed. */
export function summarize(attempts: readonly Attempt[]): PingSummary {
  const rtts = attempts.flatMap((a) => (a.rttMs === null ? [] : [a.rttMs]));
  const sent = attempts.length;
  const received = rtts.length;
  const packetLoss = sent === 0 ? 100 : Math.round(((sent - received) / sent) * 1000) / 10;
  if (received === 0) return { sent, received, packetLoss, minMs: null, avgMs: null, maxMs: null };
  const sum = rtts.reduce((s, x) => s + x, 0);
  return { sent, received, packetLoss, minMs: roundMs(Math.min(...rtts)), avgMs: roundMs(sum / received), maxMs: roundMs(Math.max(...rtts)) };
}

/** The response body of /v1/ping/{host}, field for field as API.md shows it. */
export function pingBody(target: PingTarget, outcome: ProbeOutcome, source: Record<string, unknown>): Record<string, unknown> {
  const s = summarize(outcome.attempts);
  const reachable = s.received > 0;
  const lastError = [...outcome.attempts].reverse().find((a) => a.error !== null)?.error ?? null;
  return {
    host: target.host,
    address: outcome.address,
    url: outcome.scheme === null || outcome.port === null ? null : pingUrl(outcome.scheme, target, outcome.port),
    method: outcome.method,
    sent: s.sent,
    received: s.received,
    packet_loss: s.packetLoss,
    reachable,
    min_ms: s.minMs,
    avg_ms: s.avgMs,
    max_ms: s.maxMs,
    connect_ms: outcome.connectMs === null ? null : roundMs(outcome.connectMs),
    timings: outcome.attempts.map((a) => ({ seq: a.seq, rtt_ms: a.rttMs === null ? null : roundMs(a.rttMs), status: a.status, error: a.error })),
    error: reachable ? null : (outcome.setupError ?? lastError ?? 'connection failed'),
    source,
  };
}
