// HttpProber: the I/O of the ping lookup. It connects to an already checked address (never a name, so no
// DNS answer can change between the policy check and the connection), times the set-up, then sends the
// round trips over one kept-alive connection through a one-socket agent that only ever uses our socket.
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import type { HostKind } from '../host-port.js';
import {
  DEFAULT_PORT, PingFailure, classifyError, hostHeader, isBodiless, isPlainHttpReply, keepsAlive, lostAttempts,
  type Attempt, type PingError, type PingMethod, type ProbeOutcome, type Scheme,
} from './ping.js';

export interface ProberOptions {
  /** Deadline of one round trip, including any reconnection it needs. */
  readonly attemptTimeoutMs: number;
  readonly attempts?: number;
  /** Ports used when the target names none; tests point these at loopback servers. */
  readonly defaultPorts?: Readonly<Record<Scheme, number>>;
  /** Wraps every round trip (metrics); it sees the PingFailure of a lost one. */
  readonly observeAttempt?: <T>(fn: () => Promise<T>) => Promise<T>;
  readonly userAgent?: string;
}

export interface ProbeTarget {
  /** ASCII host name or canonical IP: the SNI name and the Host header. */
  readonly host: string;
  readonly kind: HostKind;
  /** The addresses the probe policy permitted, in resolver order; no packet goes anywhere else. */
  readonly addresses: readonly string[];
  readonly port: number | null;
}

// Addresses of one name tried for the connection set-up (the ssl lookup uses the same bound).
const MAX_ADDRESSES = 4;

// A GET fallback may return a body; it is read (to keep the connection) up to this size, then the connection is dropped.
const MAX_DRAIN_BYTES = 256 * 1024;

export class HttpProber {
  private readonly attempts: number;
  private readonly ports: Readonly<Record<Scheme, number>>;
  private readonly observe: <T>(fn: () => Promise<T>) => Promise<T>;
  private readonly userAgent: string;

  constructor(private readonly opts: ProberOptions) {
    this.attempts = opts.attempts ?? 4;
    this.ports = opts.defaultPorts ?? DEFAULT_PORT;
    this.observe = opts.observeAttempt ?? ((fn) => fn());
    this.userAgent = opts.userAgent ?? 'netintel-ping/1';
  }

  /**
   * Sets up the connection within `connectBudgetMs` (HTTPS first, plain HTTP when the HTTPS port refuses or
   * speaks plain HTTP), then sends the round trips. Never throws for target behaviour; rejects only when
   * `signal` aborts (the caller's deadline), after closing every socket it opened.
   */
  async probe(target: ProbeTarget, connectBudgetMs: number, signal: AbortSignal): Promise<ProbeOutcome> {
    if (target.addresses.length === 0 || target.addresses.some((a) => net.isIP(a) === 0)) {
      throw new Error(`HttpProber needs checked IP addresses, got ${target.addresses.join(', ')}`);
    }
    // A probe that waited in the limiter queue may find its caller already gone.
    if (signal.aborted) throw signal.reason;
    const session = new Session(target, this.userAgent, signal);
    try {
      return await this.run(session, connectBudgetMs);
    } finally {
      session.close();
    }
  }

