// RDAP over HTTP(S) (RFC 9082 queries, RFC 9083 answers): the registry's domain object, then,
// best effort, the registrar's copy named by a `related` link.
import type { Dispatcher } from 'undici';
import { LookupError } from '../../http/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { Metrics } from '../../platform/metrics.js';
import { HttpGetError, httpGet } from './http-get.js';
import { RdapFormatError, isRdapNotFound, parseRdapDomain, relatedRdapLinks } from './rdap-parse.js';
import { mergeRegistration, type Registration } from './types.js';

export interface RdapClientOptions {
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly metrics?: Metrics;
  readonly log?: Logger;
}

export type RdapResult =
  | { readonly kind: 'not_found'; readonly url: string; readonly raw: unknown }
  | {
      readonly kind: 'found';
      readonly url: string;
      readonly raw: unknown;
      readonly related: { readonly url: string; readonly raw: unknown } | null;
      readonly registration: Registration;
    };

const ACCEPT = 'application/rdap+json, application/json;q=0.9';

export class RdapClient {
  constructor(private readonly opts: RdapClientOptions) {}

  /**
   * Looks `domain` (ASCII) up at `base` (ending in "/"). 404 means the registry does not know the
   * name; anything else that is not a domain object is an upstream error (LookupError 502/504).
   */
  async domain(base: string, domain: string): Promise<RdapResult> {
    const url = `${base}domain/${encodeURIComponent(domain)}`;
    const res = await this.fetchJson(url);
    if (res.status === 404 || (res.json !== undefined && isRdapNotFound(res.json))) return { kind: 'not_found', url: res.url, raw: res.json ?? null };
    if (res.status !== 200 || res.json === undefined) throw new LookupError('upstream_error', `RDAP server ${hostOf(url)} answered HTTP ${res.status}`);
    let registration: Registration;
    try {
      registration = parseRdapDomain(res.json);
    } catch (e) {
      if (e instanceof RdapFormatError) throw new LookupError('upstream_error', `RDAP server ${hostOf(url)} sent an unusable answer: ${e.message}`);
      throw e;
    }

    // The registrar's copy adds what only the registrar holds (registrant, abuse contacts).
    let related: { url: string; raw: unknown } | null = null;
    const link = relatedRdapLinks(res.json, res.url)[0];
    if (link !== undefined) {
      try {
        const r = await this.fetchJson(link);
        if (r.status === 200 && r.json !== undefined) {
          registration = mergeRegistration(registration, parseRdapDomain(r.json));
          related = { url: r.url, raw: r.json };
        }
      } catch (e) {
        this.opts.log?.debug({ url: hostOf(link), err: e instanceof Error ? e.message : String(e) }, 'registrar RDAP failed; using the registry answer');
      }
    }
    return { kind: 'found', url: res.url, raw: res.json, related, registration };
  }

  private async fetchJson(url: string): Promise<{ status: number; url: string; json: unknown }> {
    const run = async (): Promise<{ status: number; url: string; json: unknown }> => {
      let res;
      try {
        res = await httpGet(url, { dispatcher: this.opts.dispatcher, timeoutMs: this.opts.timeoutMs, maxBytes: this.opts.maxBytes, accept: ACCEPT });
      } catch (e) {
        if (e instanceof HttpGetError) {
          throw new LookupError(e.kind === 'timeout' ? 'upstream_timeout' : 'upstream_error', `RDAP server ${e.message}`, {}, { cause: e });
        }
        throw e;
      }
      let json: unknown;
      try {
        json = res.body.length === 0 ? undefined : JSON.parse(res.body.toString('utf8'));
      } catch {
        json = undefined;
        if (res.status === 200) throw new LookupError('upstream_error', `RDAP server ${hostOf(url)} sent an answer that is not JSON`);
      }
      return { status: res.status, url: res.url, json };
    };
    return this.opts.metrics === undefined ? run() : this.opts.metrics.timeUpstream('rdap', run);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'unknown';
  }
}
