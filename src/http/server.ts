// The HTTP layer: one transport-neutral dispatcher applies API.md's common rules to every request, and
// two thin adapters feed it. hyper-express serves everything (it has no automatic 405/HEAD/OPTIONS and
// does not decode params, so routing is done here); `GET /v1/<lookup>/...`, the hot paths, are also
// registered directly on hyper-express's uWS instance, which skips its per-request Request/Response
// wrappers: about +50% req/s on the local lookups.
import { STATUS_CODES } from 'node:http';
import HyperExpress from 'hyper-express';
import type uws from 'uWebSockets.js';
import type { AppContext } from '../context.js';
import { ENDPOINTS, type Lookup, type LookupName, type LookupResponse } from '../lookups/types.js';
import { GENERIC_INTERNAL, LookupError, errorBody, isLookupError, quote } from './errors.js';
import { healthBytes, type HealthState } from './health.js';
import { docsHtml } from './docs.js';
import { openApiDocument } from './openapi.js';
import type { Gate } from './gate.js';
import { DeadlineTicker, NEVER_ABORTED } from './deadline.js';
import { requestShapeError } from './request-limits.js';
import { requestLogger } from '../platform/logger.js';
import { createRequestIds } from '../platform/request-id.js';

export const MAX_PATH_BYTES = 2048;

const CORS: readonly (readonly [string, string])[] = [
  ['access-control-allow-origin', '*'],
  ['access-control-allow-methods', 'GET, OPTIONS'],
  ['access-control-allow-headers', 'Authorization, Content-Type'],
  ['access-control-expose-headers', 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id'],
];
const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = { 'access-control-max-age': '86400', allow: 'GET, OPTIONS' };
const JSON_TYPE = 'application/json; charset=utf-8';
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;
const SANE_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;
const STATUS_LINE = new Map<number, string>(Object.entries(STATUS_CODES).map(([code, text]) => [Number(code), `${code} ${text}`]));

// uWS converts every string argument to UTF-8 on each call; typed arrays it reads in place. The fixed
// parts of every response are therefore encoded once (about 4% req/s on a local lookup).
const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s));
const CORS_BYTES = CORS.map(([k, v]) => [bytes(k), bytes(v)] as const);
const STATUS_BYTES = new Map([...STATUS_LINE].map(([code, line]) => [code, bytes(line)]));
const H_REQUEST_ID = bytes('x-request-id');
const H_CACHE_CONTROL = bytes('cache-control');
const H_CONTENT_TYPE = bytes('content-type');
const VALUE_BYTES = new Map<string, Uint8Array>([JSON_TYPE, 'no-store', 'public, max-age=3600'].map((v) => [v, bytes(v)]));
const valueBytes = (v: string): Uint8Array | string => VALUE_BYTES.get(v) ?? v;

/**
 * The headers every JSON answer starts with (CORS, Cache-Control, Content-Type) as one pre-encoded run,
 * per Cache-Control value. uWS's writeHeader appends `name: value\r\n` to its send buffer as given, so
 * the run goes out in a single call whose "value" carries the following header lines: each native call
 * costs more than the bytes it writes (10 calls per answer were ~5% of a health request's CPU). Only
 * these constants ever travel this way; anything from a request still goes through its own writeHeader.
 */
const JSON_HEAD_BLOCKS = new Map<string, readonly [Uint8Array, Uint8Array]>();
const JSON_HEAD_BLOCKS_MAX = 1024;

// The last block asked for: consecutive answers mostly share their Cache-Control string object.
let lastCacheControl: string | null = null;
let lastBlock: readonly [Uint8Array, Uint8Array] | undefined;

function jsonHeadBlock(cacheControl: string): readonly [Uint8Array, Uint8Array] | undefined {
  if (cacheControl === lastCacheControl) return lastBlock;
  let block = JSON_HEAD_BLOCKS.get(cacheControl);
  if (block === undefined && JSON_HEAD_BLOCKS.size < JSON_HEAD_BLOCKS_MAX && !/[\r\n]/.test(cacheControl)) {
    const [first, ...rest] = [...CORS, ['cache-control', cacheControl], ['content-type', JSON_TYPE]] as const;
    block = [bytes(first[0]), bytes([first[1], ...rest.map(([k, v]) => `${k}: ${v}`)].join('\r\n'))];
    JSON_HEAD_BLOCKS.set(cacheControl, block);
  }
  if (block !== undefined) {
    lastCacheControl = cacheControl;
    lastBlock = block;
  }
  return block;
}

