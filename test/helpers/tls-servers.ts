// Loopback servers for the ssl tests: HTTPS targets with chosen certificates, protocol ranges and
// HSTS; a port that accepts and never handshakes; a refused port; a crt.sh-style CT search server.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type tls from 'node:tls';

export interface TestServer {
  readonly port: number;
  /** Requests received (HTTPS targets: every HEAD/GET; CT search: every query). */
  readonly requests: { method: string; url: string; host: string | undefined }[];
  /** HTTPS targets: serve another certificate to new connections (a renewal) on the same port. */
  setCertificate?(key: string, cert: string): void;
  close(): Promise<void>;
}

export interface TlsServerOptions {
  readonly key: string;
  /** Leaf PEM, optionally followed by intermediates. */
  readonly cert: string;
  readonly minVersion?: tls.SecureVersion;
  readonly maxVersion?: tls.SecureVersion;
  /** Strict-Transport-Security value to send, or none. */
  readonly hsts?: string;
  readonly host?: string;
}

// Weak test certificates (RSA-1024, SHA-1) and TLS 1.0/1.1 need security level 0 on the server too.
const TEST_CIPHERS = 'DEFAULT:@SECLEVEL=0';

export async function startTlsServer(o: TlsServerOptions): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const options = { minVersion: o.minVersion ?? 'TLSv1', maxVersion: o.maxVersion ?? 'TLSv1.3', ciphers: TEST_CIPHERS } as const;
  const server = https.createServer(
    { key: o.key, cert: o.cert, ...options },
    (req, res) => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host });
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if (o.hsts !== undefined) headers['strict-transport-security'] = o.hsts;
      res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : 'ok\n');
    },
  );
  // Handshake-only probes close without a request; keep those errors off the test output.
  server.on('tlsClientError', () => undefined);
  const started = await listen(server, o.host ?? '127.0.0.1', requests);
  return { ...started, setCertificate: (key, cert) => server.setSecureContext({ key, cert, ...options }) };
}

/** Accepts TCP connections and never answers: a TLS client must time out. */
export async function startHangServer(host = '127.0.0.1'): Promise<TestServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  const port = await new Promise<number>((resolve) => server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port)));
  return {
    port,
    requests: [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound once, then released). */
export async function refusedPort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  const port = await new Promise<number>((resolve) => server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port)));
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface CtSearchEntry {
  readonly issuer_ca_id?: number;
  readonly issuer_name: string;
  readonly common_name?: string;
  readonly name_value?: string;
  readonly id?: number;
  readonly entry_timestamp?: string;
  readonly not_before: string;
  readonly not_after: string;
  readonly serial_number: string;
}

/** crt.sh JSON API shape: GET /?q=<domain>&output=json → array of entries. `entries` by domain. */
export async function startCtSearchServer(entries: Readonly<Record<string, readonly CtSearchEntry[]>>, opts: { status?: number; body?: string } = {}): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host });
    const url = new URL(req.url ?? '/', 'http://x');
    const q = url.searchParams.get('q') ?? '';
    if (opts.status !== undefined || opts.body !== undefined) {
      res.writeHead(opts.status ?? 200, { 'content-type': 'application/json' }).end(opts.body ?? '');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(entries[q] ?? []));
  });
  return listen(server, '127.0.0.1', requests);
}

async function listen(server: http.Server | https.Server, host: string, requests: TestServer['requests']): Promise<TestServer> {
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port));
  });
  return {
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
