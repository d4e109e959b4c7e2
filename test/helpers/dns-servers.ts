// Real DNS servers on loopback for the dns tests: a zone served over UDP+TCP (dns2) and over DoH
// (node:http/https + dns2's Packet codec), plus resolvers that misbehave on purpose.
// Everything binds 127.0.0.1 on port 0. Names live under the invented zone `netintel.test`.
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

// dns2's typings omit parts of the codec we use (ad bit, EDNS helpers); this is the view we need.
interface WirePacket {
  header: Record<string, number>;
  questions: { name: string; type: number; class: number }[];
  answers: Record<string, unknown>[];
  authorities: Record<string, unknown>[];
  additionals: Record<string, unknown>[];
  toBuffer(): Buffer;
}
const Packet = dns2.Packet as unknown as {
  new (): WirePacket;
  parse(buf: Buffer): WirePacket;
  createResponseFromRequest(req: WirePacket): WirePacket;
};

export const ZONE = 'netintel.test';
export const T = { A: 1, NS: 2, CNAME: 5, SOA: 6, MX: 15, TXT: 16, AAAA: 28, SRV: 33, OPT: 41, CAA: 257 } as const;

type Rec = { type: number; ttl: number } & Record<string, unknown>;

/** 300 octets: more than one <character-string> can hold, so the zone stores it as 255 + 45. */
export const LONG_TXT = 'k=' + 'x'.repeat(298);
export const SOA_REC: Rec = {
  type: T.SOA, ttl: 3600,
  primary: `ns1.${ZONE}`, admin: `hostmaster.${ZONE}`, serial: 2026112201, refresh: 7200, retry: 3600, expiration: 1209600, minimum: 300,
};

function splitTxt(s: string): string[] {
  const out: string[] = [];
  const b = Buffer.from(s, 'utf8');
  for (let i = 0; i < b.length; i += 255) out.push(b.subarray(i, i + 255).toString('utf8'));
  return out;
}

/** The zone: every supported type, multiple records, a CNAME chain, an IDN, a TTL-0 name, a huge TXT set. */
export const RECORDS: Readonly<Record<string, Rec[]>> = {
  [ZONE]: [
    { type: T.A, ttl: 300, address: '192.0.2.1' },
    { type: T.A, ttl: 120, address: '192.0.2.2' },
    { type: T.AAAA, ttl: 300, address: '2001:db8::1' },
    { type: T.MX, ttl: 1800, priority: 10, exchange: `mx1.${ZONE}` },
    { type: T.MX, ttl: 1800, priority: 20, exchange: `mx2.${ZONE}` },
    { type: T.TXT, ttl: 600, data: ['v=spf1 -all'] },
    { type: T.TXT, ttl: 600, data: ['first part ', 'second "quoted" part'] },
    { type: T.TXT, ttl: 600, data: splitTxt(LONG_TXT) },
    { type: T.NS, ttl: 86400, ns: `ns1.${ZONE}` },
    { type: T.NS, ttl: 86400, ns: `ns2.${ZONE}` },
    SOA_REC,
    { type: T.CAA, ttl: 3600, flags: 0, tag: 'issue', value: 'letsencrypt.org' },
    { type: T.CAA, ttl: 3600, flags: 128, tag: 'iodef', value: `mailto:security@${ZONE}` },
  ],
  [`_sip._tcp.${ZONE}`]: [
    { type: T.SRV, ttl: 300, priority: 10, weight: 5, port: 5060, target: `sip.${ZONE}` },
    { type: T.SRV, ttl: 300, priority: 20, weight: 0, port: 5060, target: `sip2.${ZONE}` },
  ],
  [`www.${ZONE}`]: [{ type: T.CNAME, ttl: 900, domain: `web.${ZONE}` }],
  [`web.${ZONE}`]: [{ type: T.CNAME, ttl: 60, domain: `host.${ZONE}` }],
  [`host.${ZONE}`]: [{ type: T.A, ttl: 300, address: '192.0.2.10' }],
  [`xn--bcher-kva.${ZONE}`]: [{ type: T.A, ttl: 300, address: '192.0.2.20' }],
  [`zero.${ZONE}`]: [{ type: T.A, ttl: 0, address: '192.0.2.30' }],
  [`big.${ZONE}`]: Array.from({ length: 40 }, (_, i) => ({ type: T.TXT, ttl: 300, data: [`record ${i} ${'y'.repeat(60)}`] })),
};

export interface QueryLog {
  /** Every question received, as "name TYPE-number transport". */
  readonly seen: string[];
  count(name: string, type: number): number;
  /** Header flags and EDNS presence of the last query. */
  last: { ad: number; rd: number; edns: boolean; ednsSize: number } | null;
}