export interface HttpDeps {
  readonly ctx: AppContext;
  readonly lookups: Readonly<Record<LookupName, Lookup>>;
  readonly health: HealthState;
  readonly gate: Gate;
  /** Prometheus text for /metrics; null when metrics are served on their own port. */
  readonly metricsText: (() => Promise<string>) | null;
}

/** What the dispatcher needs from a request, whichever transport carried it. */
export interface RequestView {
  readonly method: string;
  /** Raw path, not decoded, without the query string. */
  readonly path: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Socket peer address (may be computed on first read). */
  readonly ip: string;
  /** Query parameters; a repeated key keeps its first value. */
  query(): Readonly<Record<string, string>>;
}

/** Everything a transport writes back: one per request, filled in by the dispatcher. */
export class Reply {
  status = 200;
  /** Text, or bytes for answers kept ready-encoded. */
  body: string | Buffer = '';
  contentType = JSON_TYPE;
  cacheControl = 'no-store';
  /** Headers beyond the common set, lower-case names; null when there are none (the usual case). */
  headers: Record<string, string> | null = null;
  /** Route template for metrics and logs, never a raw path. */
  route = 'unmatched';
  /** The request carried bytes that were not read: the connection must not be reused. */
  close = false;

  constructor(readonly requestId: string) {}

  set(status: number, body: string | Buffer, contentType = JSON_TYPE, cacheControl = 'no-store'): this {
    this.status = status;
    this.body = body;
    this.contentType = contentType;
    this.cacheControl = cacheControl;
    return this;
  }

  header(name: string, value: string): void {
    (this.headers ??= {})[name] = value;
  }
}

export interface Dispatcher {
  /** The Reply, synchronously whenever no I/O is needed. */
  dispatch(view: RequestView): Reply | Promise<Reply>;
  /** Counts and logs an answered request; `startedMs` is its performance.now() on arrival. */
  record(view: RequestView, reply: Reply, startedMs: number): void;
}

/**
 * The transport-neutral request handler. Per request it allocates the Reply and what the lookup
 * returns, nothing else on the synchronous path: no closures, no per-request objects with accessors
 * (each of those showed up as old-generation garbage and multi-millisecond scavenges under load).
 */
