// Loopback RDAP (HTTP) and WHOIS (TCP) servers with named fixture sets, for the whois tests.
// Every server listens on 127.0.0.1 port 0, counts what it was asked, and can be re-pointed per
// domain at run time (`rdap.set('full.com', '500')`) so a test can make an upstream fail on cue.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';

// ---------------------------------------------------------------- RDAP fixtures (RFC 9083)

const vcard = (props: unknown[][]): unknown[] => ['vcard', [['version', {}, 'text', '4.0'], ...props]];

export function rdapFull(name: string): Record<string, unknown> {
  return {
    objectClassName: 'domain',
    rdapConformance: ['rdap_level_0', 'icann_rdap_response_profile_1'],
    handle: '2336799_DOMAIN_COM-VRSN',
    ldhName: name.toUpperCase(),
    status: ['client delete prohibited', 'client transfer prohibited', 'clientUpdateProhibited'],
    events: [
      { eventAction: 'registration', eventDate: '1995-08-14T04:00:00Z' },
      { eventAction: 'expiration', eventDate: '2026-08-13T04:00:00.000Z' },
      { eventAction: 'last changed', eventDate: '2025-08-14T07:01:39Z' },
      { eventAction: 'last update of RDAP database', eventDate: '2026-11-20T02:00:00Z' },
    ],
    nameservers: [
      { objectClassName: 'nameserver', ldhName: 'A.IANA-SERVERS.NET.' },
      { objectClassName: 'nameserver', ldhName: 'b.iana-servers.net' },
    ],
    secureDNS: { delegationSigned: true },
    entities: [
      {
        objectClassName: 'entity',
        roles: ['registrar'],
        publicIds: [{ type: 'IANA Registrar ID', identifier: '376' }],
        vcardArray: vcard([['fn', {}, 'text', 'Example Registrar, Inc.'], ['url', {}, 'uri', 'https://registrar.example']]),
        entities: [
          {
            objectClassName: 'entity',
            roles: ['abuse'],
            vcardArray: vcard([
              ['fn', {}, 'text', 'Abuse desk'],
              ['tel', { type: ['voice'] }, 'uri', 'tel:+1.5555550100'],
              ['tel', { type: ['fax'] }, 'uri', 'tel:+1.5555550199'],
              ['email', {}, 'text', 'abuse@registrar.example'],
            ]),
          },
        ],
      },
      {
        objectClassName: 'entity',
        roles: ['registrant'],
        vcardArray: vcard([
          ['fn', {}, 'text', 'Jane Doe'],
          ['org', {}, 'text', 'Example Org'],
          ['adr', { cc: 'us' }, 'text', ['', '', '1 Main St', 'Springfield', 'IL', '62701', 'United States']],
          ['email', {}, 'text', 'mailto:jane@example.org'],
        ]),
      },
    ],
    links: [{ value: `https://rdap.example/domain/${name}`, rel: 'self', href: `https://rdap.example/domain/${name}`, type: 'application/rdap+json' }],
  };
}

export function rdapRedacted(name: string): Record<string, unknown> {
  return {
    objectClassName: 'domain',
    ldhName: name,
    status: ['active'],
    events: [{ eventAction: 'registration', eventDate: '2001-02-03T04:05:06Z' }],
    nameservers: [{ objectClassName: 'nameserver', ldhName: 'ns1.example.net' }],
    secureDNS: { delegationSigned: false },
    entities: [
      { objectClassName: 'entity', roles: ['registrar'], vcardArray: vcard([['fn', {}, 'text', 'Privacy Registrar']]) },
      {
        objectClassName: 'entity',
        roles: ['registrant'],
        remarks: [{ title: 'REDACTED FOR PRIVACY', description: ['Some of the data in this object has been removed.'] }],
        vcardArray: vcard([
          ['fn', {}, 'text', 'REDACTED FOR PRIVACY'],
          ['org', {}, 'text', 'Example Org'],
          ['adr', {}, 'text', ['', '', '', '', '', '', 'US']],
          ['email', {}, 'text', 'Please query the RDDS service of the Registrar of Record identified in this output'],
        ]),
      },
    ],
    redacted: [{ name: { type: 'Registrant Name' }, prePath: "$.entities[?(@.roles[0]=='registrant')].vcardArray[1][?(@[0]=='fn')][3]", method: 'removal' }],
  };
}