function newLog(): QueryLog {
  const seen: string[] = [];
  return {
    seen,
    count: (name, type) => seen.filter((s) => s.startsWith(`${name.toLowerCase()} ${type} `)).length,
    last: null,
  };
}

export interface ZoneOptions {
  /** Set the AD bit on every answer (a "validating" resolver). */
  authenticated?: boolean;
}

/** Builds the zone's response to a parsed query. */
export function answer(req: WirePacket, opts: ZoneOptions = {}): WirePacket {
  const res = Packet.createResponseFromRequest(req);
  res.header['ra'] = 1;
  res.header['ad'] = opts.authenticated === true ? 1 : 0;
  const q = req.questions[0];
  if (q === undefined) {
    res.header['rcode'] = 1;
    return res;
  }
  const name = q.name.toLowerCase();
  if (name !== ZONE && !name.endsWith(`.${ZONE}`)) {
    res.header['rcode'] = 5;
    return res;
  }
  let owner = name;
  for (let hops = 0; hops < 8; hops++) {
    const recs = RECORDS[owner];
    if (recs === undefined) {
      // RFC 6604: the RCODE describes the last name of a CNAME chain.
      res.header['rcode'] = 3;
      res.authorities.push({ name: ZONE, class: 1, ...SOA_REC });
      return res;
    }
    const cname = recs.find((r) => r.type === T.CNAME);
    if (cname !== undefined && q.type !== T.CNAME) {
      res.answers.push({ name: owner, class: 1, ...cname });
      owner = String(cname['domain']);
      continue;
    }
    const matching = recs.filter((r) => r.type === q.type);
    for (const r of matching) res.answers.push({ name: owner, class: 1, ...r });
    if (res.answers.length === 0) res.authorities.push({ name: ZONE, class: 1, ...SOA_REC });
    return res;
  }
  res.header['rcode'] = 2;
  return res;
}

function record(log: QueryLog, req: WirePacket, transport: string): void {
  const q = req.questions[0];
  if (q !== undefined) log.seen.push(`${q.name.toLowerCase()} ${q.type} ${transport}`);
  const opt = req.additionals.find((r) => r['type'] === T.OPT);
  log.last = { ad: req.header['ad'] ?? 0, rd: req.header['rd'] ?? 0, edns: opt !== undefined, ednsSize: Number(opt?.['class'] ?? 0) };
}

export interface ZoneServer {
  readonly udp: string;
  readonly tcp: string;
  readonly log: QueryLog;
  close(): Promise<void>;
}

/** The zone over classic DNS: dns2's UDP and TCP servers on one port pair. */
export async function startZoneServer(opts: ZoneOptions = {}): Promise<ZoneServer> {
  const log = newLog();
  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle: (request: unknown, send: (p: unknown) => void, rinfo: unknown) => {
      const req = request as WirePacket;
      record(log, req, rinfo instanceof net.Socket ? 'tcp' : 'udp');
      send(answer(req, opts));
    },
  } as never) as unknown as {
    listening: Promise<unknown>;
    close(): Promise<void>;
    servers: { tcp: net.Server };
  };
  // UDP and TCP share one port, as on a real resolver, so a truncated UDP answer can be retried over
  // TCP. Bind UDP on a free port first, then TCP on the same number.
  const udpServer = (server as unknown as { servers: { udp: dgram.Socket } }).servers.udp;
  await new Promise<void>((resolve) => udpServer.bind(0, '127.0.0.1', () => resolve()));
  const port = udpServer.address().port;
  await new Promise<void>((resolve, reject) => {
    server.servers.tcp.once('error', reject);
    server.servers.tcp.listen(port, '127.0.0.1', () => resolve());
  });
  await server.listening;
  const addrs = { udp: { port }, tcp: { port } };
  const sockets = new Set<net.Socket>();
  server.servers.tcp.on('connection', (s: net.Socket) => { sockets.add(s); s.once('close', () => sockets.delete(s)); });
  return {
    udp: `udp://127.0.0.1:${addrs.udp.port}`,
    tcp: `tcp://127.0.0.1:${addrs.tcp.port}`,
    log,
    close: async () => {
      for (const s of sockets) s.destroy();
      await server.close();
    },
  };
}

export type DohBehaviour = 'zone' | 'http-500' | 'wrong-content-type' | 'hang' | 'garbage';

export interface DohServer {
  readonly url: string;
  readonly log: QueryLog;
  readonly headers: http.IncomingHttpHeaders[];
  behaviour: DohBehaviour;
  close(): Promise<void>;
}