  private async run(session: Session, connectBudgetMs: number): Promise<ProbeOutcome> {
    const { target } = session;
    const connectDeadline = performance.now() + connectBudgetMs;
    const started = performance.now();
    let address = target.addresses[0]!;
    let scheme: Scheme = 'https';
    let port = target.port ?? this.ports.https;
    let setupError: PingError | null = null;
    // A name with several addresses: one that refuses or cannot be reached gives way to the next, as a
    // browser would, all within the one set-up budget.
    for (const candidate of target.addresses.slice(0, MAX_ADDRESSES)) {
      address = candidate;
      scheme = 'https';
      port = target.port ?? this.ports.https;
      try {
        try {
          await session.connect(address, scheme, port, connectDeadline);
        } catch (e) {
          session.throwIfAborted();
          const refused = classifyError(e) === 'connection refused';
          // A refused port given by the user would refuse plain HTTP too; only the default 443 falls back on refusal.
          if (!((refused && target.port === null) || isPlainHttpReply(e))) throw e;
          scheme = 'http';
          port = target.port ?? this.ports.http;
          await session.connect(address, scheme, port, connectDeadline);
        }
        setupError = null;
        break;
      } catch (e) {
        session.throwIfAborted();
        setupError = classifyError(e);
        if (!(setupError === 'connection refused' || setupError === 'host unreachable')) break;
      }
    }
    if (setupError !== null) {
      return { address, scheme, port, method: 'HEAD', connectMs: null, attempts: lostAttempts(this.attempts, setupError), setupError };
    }
    const connectMs = performance.now() - started;

    const attempts: Attempt[] = [];
    let method: PingMethod = 'HEAD';
    for (let seq = 1; seq <= this.attempts; seq++) {
      session.throwIfAborted();
      const deadline = performance.now() + this.opts.attemptTimeoutMs;
      try {
        const r = await this.observe(async () => {
          let trip = await session.roundTrip(method, deadline);
          if (trip.status === 405 && method === 'HEAD') {
            // The server does not do HEAD: this and every later round trip uses GET, within the same deadline.
            method = 'GET';
            trip = await session.roundTrip(method, deadline);
          }
          return trip;
        });
        attempts.push({ seq, rttMs: r.rttMs, status: r.status, error: null });
      } catch (e) {
        session.throwIfAborted();
        session.drop();
        attempts.push({ seq, rttMs: null, status: null, error: classifyError(e) });
      }
    }
    return { address, scheme, port, method, connectMs, attempts, setupError: null };
  }
}

interface Trip {
  readonly rttMs: number;
  readonly status: number;
}

/** One probe's connection state: the current socket and the agent that is pinned to it. */
class Session {
  private socket: net.Socket | null = null;
  private address = '';
  private scheme: Scheme = 'https';
  private port = 0;
  private readonly agent = new PinnedAgent();
  private readonly opened = new Set<net.Socket>();

  constructor(readonly target: ProbeTarget, private readonly userAgent: string, private readonly signal: AbortSignal) {}

  throwIfAborted(): void {
    if (this.signal.aborted) throw this.signal.reason;
  }

  /** Opens a TCP (+TLS) connection to the checked address and makes it the one the agent uses. */
  async connect(address: string, scheme: Scheme, port: number, deadline: number): Promise<void> {
    this.drop();
    this.address = address;
    this.scheme = scheme;
    this.port = port;
    const socket = await this.open(scheme, port, deadline);
    this.socket = socket;
    this.agent.pin(socket);
  }

  /** Forgets the current connection (after a failure or a `Connection: close`); the next round trip opens a new one. */
  drop(): void {
    if (this.socket !== null) this.socket.destroy();
    this.socket = null;
  }

  close(): void {
    this.drop();
    for (const s of this.opened) s.destroy();
    this.opened.clear();
    this.agent.destroy();
  }