/** Numbers as strings, an event without a date, a headerless upper-case vCard, "true" as a string. */
export function rdapQuirky(name: string): Record<string, unknown> {
  return {
    ldhName: name,
    status: ['ok', 'serverHold'],
    events: [
      { eventAction: 'registration' },
      { eventAction: 'registration', eventDate: '2010-05-06 07:08:09' },
      { eventAction: 'expiration', eventDate: 'soon' },
      { eventAction: 'LAST CHANGED', eventDate: '2020-01-02T03:04:05+02:00' },
    ],
    nameservers: [{ unicodeName: 'NS.Example.ORG' }, 'not-an-object', { ldhName: 12 }],
    secureDNS: { delegationSigned: 'true' },
    entities: [
      {
        roles: ['REGISTRAR'],
        publicIds: [{ type: 'IANA Registrar ID', identifier: 9999 }],
        vcardArray: [['FN', {}, 'text', 'Quirky Registrar'], ['ORG', {}, 'text', ['Quirky', 'Dept']], ['TEL', {}, 'uri']],
      },
      { roles: 'registrant', vcardArray: 'nonsense' },
      {
        roles: ['registrant'],
        vcardArray: ['vcard', [['kind', {}, 'text', 'org'], ['fn', {}, 'text', 'Quirky Holdings'], ['adr', { cc: 'de' }, 'text', 'not-a-list']]],
      },
    ],
  };
}

export function rdapRegistry(name: string, registrarUrl: string): Record<string, unknown> {
  return {
    objectClassName: 'domain',
    ldhName: name,
    status: ['client transfer prohibited'],
    events: [
      { eventAction: 'registration', eventDate: '2015-01-01T00:00:00Z' },
      { eventAction: 'expiration', eventDate: '2030-01-01T00:00:00Z' },
    ],
    nameservers: [{ ldhName: 'ns1.linked.example' }],
    entities: [{ roles: ['registrar'], publicIds: [{ type: 'IANA Registrar ID', identifier: '1234' }], vcardArray: vcard([['fn', {}, 'text', 'Linked Registrar']]) }],
    links: [
      { rel: 'self', href: `http://registry.invalid/domain/${name}`, type: 'application/rdap+json' },
      { rel: 'related', href: 'https://registrar.example/whois-web', type: 'text/html' },
      { rel: 'related', href: registrarUrl, type: 'application/rdap+json' },
    ],
  };
}

export function rdapRegistrarCopy(name: string): Record<string, unknown> {
  return {
    objectClassName: 'domain',
    ldhName: name,
    events: [{ eventAction: 'expiration', eventDate: '2031-01-01T00:00:00Z' }],
    entities: [
      {
        roles: ['registrar'],
        vcardArray: vcard([['fn', {}, 'text', 'Linked Registrar']]),
        entities: [{ roles: ['abuse'], vcardArray: vcard([['email', {}, 'text', 'abuse@linked.example'], ['tel', {}, 'text', '+1.5550000']]) }],
      },
      {
        roles: ['registrant'],
        vcardArray: vcard([['fn', {}, 'text', 'Link Holder'], ['adr', {}, 'text', ['', '', '', '', '', '', 'FR']], ['email', {}, 'text', 'holder@linked.example']]),
      },
    ],
  };
}

// ---------------------------------------------------------------- RDAP server

export type RdapFixture =
  | 'full' | 'redacted' | 'quirky' | 'linked' | 'not-json' | 'wrong-class' | 'error-object-404' | 'huge'
  | '404' | '500' | 'slow' | 'redirect' | 'held';

export interface RdapServer {
  readonly url: string;
  readonly port: number;
  /** Requests received, by path. */
  readonly hits: Map<string, number>;
  /** Overrides the fixture chosen for a domain (default: its first label, else 404). */
  set(domain: string, fixture: RdapFixture | null): void;
  total(): number;
  /** Answers every request parked on the 'held' fixture (full record). */
  release(): void;
  close(): Promise<void>;
}

