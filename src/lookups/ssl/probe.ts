// TlsProbe: the I/O adapter of the ssl lookup (node:tls, node:https). It connects only to the
// address it is given (already checked by the probe policy) and sends the host name as SNI.
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { LookupError, quote } from '../../http/errors.js';

export type TlsVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
export const TLS_VERSIONS: readonly TlsVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

// A grading probe must see what the server offers, weak parts included: security level 0 lets
// OpenSSL complete handshakes with TLS 1.0/1.1, SHA-1 signatures and short keys, which the grade
// then penalises instead of the handshake failing.
const PERMISSIVE_CIPHERS = 'DEFAULT:@SECLEVEL=0';

export interface TlsTarget {
  /** The checked address to connect to. */
  readonly address: string;
  readonly port: number;
  /** SNI and Host header; null for IP targets (SNI carries names only). */
  readonly servername: string | null;
}

export interface Handshake {
  readonly protocol: string | null;
  /** IANA name when node knows it ("TLS_AES_128_GCM_SHA256"), else OpenSSL's. */
  readonly cipher: string | null;
  /** OpenSSL verify code, null when the chain verified against the trust store. */
  readonly verifyError: string | null;
  /** DER of the peer chain, leaf first, as node linked it (server-sent certificates plus the trusted root found). */
  readonly chain: readonly Buffer[];
  /** The leaf as node's legacy object: what tls.checkServerIdentity wants. */
  readonly leaf: tls.PeerCertificate;
}

export interface ScanResult {
  readonly accepted: boolean;
  readonly cipher: string | null;
}

export interface TlsProbeOptions {
  /** PEM CA certificates (system roots + NETINTEL_EXTRA_CA). */
  readonly ca: readonly string[];
  readonly timeoutMs: number;
}

/** Connection-level failure: the caller may try the next address. */
export class ConnectError extends LookupError {}

export class TlsProbe {
  private readonly contexts = new Map<string, tls.SecureContext>();

  constructor(private readonly opts: TlsProbeOptions) {}

  // One SecureContext per version range, built once: parsing ~150 root PEMs per connection would dominate.
  private context(min: TlsVersion, max: TlsVersion, withCa: boolean): tls.SecureContext {
    const key = `${min}/${max}/${withCa}`;
    let ctx = this.contexts.get(key);
    if (ctx === undefined) {
      ctx = tls.createSecureContext({
        ...(withCa ? { ca: [...this.opts.ca] } : {}),
        ciphers: PERMISSIVE_CIPHERS,
        minVersion: min,
        maxVersion: max,
      });
      this.contexts.set(key, ctx);
    }
    return ctx;
  }

  /** The full handshake: widest version range, chain verification against the trust store. */
  handshake(target: TlsTarget, signal: AbortSignal): Promise<Handshake> {
    return this.connect(target, this.context('TLSv1', 'TLSv1.3', true), signal, (socket) => {
      // Order matters on node 20: after getPeerX509Certificate(), getPeerCertificate() returns {}.
      const peer = socket.getPeerCertificate(true);
      const chain: Buffer[] = [];
      const seen = new Set<string>();
      let c: tls.DetailedPeerCertificate | undefined = peer;
      // The root's issuerCertificate is itself: stop on a repeated fingerprint.
      while (c !== undefined && c.raw !== undefined && !seen.has(c.fingerprint256) && chain.length < 16) {
        seen.add(c.fingerprint256);
        chain.push(c.raw);
        c = c.issuerCertificate;
      }
      if (chain.length === 0) throw new LookupError('upstream_error', `${describe(target)} completed a TLS handshake without sending a certificate`);
      const cipher = socket.getCipher();
      const err = socket.authorizationError as unknown;
      return {
        protocol: socket.getProtocol(),
        cipher: cipher === undefined ? null : (cipher.standardName ?? cipher.name),
        verifyError: socket.authorized ? null : typeof err === 'string' ? err : err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : 'CERT_UNTRUSTED',
        chain,
        leaf: peer,
      };
    });
  }