export function createDispatcher(deps: HttpDeps): Dispatcher {
  const { ctx } = deps;
  const log = ctx.log.child({ module: 'http' });
  const logRequest = requestLogger(log);
  const nextRequestId = createRequestIds();
  const deadlines = new DeadlineTicker(ctx.config.requestTimeoutMs);
  const docsHtmlCache = new Map<string, string>();
  let openApiText: string | null = null;

  const listen = ctx.config.host === '0.0.0.0' || ctx.config.host === '::' ? '127.0.0.1' : ctx.config.host;
  const fixedDocsUrl = ctx.config.docsUrl ?? (ctx.config.publicUrl !== null ? `${ctx.config.publicUrl}/docs` : null);
  const fallbackDocsUrl = `http://${listen}:${ctx.config.port}/docs`;
  // Per Host header, so a health poll neither tests nor builds it, and the health cache compares one string
  // object. Hosts come from clients: a full memo stops growing and the rest are built per request.
  const docsUrlByHost = new Map<string, string>();
  const docsUrlFor = (view: RequestView): string => {
    if (fixedDocsUrl !== null) return fixedDocsUrl;
    const host = view.headers['host'];
    if (host === undefined) return fallbackDocsUrl;
    let url = docsUrlByHost.get(host);
    if (url === undefined) {
      url = SANE_HOST.test(host) ? `http://${host}/docs` : fallbackDocsUrl;
      if (docsUrlByHost.size < 64) docsUrlByHost.set(host, url);
    }
    return url;
  };

  const fail = (view: RequestView, reply: Reply, e: unknown): Reply => {
    if (!isLookupError(e)) {
      log.error({ err: e, requestId: reply.requestId, route: reply.route }, 'unhandled error');
      e = new LookupError('internal_error', GENERIC_INTERNAL);
    }
    const err = e as LookupError;
    for (const k in err.headers) reply.header(k.toLowerCase(), err.headers[k]!);
    return reply.set(err.status, JSON.stringify(errorBody(err, docsUrlFor(view))));
  };

  const answer = (reply: Reply, result: LookupResponse): Reply =>
    reply.set(200, result.bytes ?? result.text ?? JSON.stringify(result.body), JSON_TYPE, cacheControlOf(result.maxAge));

  const route = (view: RequestView, reply: Reply): Reply | Promise<Reply> => {
    const { method, path } = view;
    if (path.length > MAX_PATH_BYTES / 3 && Buffer.byteLength(path) > MAX_PATH_BYTES) {
      reply.route = 'too_long';
      throw new LookupError('uri_too_long', `Path too long: at most ${MAX_PATH_BYTES} bytes are accepted`);
    }
    const shapeError = requestShapeError(view.headers);
    if (shapeError !== null) {
      reply.route = 'bad_request';
      reply.close = true;
      throw shapeError;
    }
    if (method === 'OPTIONS') {
      reply.route = 'preflight';
      for (const k in PREFLIGHT_HEADERS) reply.header(k, PREFLIGHT_HEADERS[k]!);
      return reply.set(204, '');
    }
    if (method !== 'GET') {
      reply.route = 'method_not_allowed';
      throw new LookupError('method_not_allowed', `Method ${method} is not allowed: use GET (or OPTIONS for a CORS preflight)`, { allow: 'GET, OPTIONS' });
    }
    switch (path) {
      case '/':
        reply.route = '/';
        if (deps.health.draining) reply.header('retry-after', '5');
        return reply.set(deps.health.draining ? 503 : 200, healthBytes(ctx, deps.health, docsUrlFor(view)));
      case '/docs':
      case '/docs/': {
        reply.route = '/docs';
        const docs = docsUrlFor(view);
        let html = docsHtmlCache.get(docs);
        if (html === undefined) {
          html = docsHtml(docs);
          if (docsHtmlCache.size < 16) docsHtmlCache.set(docs, html);
        }
        return reply.set(200, html, 'text/html; charset=utf-8', 'public, max-age=300');
      }
      case '/openapi.json':
        reply.route = '/openapi.json';
        openApiText ??= JSON.stringify(openApiDocument());
        return reply.set(200, openApiText, JSON_TYPE, 'public, max-age=300');
      case '/metrics':
        if (deps.metricsText === null) break;
        reply.route = '/metrics';
        return deps.metricsText().then((text) => reply.set(200, text, 'text/plain; version=0.0.4; charset=utf-8'), (e: unknown) => fail(view, reply, e));
    }

    const endpoint = lookupEndpoint(path);
    if (endpoint === undefined) {
      reply.route = 'not_found';
      throw new LookupError('not_found', `Not found: ${quote(path)} is not an endpoint; see the docs for the list`);
    }
    reply.route = endpoint.template;
    const lookup = deps.lookups[endpoint.name];
    // Admission comes before any parsing, so malformed requests are rate limited too.
    const admitted = deps.gate.admit(endpoint.klass, view);
    for (const k in admitted.headers) reply.header(k, admitted.headers[k]!);
    if (admitted.error !== null) throw admitted.error;
    const param = decodeParam(rawLookupParam(path, endpoint), endpoint.name);
    if (deps.health.draining) throw new LookupError('draining', 'The daemon is shutting down; retry shortly', { 'retry-after': '5' });

    const query = view.query();
    if (endpoint.klass === 'local' && lookup.runSync !== undefined) {
      // Answered from memory without I/O: no deadline or abort plumbing needed.
      return answer(reply, lookup.runSync({ param, query, signal: NEVER_ABORTED }));
    }
    const hit = lookup.runCached?.({ param, query, signal: NEVER_ABORTED }) ?? null;
    if (hit !== null) return answer(reply, hit);
    const deadline = deadlines.start();
    return raceAbort(deps.gate.track(endpoint.klass, () => lookup.run({ param, query, signal: deadline.signal })), deadline.signal)
      .then((result) => answer(reply, result), (e: unknown) => fail(view, reply, e))
      .finally(deadline.release);
  };

  const dispatch = (view: RequestView): Reply | Promise<Reply> => {
    const incomingId = view.headers['x-request-id'];
    const reply = new Reply(incomingId !== undefined && SANE_REQUEST_ID.test(incomingId) ? incomingId : nextRequestId());
    try {
      return route(view, reply);
    } catch (e) {
      return fail(view, reply, e);
    }
  };

  const record = (view: RequestView, reply: Reply, startedMs: number): void => {
    const ms = performance.now() - startedMs;
    ctx.metrics.http.record(reply.route, reply.status, ms / 1e3);
    logRequest(reply.requestId, view.method, reply.route, reply.status, ms);
  };

  return { dispatch, record };
}