const FIXTURE_BY_LABEL: Readonly<Record<string, RdapFixture>> = {
  full: 'full', redacted: 'redacted', quirky: 'quirky', linked: 'linked', notjson: 'not-json', wrongclass: 'wrong-class',
  errobj: 'error-object-404', huge: 'huge', broken: '500', slow: 'slow', moved: 'redirect', idn: 'full', 'xn--bcher-kva': 'full',
};

export interface RdapServerOptions {
  readonly slowMs?: number;
  /** Serve HTTPS with this key and certificate chain (PEM). */
  readonly tls?: { readonly key: string; readonly cert: string };
}

export async function startRdapServer(opts: RdapServerOptions = {}): Promise<RdapServer> {
  const overrides = new Map<string, RdapFixture | null>();
  const hits = new Map<string, number>();
  const pending = new Set<NodeJS.Timeout>();
  let held: (() => void)[] = [];
  let base = '';
  const handler: http.RequestListener = (req, res) => {
    const p = (req.url ?? '/').split('?')[0]!;
    hits.set(p, (hits.get(p) ?? 0) + 1);
    const send = (status: number, body: unknown, type = 'application/rdap+json'): void => {
      res.writeHead(status, { 'content-type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const registrarCopy = /^\/registrar\/domain\/([^/]+)$/.exec(p);
    if (registrarCopy !== null) return send(200, rdapRegistrarCopy(decodeURIComponent(registrarCopy[1]!)));
    const m = /^\/domain\/([^/]+)$/.exec(p);
    if (m === null) return send(404, { errorCode: 404, title: 'Not Found' });
    const name = decodeURIComponent(m[1]!).toLowerCase();
    const fixture = overrides.has(name) ? overrides.get(name)! : (FIXTURE_BY_LABEL[name.split('.')[0]!] ?? '404');
    switch (fixture) {
      case 'full': return send(200, rdapFull(name));
      case 'redacted': return send(200, rdapRedacted(name));
      case 'quirky': return send(200, rdapQuirky(name));
      case 'linked': return send(200, rdapRegistry(name, `${base}registrar/domain/${name}`));
      case 'not-json': return send(200, '<html>maintenance</html>', 'text/html');
      case 'wrong-class': return send(200, { objectClassName: 'entity', handle: 'X' });
      case 'error-object-404': return send(200, { errorCode: 404, title: 'Not Found' });
      case 'huge': return send(200, JSON.stringify({ ...rdapFull(name), padding: 'x'.repeat(2 * 1024 * 1024) }));
      case '500': return send(500, { errorCode: 500, title: 'Internal error' });
      case 'redirect': {
        res.writeHead(302, { location: `${base}domain/full.com` });
        return res.end();
      }
      case 'held':
        held.push(() => send(200, rdapFull(name)));
        return;
      case 'slow': {
        const t = setTimeout(() => {
          pending.delete(t);
          send(200, rdapFull(name));
        }, opts.slowMs ?? 5000);
        pending.add(t);
        return;
      }
      case '404':
      case null:
      default:
        return send(404, { errorCode: 404, title: 'Not Found', description: ['The object does not exist'] });
    }
  };
  const server = opts.tls === undefined ? http.createServer(handler) : https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  base = `${opts.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}/`;
  return {
    url: base,
    port,
    hits,
    set: (domain, fixture) => void overrides.set(domain, fixture),
    total: () => [...hits.values()].reduce((a, b) => a + b, 0),
    release: () => {
      const waiting = held;
      held = [];
      for (const answer of waiting) answer();
    },
    close: async () => {
      for (const t of pending) clearTimeout(t);
      held = [];
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------- WHOIS fixtures

export const verisignAnswer = (domain: string, registrarWhois: string | null): string =>
  [
    `   Domain Name: ${domain.toUpperCase()}`,
    '   Registry Domain ID: 2336799_DOMAIN_COM-VRSN',
    ...(registrarWhois === null ? [] : [`   Registrar WHOIS Server: ${registrarWhois}`]),
    '   Registrar URL: http://www.registrar.example',
    '   Updated Date: 2024-08-14T07:01:34Z',
    '   Creation Date: 1995-08-14T04:00:00Z',
    '   Registry Expiry Date: 2025-08-13T04:00:00Z',
    '   Registrar: Example Registrar, Inc.',
    '   Registrar IANA ID: 376',
    '   Registrar Abuse Contact Email: abuse@registrar.example',
    '   Registrar Abuse Contact Phone: +1.5555550100',
    '   Domain Status: clientDeleteProhibited https://icann.org/epp#clientDeleteProhibited',
    '   Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited',
    '   Name Server: A.IANA-SERVERS.NET',
    '   Name Server: B.IANA-SERVERS.NET',
    '   DNSSEC: signedDelegation',
    '   URL of the ICANN Whois Inaccuracy Complaint Form: https://www.icann.org/wicf/',
    '>>> Last update of whois database: 2026-11-20T02:00:00Z <<<',
    '',
    'NOTICE: The expiration date displayed in this record is the date the registrar\'s sponsorship of the domain name registration in the registry is currently set to expire.',
    '',
  ].join('\r\n');

export const registrarAnswer = (domain: string): string =>
  [
    `Domain Name: ${domain}`,
    'Registrar: Example Registrar, Inc.',
    'Registrar Registration Expiration Date: 2025-08-13T04:00:00Z',
    'Registrant Name: Jane Doe',
    'Registrant Organization: Example Org',
    'Registrant Country: us',
    'Registrant Email: jane@example.org',
    '',
  ].join('\n');

export const denicAnswer = (domain: string): string =>
  [
    '% Restricted rights.',
    '%',
    `Domain: ${domain}`,
    'Nserver: ns1.denic.example',
    'Nserver: ns2.denic.example 192.0.2.53',
    'Dnskey: 257 3 8 AwEAAb...',
    'Status: connect',
    'Changed: 2018-03-12T21:44:25+01:00',
    '',
  ].join('\n');

export const noMatchAnswer = (domain: string): string => `No match for "${domain.toUpperCase()}".\r\n>>> Last update of whois database: 2026-11-20T02:00:00Z <<<\r\n`;

export type WhoisBehaviour = string | Buffer | { readonly kind: 'hang-after'; readonly text: string } | { readonly kind: 'silent' } | { readonly kind: 'huge'; readonly text: string; readonly bytes: number } | { readonly kind: 'reset' };

export interface WhoisServer {
  readonly port: number;
  /** `127.0.0.1:port`, the form referrals use. */
  readonly address: string;
  /** Queries received, in order. */
  readonly queries: string[];
  set(query: string, behaviour: WhoisBehaviour | null): void;
  close(): Promise<void>;
}

/** A WHOIS server: `answer(query)` (or a per-query override) decides what it does. */
export async function startWhoisServer(answer: (query: string) => WhoisBehaviour): Promise<WhoisServer> {
  const overrides = new Map<string, WhoisBehaviour | null>();
  const queries: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = '';
    socket.on('data', (d) => {
      buf += d.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl < 0 || buf.length > 4096) return;
      const q = buf.slice(0, nl).replace(/\r$/, '');
      buf = '';
      queries.push(q);
      const b = overrides.get(q.toLowerCase()) ?? answer(q.toLowerCase());
      if (typeof b === 'string' || Buffer.isBuffer(b)) {
        socket.end(b);
      } else if (b.kind === 'hang-after') {
        socket.write(b.text);
      } else if (b.kind === 'silent') {
        // Accepts and never answers.
      } else if (b.kind === 'reset') {
        socket.resetAndDestroy();
      } else {
        socket.write(b.text);
        const junk = Buffer.alloc(64 * 1024, '% filler line to make the answer huge\n');
        let sent = 0;
        const pump = (): void => {
          while (sent < b.bytes && !socket.destroyed) {
            sent += junk.length;
            if (!socket.write(junk)) return void socket.once('drain', pump);
          }
          if (!socket.destroyed) socket.end();
        };
        pump();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    queries,
    set: (q, b) => void overrides.set(q.toLowerCase(), b),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------- the whole upstream world

export interface Upstreams {
  readonly rdap: RdapServer;
  readonly root: WhoisServer;
  readonly registry: WhoisServer;
  readonly registrar: WhoisServer;
  readonly de: WhoisServer;
  readonly loopA: WhoisServer;
  readonly loopB: WhoisServer;
  readonly stuck: WhoisServer;
  readonly bootstrapFile: string;
  close(): Promise<void>;
}

/**
 * RDAP serves .com and .co.uk (bootstrap file); .org points at a closed port. The WHOIS root
 * refers .com/.net/.org to `registry` (Verisign style, naming `registrar`), .de to a DENIC-style
 * server, .loop to a pair that refer to each other, .hang to a server that never closes or never
 * answers, and knows nothing about any other TLD.
 */
export async function startUpstreams(dir: string, opts: { slowMs?: number; extraServices?: [string[], string[]][] } = {}): Promise<Upstreams> {
  const rdap = await startRdapServer(opts.slowMs === undefined ? {} : { slowMs: opts.slowMs });
  const registrar = await startWhoisServer((q) => registrarAnswer(q));
  const registry = await startWhoisServer((q) => {
    if (q.startsWith('nomatch.') || q.startsWith('gone.')) return noMatchAnswer(q);
    if (q.startsWith('huge.')) return { kind: 'huge', text: verisignAnswer(q, null), bytes: 2 * 1024 * 1024 };
    if (q.startsWith('reset.')) return { kind: 'reset' };
    if (q.startsWith('thin.')) return verisignAnswer(q, null);
    return verisignAnswer(q, registrar.address);
  });
  const de = await startWhoisServer((q) => (q.startsWith('frei.') ? `Domain: ${q}\nStatus: free\n` : denicAnswer(q)));
  // loopB is created after loopA, so loopA learns its address through an override.
  const loopA = await startWhoisServer(() => 'refer: 127.0.0.1:1\n');
  const loopB = await startWhoisServer((q) => (q.startsWith('data.') ? verisignAnswer(q, loopA.address) : `Registrar WHOIS Server: ${loopA.address}\n`));
  const loopAnswer = (q: string): string => (q.startsWith('data.') ? verisignAnswer(q, loopB.address) : `Registrar WHOIS Server: ${loopB.address}\n`);
  for (const q of ['data.loop', 'pure.loop']) loopA.set(q, loopAnswer(q));
  const stuck = await startWhoisServer((q) =>
    q.startsWith('silent.') ? { kind: 'silent' } : { kind: 'hang-after', text: verisignAnswer(q, null) },
  );
  const root = await startWhoisServer((q) => {
    const refer: Record<string, WhoisServer> = { com: registry, net: registry, org: registry, de, loop: loopA, hang: stuck };
    const target = refer[q];
    if (target === undefined) return `% IANA WHOIS server\n% This query returned 0 objects.\n`;
    return `% IANA WHOIS server\n\nrefer:        ${target.address}\n\ndomain:       ${q.toUpperCase()}\nwhois:        ${target.address}\n`;
  });
  const bootstrapFile = path.join(dir, 'dns.json');
  writeBootstrap(bootstrapFile, rdap.url, opts.extraServices ?? []);
  return {
    rdap, root, registry, registrar, de, loopA, loopB, stuck, bootstrapFile,
    close: async () => {
      await Promise.all([rdap, root, registry, registrar, de, loopA, loopB, stuck].map((s) => s.close()));
    },
  };
}

export function writeBootstrap(file: string, rdapBase: string, extra: [string[], string[]][] = []): void {
  fs.writeFileSync(
    file,
    JSON.stringify({
      version: '1.0',
      publication: '2026-11-20T20:00:02Z',
      description: 'Test bootstrap (loopback)',
      services: [[['com', 'co.uk'], [rdapBase]], [['org'], ['http://127.0.0.1:1/']], ...extra],
    }),
  );
}
