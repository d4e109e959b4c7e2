// hyper-express setup: one catch-all handler that applies API.md's common rules to every response.
// hyper-express has no automatic 405/HEAD/OPTIONS and does not decode params, so routing is done here.
import crypto from 'node:crypto';
import HyperExpress from 'hyper-express';
import type { AppContext } from '../context.js';
import { ENDPOINTS, type Lookup, type LookupName } from '../lookups/types.js';
import { GENERIC_INTERNAL, LookupError, errorBody, isLookupError, quote } from './errors.js';
import { healthText, type HealthState } from './health.js';
import { docsHtml } from './docs.js';
import { openApiDocument } from './openapi.js';
import type { Gate } from './gate.js';
import { DeadlineTicker, NEVER_ABORTED } from './deadline.js';
import { requestShapeError } from './request-limits.js';

export const MAX_PATH_BYTES = 2048;

const CORS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type',
  'access-control-expose-headers': 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id',
};
const JSON_TYPE = 'application/json; charset=utf-8';
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export interface HttpDeps {
  readonly ctx: AppContext;
  readonly lookups: Readonly<Record<LookupName, Lookup>>;
  readonly health: HealthState;
  readonly gate: Gate;
  /** Prometheus text for /metrics; null when metrics are served on their own port. */
  readonly metricsText: (() => Promise<string>) | null;
}

/** Route label for metrics: a template, never a raw path. */
type RouteLabel = string;

const LOOKUP_BY_SEGMENT = new Map(ENDPOINTS.map((e) => [e.name, e]));