  /** One request on the pinned connection, timed from request written to response headers received. */
  async roundTrip(method: PingMethod, deadline: number): Promise<Trip> {
    if (this.socket === null || !isHealthy(this.socket)) await this.connect(this.address, this.scheme, this.port, deadline);
    const socket = this.socket!;
    return new Promise<Trip>((resolve, reject) => {
      let written: number | null = null;
      let trip: Trip | null = null;
      let drained = 0;
      const started = performance.now();
      const req = http.request({
        agent: this.agent,
        method,
        path: '/',
        setHost: false,
        headers: { host: hostHeader(this.scheme, this.target, this.port), 'user-agent': this.userAgent, accept: '*/*' },
      });
      const finish = (err: unknown): void => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', onAbort);
        if (trip !== null) resolve(trip);
        else reject(err);
      };
      const onAbort = (): void => {
        req.destroy();
        finish(this.signal.reason);
      };
      const timer = setTimeout(() => {
        // Headers not in yet: the round trip is lost. Headers in but the body still coming: the reply counts,
        // but the connection is no longer usable.
        req.destroy();
        if (this.socket === socket) this.drop();
        finish(new PingFailure('timeout'));
      }, Math.max(0, deadline - performance.now()));
      this.signal.addEventListener('abort', onAbort, { once: true });

      req.on('finish', () => {
        written = performance.now();
      });
      req.on('response', (res) => {
        trip = { rttMs: performance.now() - (written ?? started), status: res.statusCode ?? 0 };
        // Node's parser decides keep-alive before it learns that a HEAD (or 204/304) response has no body, so a
        // reply without Content-Length looks EOF-delimited and the connection would be closed. Such a reply
        // cannot have a body, so the server's own Connection semantics decide instead.
        if (isBodiless(method, trip.status) && keepsAlive(res.httpVersion, res.headers.connection)) req.shouldKeepAlive = true;
        res.on('data', (chunk: Buffer) => {
          drained += chunk.length;
          if (drained > MAX_DRAIN_BYTES) {
            req.destroy();
            if (this.socket === socket) this.drop();
          }
        });
        res.on('error', () => undefined);
      });
      req.on('error', (e) => {
        if (this.socket === socket) this.drop();
        finish(e);
      });
      // 'close' fires once the response is complete and the socket is handed back to the agent (or closed, after
      // `Connection: close`), so the next round trip sees the connection's final state.
      req.on('close', () => {
        if (this.socket === socket && !isHealthy(socket)) this.drop();
        finish(new PingFailure('connection reset'));
      });
      req.end();
    });
  }

  private open(scheme: Scheme, port: number, deadline: number): Promise<net.Socket> {
    const { target } = this;
    return new Promise<net.Socket>((resolve, reject) => {
      if (this.signal.aborted) {
        reject(this.signal.reason);
        return;
      }
      const base = { host: this.address, port, noDelay: true };
      const socket: net.Socket = scheme === 'https'
        ? tls.connect({
          ...base,
          // SNI carries the name (never an IP literal, RFC 6066); the certificate is not judged: ping measures
          // reachability, and /v1/ssl is where trust is reported.
          ...(target.kind === 'name' ? { servername: target.host } : {}),
          rejectUnauthorized: false,
          ALPNProtocols: ['http/1.1'],
        })
        : net.connect(base);
      this.opened.add(socket);
      // Errors after set-up surface through the request that uses the socket; this keeps a stray one from crashing.
      socket.on('error', () => undefined);
      socket.once('close', () => this.opened.delete(socket));
      const settle = (err: unknown): void => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', onAbort);
        socket.removeListener('error', onError);
        socket.removeListener(scheme === 'https' ? 'secureConnect' : 'connect', onConnect);
        if (err === null) {
          resolve(socket);
        } else {
          socket.destroy();
          reject(err);
        }
      };
      const onConnect = (): void => settle(null);
      const onError = (e: Error): void => settle(e);
      const onAbort = (): void => settle(this.signal.reason);
      const timer = setTimeout(() => settle(new PingFailure('timeout')), Math.max(0, deadline - performance.now()));
      socket.once(scheme === 'https' ? 'secureConnect' : 'connect', onConnect);
      socket.once('error', onError);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function isHealthy(socket: net.Socket): boolean {
  return !socket.destroyed && socket.writable && !socket.readableEnded;
}

/**
 * A keep-alive agent with one socket that never dials on its own: createConnection hands out the socket the
 * session connected (and timed) itself, so every request goes to the checked address over that connection.
 */
class PinnedAgent extends http.Agent {
  private next: net.Socket | null = null;

  constructor() {
    super({ keepAlive: true, maxSockets: 1, maxFreeSockets: 1, scheduling: 'lifo' });
  }

  pin(socket: net.Socket): void {
    this.next = socket;
  }

  override createConnection(_options: http.ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const socket = this.next;
    this.next = null;
    if (socket === null || socket.destroyed) {
      // The session always pins a fresh socket before a request needs one; reaching here means it broke in between.
      const err = Object.assign(new Error('connection lost before the request'), { code: 'ECONNRESET' });
      callback?.(err, undefined as unknown as Duplex);
      return undefined;
    }
    return socket;
  }
}