/** The zone over RFC 8484 POST; `tls` makes it HTTPS. */
export async function startDohServer(opts: ZoneOptions & { tls?: { key: string; cert: string }; behaviour?: DohBehaviour } = {}): Promise<DohServer> {
  const log = newLog();
  const headers: http.IncomingHttpHeaders[] = [];
  const state: { behaviour: DohBehaviour } = { behaviour: opts.behaviour ?? 'zone' };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      headers.push(req.headers);
      if (req.method !== 'POST' || req.url !== '/dns-query') {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      let parsed: WirePacket;
      try {
        parsed = Packet.parse(body);
      } catch {
        res.writeHead(400).end();
        return;
      }
      record(log, parsed, 'doh');
      switch (state.behaviour) {
        case 'hang':
          return; // never answers; the client must give up on its own
        case 'http-500':
          res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
          return;
        case 'wrong-content-type':
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
          return;
        case 'garbage': {
          const junk = Buffer.from('this is not a dns message at all, just junk');
          body.copy(junk, 0, 0, 2); // right id, nonsense after it
          res.writeHead(200, { 'content-type': 'application/dns-message' }).end(junk);
          return;
        }
        case 'zone':
          res.writeHead(200, { 'content-type': 'application/dns-message' }).end(answer(parsed, opts).toBuffer());
      }
    });
  };
  const server = opts.tls !== undefined ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls !== undefined ? 'https' : 'http'}://127.0.0.1:${port}/dns-query`,
    log,
    headers,
    get behaviour() { return state.behaviour; },
    set behaviour(b: DohBehaviour) { state.behaviour = b; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

export type UdpBehaviour = 'servfail' | 'silent' | 'garbage' | 'wrong-id' | 'wrong-question' | 'truncated-body';

export interface RawUdpServer {
  readonly url: string;
  readonly received: () => number;
  close(): Promise<void>;
}

/** A UDP "resolver" that misbehaves in one specific way. */
export async function startBadUdpServer(behaviour: UdpBehaviour): Promise<RawUdpServer> {
  const sock = dgram.createSocket('udp4');
  let received = 0;
  sock.on('message', (msg, rinfo) => {
    received++;
    let reply: Buffer | null = null;
    let req: WirePacket | null = null;
    try {
      req = Packet.parse(msg);
    } catch {
      return;
    }
    switch (behaviour) {
      case 'silent':
        return;
      case 'servfail': {
        const res = Packet.createResponseFromRequest(req);
        res.header['rcode'] = 2;
        reply = res.toBuffer();
        break;
      }
      case 'garbage':
        reply = Buffer.concat([msg.subarray(0, 2), Buffer.from([0x81, 0x80, 0, 1, 0, 5, 0, 0, 0, 0, 0xff, 0xfe, 0x13])]);
        break;
      case 'wrong-id': {
        const res = answer(req);
        res.header['id'] = ((req.header['id'] ?? 0) + 1) & 0xffff;
        reply = res.toBuffer();
        break;
      }
      case 'wrong-question': {
        const res = answer(req);
        res.questions = [{ name: `other.${ZONE}`, type: req.questions[0]?.type ?? 1, class: 1 }];
        reply = res.toBuffer();
        break;
      }
      case 'truncated-body': {
        const full = answer(req).toBuffer();
        reply = full.subarray(0, Math.max(14, full.length - 7));
        break;
      }
    }
    sock.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', resolve));
  return {
    url: `udp://127.0.0.1:${sock.address().port}`,
    received: () => received,
    close: () => new Promise<void>((resolve) => sock.close(() => resolve())),
  };
}

/** A UDP port on loopback with nothing listening (the kernel answers port-unreachable). */
export async function deadUdpUrl(): Promise<string> {
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', resolve));
  const port = sock.address().port;
  await new Promise<void>((resolve) => sock.close(() => resolve()));
  return `udp://127.0.0.1:${port}`;
}

export interface TestCa {
  readonly caFile: string;
  readonly key: string;
  readonly cert: string;
}

/** A throwaway CA and a leaf for 127.0.0.1/localhost, made with the openssl CLI in `dir`. */
export function makeTestCa(dir: string): TestCa {
  const f = (n: string): string => path.join(dir, n);
  const run = (args: string[]): void => { execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' }); };
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '2', '-subj', '/CN=netintel test CA']);
  run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f('leaf.key'), '-out', f('leaf.csr'), '-subj', '/CN=localhost']);
  fs.writeFileSync(f('leaf.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  run(['x509', '-req', '-in', f('leaf.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('leaf.crt'), '-days', '2', '-extfile', f('leaf.ext')]);
  return { caFile: f('ca.crt'), key: fs.readFileSync(f('leaf.key'), 'utf8'), cert: fs.readFileSync(f('leaf.crt'), 'utf8') };
}