export function createHttpServer(deps: HttpDeps): HyperExpress.Server {
  const { ctx } = deps;
  const app = new HyperExpress.Server({ max_body_length: 1024, fast_abort: true });
  const docsHtmlCache = new Map<string, string>();
  let openApiCache: string | null = null;
  const log = ctx.log.child({ module: 'http' });
  const deadlines = new DeadlineTicker(ctx.config.requestTimeoutMs);

  const docsUrlFor = (req: HyperExpress.Request): string => {
    if (ctx.config.docsUrl !== null) return ctx.config.docsUrl;
    return `${baseUrlFor(req)}/docs`;
  };
  const baseUrlFor = (req: HyperExpress.Request): string => {
    if (ctx.config.publicUrl !== null) return ctx.config.publicUrl;
    const host = req.headers['host'];
    if (host !== undefined && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) return `http://${host}`;
    return `http://${ctx.config.host === '0.0.0.0' || ctx.config.host === '::' ? '127.0.0.1' : ctx.config.host}:${ctx.config.port}`;
  };

  const handle = async (req: HyperExpress.Request, res: HyperExpress.Response): Promise<void> => {
    const started = process.hrtime.bigint();
    deps.health.inflight++;
    const incomingId = req.headers['x-request-id'];
    const requestId = incomingId !== undefined && SANE_REQUEST_ID.test(incomingId) ? incomingId : crypto.randomUUID();
    let route: RouteLabel = 'unmatched';
    let status = 500;
    const extra: Record<string, string> = {};
    // Set when the request carried bytes we did not read: the connection must not be reused.
    let closeConnection = false;

    const send = (code: number, body: string, contentType: string, cacheControl: string): void => {
      status = code;
      if (res.closed) return;
      res.status(code);
      for (const k in CORS) res.header(k, CORS[k]!);
      for (const k in extra) res.header(k, extra[k]!);
      res.header('x-request-id', requestId);
      res.header('cache-control', cacheControl);
      res.header('content-type', contentType);
      res.send(body, closeConnection);
    };
    const sendError = (e: LookupError): void => {
      for (const [k, v] of Object.entries(e.headers)) extra[k.toLowerCase()] = v;
      send(e.status, JSON.stringify(errorBody(e, docsUrlFor(req))), JSON_TYPE, 'no-store');
    };

    try {
      const method = req.method;
      const rawPath = req.path;
      if (Buffer.byteLength(rawPath) > MAX_PATH_BYTES) {
        route = 'too_long';
        throw new LookupError('uri_too_long', `Path too long: at most ${MAX_PATH_BYTES} bytes are accepted`);
      }
      const shapeError = requestShapeError(req.headers);
      if (shapeError !== null) {
        route = 'bad_request';
        closeConnection = true;
        throw shapeError;
      }
      if (method === 'OPTIONS') {
        route = 'preflight';
        status = 204;
        if (!res.closed) {
          res.status(204);
          for (const k in CORS) res.header(k, CORS[k]!);
          res.header('access-control-max-age', '86400');
          res.header('allow', 'GET, OPTIONS');
          res.header('x-request-id', requestId);
          res.header('cache-control', 'no-store');
          res.header('content-type', JSON_TYPE);
          res.send();
        }
        return;
      }
      if (method !== 'GET') {
        route = 'method_not_allowed';
        throw new LookupError('method_not_allowed', `Method ${method} is not allowed: use GET (or OPTIONS for a CORS preflight)`, { allow: 'GET, OPTIONS' });
      }

      if (rawPath === '/') {
        route = '/';
        if (deps.health.draining) extra['retry-after'] = '5';
        send(deps.health.draining ? 503 : 200, healthText(ctx, deps.health, docsUrlFor(req)), JSON_TYPE, 'no-store');
        return;
      }
      if (rawPath === '/docs' || rawPath === '/docs/') {
        route = '/docs';
        const docs = docsUrlFor(req);
        let html = docsHtmlCache.get(docs);
        if (html === undefined) {
          html = docsHtml(docs);
          if (docsHtmlCache.size < 16) docsHtmlCache.set(docs, html);
        }
        send(200, html, 'text/html; charset=utf-8', 'public, max-age=300');
        return;
      }
      if (rawPath === '/openapi.json') {
        route = '/openapi.json';
        openApiCache ??= JSON.stringify(openApiDocument());
        send(200, openApiCache, JSON_TYPE, 'public, max-age=300');
        return;
      }
      if (rawPath === '/metrics' && deps.metricsText !== null) {
        route = '/metrics';
        const text = await deps.metricsText();
        send(200, text, 'text/plain; version=0.0.4; charset=utf-8', 'no-store');
        return;
      }

      const m = /^\/v1\/([a-z]+)(?:\/(.*))?$/.exec(rawPath);
      const endpoint = m === null ? undefined : LOOKUP_BY_SEGMENT.get(m[1] as LookupName);
      if (m === null || endpoint === undefined) {
        route = 'not_found';
        throw new LookupError('not_found', `Not found: ${quote(rawPath)} is not an endpoint; see the docs for the list`);
      }
      route = endpoint.template;
      const lookup = deps.lookups[endpoint.name];
      // Admission comes before any parsing, so malformed requests are rate limited too.
      const gateResult = deps.gate.admit(endpoint.klass, req);
      for (const k in gateResult.headers) extra[k] = gateResult.headers[k]!;
      if (gateResult.error !== null) throw gateResult.error;
      const param = decodeParam(m[2] ?? '', endpoint.name);
      if (deps.health.draining) throw new LookupError('draining', 'The daemon is shutting down; retry shortly', { 'retry-after': '5' });

      const query = queryOf(req);
      if (endpoint.klass === 'local') {
        // Answered from memory without I/O: no deadline or abort plumbing needed.
        const req2 = { param, query, signal: NEVER_ABORTED };
        const result = lookup.runSync !== undefined ? lookup.runSync(req2) : await lookup.run(req2);
        send(200, JSON.stringify(result.body), JSON_TYPE, cacheControlOf(result.maxAge));
      } else {
        const deadline = deadlines.start();
        try {
          const result = await raceAbort(deps.gate.track(endpoint.klass, () => lookup.run({ param, query, signal: deadline.signal })), deadline.signal);
          send(200, JSON.stringify(result.body), JSON_TYPE, cacheControlOf(result.maxAge));
        } finally {
          deadline.release();
        }
      }
    } catch (e) {
      if (isLookupError(e)) {
        sendError(e);
      } else {
        log.error({ err: e, requestId, route }, 'unhandled error');
        sendError(new LookupError('internal_error', GENERIC_INTERNAL));
      }
    } finally {
      deps.health.inflight--;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      ctx.metrics.httpRequests.inc({ route, status: String(status) });
      ctx.metrics.httpDuration.observe({ route }, seconds);
      if (log.isLevelEnabled('info')) {
        log.info({ requestId, method: req.method, route, status, durationMs: Math.round(seconds * 1e6) / 1e3 }, 'request');
      }
    }
  };

  app.any('/*', handle);
  app.set_not_found_handler(handle);
  app.set_error_handler((req, res, err) => {
    log.error({ err, path: req.path }, 'error escaped the handler');
    if (!res.closed && !res.initiated) {
      res.status(500);
      for (const k in CORS) res.header(k, CORS[k]!);
      res.header('content-type', JSON_TYPE);
      res.header('cache-control', 'no-store');
      res.send(JSON.stringify({ error: GENERIC_INTERNAL, code: 'internal_error', docs: docsUrlFor(req) }));
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

function cacheControlOf(maxAge: number | null): string {
  return maxAge === null ? 'no-store' : `public, max-age=${Math.max(0, Math.floor(maxAge))}`;
}

function queryOf(req: HyperExpress.Request): Record<string, string> {
  const q = req.query_parameters as Record<string, string | string[]>;
  const out: Record<string, string> = {};
  for (const k in q) {
    const v = q[k];
    out[k] = Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
  }
  return out;
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