type Endpoint = (typeof ENDPOINTS)[number];

/** The lookup a `/v1/<name>` or `/v1/<name>/...` path names (names are matched case-sensitively). */
export function lookupEndpoint(path: string): Endpoint | undefined {
  if (!path.startsWith('/v1/')) return undefined;
  // Compared in place: slicing out the name to look it up allocated a string per request.
  for (const e of ENDPOINTS) {
    const end = 4 + e.name.length;
    if (path.startsWith(e.name, 4) && (path.length === end || path.charCodeAt(end) === 0x2f)) return e;
  }
  return undefined;
}

/** The raw (still percent-encoded) parameter of a path lookupEndpoint() gave `endpoint` for. */
export function rawLookupParam(path: string, endpoint: Endpoint): string {
  return path.slice(5 + endpoint.name.length);
}

/** A hyper-express request as the dispatcher sees it (prototype accessors: nothing allocated per request). */
class HyperExpressView implements RequestView {
  constructor(private readonly req: HyperExpress.Request) {}
  get method(): string {
    return this.req.method;
  }
  get path(): string {
    return this.req.path;
  }
  get headers(): Readonly<Record<string, string>> {
    return this.req.headers;
  }
  get ip(): string {
    return this.req.ip;
  }
  query(): Readonly<Record<string, string>> {
    return parseQuery(this.req.path_query);
  }
}

/**
 * A raw uWS request: the uWS request object is only valid synchronously, so the path, headers and query
 * are copied up front. The peer address is read only when admission needs it (rate limits on): uWS's
 * call for it costs several µs.
 */
class UwsView implements RequestView {
  readonly method = 'GET';
  constructor(private readonly res: uws.HttpResponse, readonly path: string, readonly headers: Readonly<Record<string, string>>, private readonly rawQuery: string) {}
  get ip(): string {
    return Buffer.from(this.res.getRemoteAddressAsText()).toString();
  }
  query(): Readonly<Record<string, string>> {
    return parseQuery(this.rawQuery);
  }
}

// One callback for every request's header copy (a closure per request was garbage on every lookup).
const NOT_COPYING: Record<string, string> = {};
let copying = NOT_COPYING;
const copyHeader = (k: string, v: string): void => {
  copying[k] = copying[k] === undefined ? v : `${copying[k]}, ${v}`;
};

/** The request's headers, repeated ones joined with ", " (uWS hands out lower-case names). */
function copyHeaders(req: uws.HttpRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  copying = headers;
  req.forEach(copyHeader);
  // Not kept past the request: the headers may carry an API key.
  copying = NOT_COPYING;
  return headers;
}

function writeUws(res: uws.HttpResponse, reply: Reply): void {
  // uWS writes `200 OK` itself when the first header comes without a status.
  if (reply.status !== 200) res.writeStatus(STATUS_BYTES.get(reply.status) ?? String(reply.status));
  const block = reply.contentType === JSON_TYPE ? jsonHeadBlock(reply.cacheControl) : undefined;
  if (block !== undefined) {
    res.writeHeader(block[0], block[1]);
  } else {
    for (const [k, v] of CORS_BYTES) res.writeHeader(k, v);
    res.writeHeader(H_CACHE_CONTROL, valueBytes(reply.cacheControl));
    res.writeHeader(H_CONTENT_TYPE, valueBytes(reply.contentType));
  }
  if (reply.headers !== null) for (const k in reply.headers) res.writeHeader(k, reply.headers[k]!);
  res.writeHeader(H_REQUEST_ID, reply.requestId);
  res.end(reply.body, reply.close);
}

