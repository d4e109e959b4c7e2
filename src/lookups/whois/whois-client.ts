// Port-43 WHOIS (RFC 3912): one query per TCP connection, and the root → registry → registrar chain.
import net from 'node:net';
import { LookupError } from '../../http/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { Metrics } from '../../platform/metrics.js';
import { parseWhois, type WhoisParse } from './whois-parse.js';
import { mergeRegistration, type Registration } from './types.js';

export interface WhoisAnswer {
  readonly text: string;
  /** The answer hit the size cap and was cut. */
  readonly truncated: boolean;
  /** The server kept the connection open past the timeout; the answer is what arrived until then. */
  readonly cutOff: boolean;
}

export interface ServerAddress {
  readonly host: string;
  readonly port: number;
}

/** `host`, `host:port`, `[v6]:port`, `v6` → address; port 43 by default. */
export function parseServerAddress(server: string): ServerAddress {
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(server);
  if (bracket !== null) return { host: bracket[1]!, port: bracket[2] === undefined ? 43 : Number(bracket[2]) };
  if (net.isIPv6(server)) return { host: server, port: 43 };
  const m = /^(.*?)(?::(\d+))?$/.exec(server)!;
  return { host: m[1]!, port: m[2] === undefined ? 43 : Number(m[2]) };
}

export interface QueryOptions {
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/**
 * Sends `query` and reads until the server closes. Bounded twice: at `maxBytes` the answer is cut
 * (the registration data comes first; the tail is legal text), and at `timeoutMs` a server that
 * has sent something is cut off with what it sent, one that has sent nothing is a timeout.
 */
export function queryWhoisServer(server: string, query: string, opts: QueryOptions): Promise<WhoisAnswer> {
  const { host, port } = parseServerAddress(server);
  return new Promise<WhoisAnswer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const socket = net.connect({ host, port });
    const finish = (truncated: boolean, cutOff: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: decode(Buffer.concat(chunks, Math.min(size, opts.maxBytes))), truncated, cutOff });
    };
    const fail = (err: LookupError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(() => {
      if (size > 0) finish(false, true);
      else fail(new LookupError('upstream_timeout', `WHOIS server ${server} did not answer within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    socket.setNoDelay(true);
    socket.once('connect', () => socket.write(`${query}\r\n`));
    socket.on('data', (chunk: Buffer) => {
      const room = opts.maxBytes - size;
      if (room > 0) chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += chunk.length;
      if (size > opts.maxBytes) finish(true, false);
    });
    socket.once('end', () => finish(false, false));
    socket.once('close', () => finish(false, false));
    socket.once('error', (e: NodeJS.ErrnoException) => {
      if (size > 0) finish(false, false);
      else fail(new LookupError('upstream_error', `WHOIS server ${server} could not be reached (${e.code ?? 'error'})`));
    });
  });
}

// Registries answer in UTF-8 today; older ones still send Latin-1, which is never invalid.
// Stream mode drops a character cut in half by the size cap instead of failing the whole answer.
function decode(buf: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf, { stream: true });
  } catch {
    return buf.toString('latin1');
  }
}

export interface WhoisHop {
  readonly server: string;
  readonly answer: WhoisAnswer;
  readonly parsed: WhoisParse;
}

export type WhoisChainResult =
  | { readonly kind: 'unsupported'; readonly root: string }
  | {
      readonly kind: 'answer';
      /** The registry's answer (the first server after the root). */
      readonly registry: WhoisHop;
      /** The registrar's answer, when the registry referred to one and it answered with data. */
      readonly registrar: WhoisHop | null;
      readonly notFound: boolean;
      readonly registration: Registration | null;
    };

export interface WhoisClientOptions extends QueryOptions {
  /** The root server, `host[:port]` (NETINTEL_WHOIS_SERVER). */
  readonly root: string;
  /** Root + registry + registrar. */
  readonly maxHops?: number;
  readonly metrics?: Metrics;
  readonly log?: Logger;
}

export class WhoisClient {
  private readonly maxHops: number;

  constructor(private readonly opts: WhoisClientOptions) {
    this.maxHops = opts.maxHops ?? 3;
  }

  /**
   * Asks the root for the TLD's server, then that registry for the domain, then the registrar the
   * registry names. Every server is asked at most once (a referral back to a visited server ends
   * the chain), and the chain never exceeds `maxHops` connections. The registrar is best effort:
   * if it fails, the registry's answer stands.
   */
  async lookup(domain: string, tld: string): Promise<WhoisChainResult> {
    const root = this.opts.root.toLowerCase();
    const visited = new Set<string>([canonical(root)]);
    const rootAnswer = await this.ask(root, tld);
    const registryServer = rootAnswer.parsed.referral;
    if (registryServer === null || visited.has(canonical(registryServer))) return { kind: 'unsupported', root };
    visited.add(canonical(registryServer));

    const hops: WhoisHop[] = [];
    let server: string | null = registryServer;
    let count = 1;
    while (server !== null && count < this.maxHops) {
      let hop: WhoisHop;
      try {
        hop = await this.ask(server, domain);
      } catch (e) {
        // Only the registry is required; a failing registrar leaves the registry's answer standing.
        if (hops.length === 0) throw e;
        this.opts.log?.debug({ server, err: e instanceof Error ? e.message : String(e) }, 'WHOIS referral failed; using the registry answer');
        break;
      }
      count++;
      hops.push(hop);
      if (hop.parsed.notFound) break;
      const next: string | null = hop.parsed.referral;
      if (next === null || visited.has(canonical(next))) break;
      visited.add(canonical(next));
      server = next;
    }

    const registry = hops[0]!;
    if (registry.parsed.notFound) return { kind: 'answer', registry, registrar: null, notFound: true, registration: null };
    // A registry that only refers onward (no data of its own) hands the answer to the next server.
    const withData = hops.filter((h) => h.parsed.hasData);
    if (withData.length === 0) {
      const later = hops.slice(1).find((h) => h.parsed.notFound);
      if (later !== undefined) return { kind: 'answer', registry, registrar: later, notFound: true, registration: null };
      throw new LookupError('upstream_error', `WHOIS server ${registry.server} answered without registration data for the domain`);
    }
    const registration = withData.map((h) => h.parsed.registration).reduce((acc, r) => mergeRegistration(acc, r));
    const registrar = hops.length > 1 ? hops[hops.length - 1]! : null;
    return { kind: 'answer', registry, registrar, notFound: false, registration };
  }

  private async ask(server: string, query: string): Promise<WhoisHop> {
    const run = async (): Promise<WhoisHop> => {
      const answer = await queryWhoisServer(server, query, this.opts);
      if (answer.truncated || answer.cutOff) this.opts.log?.debug({ server, truncated: answer.truncated, cutOff: answer.cutOff }, 'WHOIS answer cut');
      return { server, answer, parsed: parseWhois(answer.text) };
    };
    return this.opts.metrics === undefined ? run() : this.opts.metrics.timeUpstream('whois', run);
  }
}

function canonical(server: string): string {
  const { host, port } = parseServerAddress(server.toLowerCase());
  return `${host.replace(/\.$/, '')}:${port}`;
}