  /** One handshake forced to exactly `version`: accepted or not, and the suite the server chose. */
  async scan(target: TlsTarget, version: TlsVersion, signal: AbortSignal): Promise<ScanResult> {
    try {
      return await this.connect(target, this.context(version, version, false), signal, (socket) => {
        const cipher = socket.getCipher();
        return { accepted: socket.getProtocol() === version, cipher: cipher === undefined ? null : (cipher.standardName ?? cipher.name) };
      });
    } catch (e) {
      if (signal.aborted) throw e;
      return { accepted: false, cipher: null };
    }
  }

  /** One HTTPS `HEAD /` over the checked address; the Strict-Transport-Security header, or undefined. */
  hstsHeader(target: TlsTarget, hostHeader: string, signal: AbortSignal): Promise<string | undefined> {
    return new Promise((resolve) => {
      const req = https.request({
        host: target.address,
        port: target.port,
        ...(target.servername === null ? {} : { servername: target.servername }),
        method: 'HEAD',
        path: '/',
        headers: { host: hostHeader, 'user-agent': 'netintel-ssl-probe' },
        secureContext: this.context('TLSv1', 'TLSv1.3', false),
        rejectUnauthorized: false,
        checkServerIdentity: () => undefined,
        agent: false,
        signal,
        timeout: this.opts.timeoutMs,
      } as https.RequestOptions & { secureContext: tls.SecureContext });
      const timer = setTimeout(() => req.destroy(), this.opts.timeoutMs);
      const done = (v: string | undefined): void => {
        clearTimeout(timer);
        resolve(v);
      };
      req.on('response', (res) => {
        const h = res.headers['strict-transport-security'];
        res.resume();
        req.destroy();
        done(Array.isArray(h) ? h[0] : h);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => done(undefined));
      req.on('close', () => done(undefined));
      req.end();
    });
  }

  private connect<T>(target: TlsTarget, secureContext: tls.SecureContext, signal: AbortSignal, onSecure: (s: tls.TLSSocket) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      let settled = false;
      const socket = tls.connect({
        host: target.address,
        port: target.port,
        ...(target.servername === null ? {} : { servername: target.servername }),
        secureContext,
        rejectUnauthorized: false,
        // Hostname matching is done by the caller against the requested name (not the address).
        checkServerIdentity: () => undefined,
      });
      const finish = (err: unknown, value?: T): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        socket.destroy();
        if (err === null) resolve(value as T);
        else reject(err);
      };
      const timer = setTimeout(
        () => finish(new LookupError('upstream_timeout', `TLS handshake with ${describe(target)} did not complete within ${this.opts.timeoutMs} ms`)),
        this.opts.timeoutMs,
      );
      const onAbort = (): void => finish(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('secureConnect', () => {
        try {
          finish(null, onSecure(socket));
        } catch (e) {
          finish(e);
        }
      });
      socket.once('error', (e: NodeJS.ErrnoException) => finish(connectionError(target, e)));
      socket.once('close', () => finish(new LookupError('upstream_error', `${describe(target)} closed the connection during the TLS handshake`)));
    });
  }
}

const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ENETDOWN', 'EHOSTDOWN']);

function connectionError(target: TlsTarget, e: NodeJS.ErrnoException): LookupError {
  const where = describe(target);
  if (e.code === 'ECONNREFUSED') return new ConnectError('upstream_error', `Connection refused by ${where}`, {}, { cause: e });
  if (e.code !== undefined && CONNECT_CODES.has(e.code)) return new ConnectError('upstream_error', `${where} is unreachable (${e.code})`, {}, { cause: e });
  if (e.code === 'ECONNRESET') return new LookupError('upstream_error', `${where} reset the connection during the TLS handshake`, {}, { cause: e });
  // OpenSSL reasons ("wrong version number" for a plain-HTTP port, alerts) are safe to show.
  const r = (e as { reason?: unknown }).reason;
  const reason = typeof r === 'string' ? r : (e.code ?? 'handshake failed');
  return new LookupError('upstream_error', `${where} did not complete a TLS handshake: ${reason}`, {}, { cause: e });
}

function describe(t: TlsTarget): string {
  const host = t.servername ?? t.address;
  const addr = net.isIPv6(t.address) ? `[${t.address}]` : t.address;
  return t.servername === null ? quote(`${addr}:${t.port}`) : `${quote(host)} (${addr}:${t.port})`;
}