export function createHttpServer(deps: HttpDeps): HyperExpress.Server {
  const app = new HyperExpress.Server({ max_body_length: 1024, fast_abort: true });
  const { dispatch, record } = createDispatcher(deps);
  const log = deps.ctx.log.child({ module: 'http' });

  const viaHyperExpress = async (req: HyperExpress.Request, res: HyperExpress.Response): Promise<void> => {
    const started = performance.now();
    deps.health.inflight++;
    const view = new HyperExpressView(req);
    try {
      const out = dispatch(view);
      const reply = out instanceof Promise ? await out : out;
      if (!res.closed) {
        res.status(reply.status);
        for (const [k, v] of CORS) res.header(k, v);
        if (reply.headers !== null) for (const k in reply.headers) res.header(k, reply.headers[k]!);
        res.header('x-request-id', reply.requestId);
        res.header('cache-control', reply.cacheControl);
        res.header('content-type', reply.contentType);
        if (reply.status === 204) res.send();
        else res.send(reply.body, reply.close);
      }
      record(view, reply, started);
    } finally {
      deps.health.inflight--;
    }
  };

  // Health and lookups straight on uWS. A synchronous answer is written inside the handler (uWS corks
  // it); one that needs I/O is written later under cork, unless the client went away meanwhile.
  const viaUws = (res: uws.HttpResponse, req: uws.HttpRequest): void => {
    const started = performance.now();
    const view = new UwsView(res, req.getUrl(), copyHeaders(req), req.getQuery() ?? '');
    const out = dispatch(view);
    if (!(out instanceof Promise)) {
      writeUws(res, out);
      record(view, out, started);
      return;
    }
    deps.health.inflight++;
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
      deps.health.inflight--;
    });
    void out.then((reply) => {
      if (aborted) return;
      res.cork(() => writeUws(res, reply));
      record(view, reply, started);
      deps.health.inflight--;
    });
  };

  const raw = app.uws_instance as unknown as uws.TemplatedApp;
  raw.get('/', viaUws);
  for (const e of ENDPOINTS) raw.get(`/v1/${e.name}/*`, viaUws);
  app.any('/*', viaHyperExpress);
  app.set_not_found_handler(viaHyperExpress);
  app.set_error_handler((req, res, err) => {
    log.error({ err, path: req.path }, 'error escaped the handler');
    if (!res.closed && !res.initiated) {
      res.status(500);
      for (const [k, v] of CORS) res.header(k, v);
      res.header('content-type', JSON_TYPE);
      res.header('cache-control', 'no-store');
      res.send(JSON.stringify({ error: GENERIC_INTERNAL, code: 'internal_error', docs: deps.ctx.config.docsUrl ?? '/docs' }));
    }
  });
  return app;
}

const INVALID_CODE: Readonly<Record<LookupName, 'invalid_ip' | 'invalid_domain' | 'invalid_host' | 'invalid_mac' | 'invalid_asn'>> = {
  ip: 'invalid_ip', dns: 'invalid_domain', whois: 'invalid_domain', ssl: 'invalid_domain', ping: 'invalid_host', mac: 'invalid_mac', asn: 'invalid_asn',
};

/** Percent-decodes a path parameter exactly once; malformed escapes are the lookup's own 400. */
export function decodeParam(raw: string, name: LookupName): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new LookupError(INVALID_CODE[name], `Invalid parameter: ${quote(raw)} contains a malformed percent-escape`);
  }
}

// Header values per max-age, built once: DNS answers count theirs down, so the same few recur.
const CACHE_CONTROL: string[] = [];
const CACHE_CONTROL_MEMO = 86_401;

function cacheControlOf(maxAge: number | null): string {
  if (maxAge === null) return 'no-store';
  const n = Math.max(0, Math.floor(maxAge));
  if (n >= CACHE_CONTROL_MEMO) return `public, max-age=${n}`;
  return (CACHE_CONTROL[n] ??= `public, max-age=${n}`);
}

// Most lookups carry no query: they share one frozen empty object instead of allocating one each.
const NO_QUERY: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Query parameters as URLSearchParams reads them, the first value of a repeated key winning. A plain
 * query (no escapes, no '+') is split directly: URLSearchParams costs about a microsecond even for
 * `type=A`, a visible share of a cached DNS answer.
 */
export function parseQuery(raw: string): Readonly<Record<string, string>> {
  if (raw === '') return NO_QUERY;
  // A plain object (a null-prototype one is a slow dictionary in V8); `__proto__` is defined, not assigned.
  const out: Record<string, string> = {};
  if (raw.includes('%') || raw.includes('+') || raw.startsWith('?')) {
    for (const [k, v] of new URLSearchParams(raw)) addFirst(out, k, v);
    return out;
  }
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    if (end > start) {
      const eq = raw.indexOf('=', start);
      if (eq === -1 || eq > end) addFirst(out, raw.slice(start, end), '');
      else addFirst(out, raw.slice(start, eq), raw.slice(eq + 1, end));
    }
    start = end + 1;
  }
  return out;
}

function addFirst(out: Record<string, string>, k: string, v: string): void {
  if (Object.hasOwn(out, k)) return;
  if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  else out[k] = v;
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
      (e) => { signal.removeEventListener('abort', onAbort); reject(e); },
    );
  });
}
