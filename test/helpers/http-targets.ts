// Loopback HTTP/HTTPS servers with the behaviours a ping target can have, for unit and integration tests.
// Every server binds port 0 on loopback and counts the TCP connections it accepted.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export type Behaviour =
  /** 200 at once. */
  | 'fast'
  /** 200, but the requests numbered in `slowRequests` (1-based, per server) wait `delayMs` first. */
  | 'slow'
  /** 405 with `Allow: GET` to HEAD; 200 with a small body to GET. */
  | 'head405'
  /** 200 with `Connection: close`: every response ends its connection. */
  | 'close'
  /** Reads the request and never answers. */
  | 'silent';

export interface TargetOptions {
  readonly behaviour: Behaviour;
  readonly tls?: boolean;
  readonly host?: string;
  readonly slowRequests?: readonly number[];
  readonly delayMs?: number;
  /** Listen on this port instead of a free one (e.g. the port a refused probe saw). */
  readonly port?: number;
}

export interface RequestSeen {
  readonly method: string;
  readonly host: string | undefined;
  readonly servername: string | null;
}

export interface TargetServer {
  readonly port: number;
  /** TCP connections accepted so far. */
  readonly connections: () => number;
  readonly requests: RequestSeen[];
  close(): Promise<void>;
}

let certCache: { key: string; cert: string } | null = null;

/** A throwaway self-signed certificate for CN=localhost, made once per test process with the openssl CLI. */
export function selfSignedCert(): { key: string; cert: string } {
  if (certCache !== null) return certCache;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netintel-cert-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-subj', '/CN=localhost', '-days', '2', '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  certCache = { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
  fs.rmSync(dir, { recursive: true, force: true });
  return certCache;
}

export async function startHttpTarget(opts: TargetOptions): Promise<TargetServer> {
  const requests: RequestSeen[] = [];
  const pending = new Set<http.ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  let connections = 0;
  const handler: http.RequestListener = (req, res) => {
    const seq = requests.length + 1;
    const tlsSocket = req.socket as { servername?: string | false };
    requests.push({ method: req.method ?? '', host: req.headers.host, servername: typeof tlsSocket.servername === 'string' ? tlsSocket.servername : null });
    switch (opts.behaviour) {
      case 'fast':
        res.end('ok');
        return;
      case 'slow': {
        if (!(opts.slowRequests ?? []).includes(seq)) {
          res.end('ok');
          return;
        }
        pending.add(res);
        const t = setTimeout(() => {
          timers.delete(t);
          pending.delete(res);
          if (!res.destroyed) res.end('late');
        }, opts.delayMs ?? 1000);
        timers.add(t);
        return;
      }
      case 'head405':
        if (req.method === 'HEAD') {
          res.writeHead(405, { allow: 'GET' }).end();
        } else {
          res.end('x'.repeat(1000));
        }
        return;
      case 'close':
        res.setHeader('connection', 'close');
        res.end('ok');
        return;
      case 'silent':
        pending.add(res);
        return;
    }
  };
  const server = opts.tls === true
    ? https.createServer({ ...selfSignedCert(), keepAliveTimeout: 5000 }, handler)
    : http.createServer({ keepAliveTimeout: 5000 }, handler);
  server.on('connection', () => connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    requests,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const r of pending) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A TCP server that accepts connections and never sends a byte (TLS handshakes to it hang). */
export async function startSilentTcp(host = '127.0.0.1'): Promise<TargetServer> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    requests: [],
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port nothing listens on: bound once to get a free number, then released. */
export async function refusedPort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
