// GET /v1/ping/{host}: parse → resolve once → probe policy → four HTTP round trips to the checked address.
import type { AppContext } from '../../context.js';
import { parseCidr } from '../../platform/cidr.js';
import { ConcurrencyLimiter } from '../../platform/limiter.js';
import { HostNotFoundError, probePolicyFrom, resolveTarget, systemResolve, type Resolve } from '../../platform/probe-policy.js';
import { parseHostPort } from '../host-port.js';
import type { Lookup } from '../types.js';
import { HttpProber } from './http-prober.js';
import { classifyError, lostAttempts, pingBody, type PingError, type Scheme } from './ping.js';

export const PING_ATTEMPTS = 4;

export interface PingDeps {
  /** Name resolution; tests inject answers (including denied addresses) without touching DNS. */
  readonly resolve?: Resolve;
  /** Ports tried when the host names none (443 and 80); tests point them at loopback servers. */
  readonly defaultPorts?: Readonly<Record<Scheme, number>>;
}

/**
 * The connection set-up (resolution, TCP, TLS and the HTTPS → HTTP fallback together) gets one ping timeout,
 * so a call lasts at most (attempts + 1) × NETINTEL_PING_TIMEOUT_MS, whatever the target does.
 */
export function createPingLookup(ctx: AppContext, deps: PingDeps = {}): Lookup {
  const { config, metrics } = ctx;
  const policy = probePolicyFrom(config, parseCidr);
  const limiter = new ConcurrencyLimiter(config.probeConcurrency);
  const baseResolve = deps.resolve ?? systemResolve;
  // RFC 6761 §6.4: resolver libraries should answer names under .invalid negatively at once, without a query.
  const resolve: Resolve = (host) => (/(^|\.)invalid$/.test(host) ? Promise.reject(Object.assign(new Error(`${host}: reserved name`), { code: 'ENOTFOUND' })) : baseResolve(host));
  const outcome = (e: unknown): string => classifyError(e).replace(/ /g, '_');
  const prober = new HttpProber({
    attemptTimeoutMs: config.pingTimeoutMs,
    attempts: PING_ATTEMPTS,
    ...(deps.defaultPorts === undefined ? {} : { defaultPorts: deps.defaultPorts }),
    observeAttempt: (fn) => metrics.timeUpstream('ping', fn, outcome),
  });

  return {
    name: 'ping',
    klass: 'network',
    run: async ({ param, signal }) => {
      const hp = parseHostPort(param);
      const source = { probe: 'http', resolver: hp.kind === 'name' ? 'system' : null };
      return limiter.run(async () => {
        if (signal.aborted) throw signal.reason;
        const started = performance.now();
        const budget = config.pingTimeoutMs;
        let target;
        try {
          // Resolved once: the probe policy checks these addresses and the prober connects to one of them.
          target = await resolveTarget(hp.host, policy, (host) => withTimeout(resolve(host), budget));
        } catch (e) {
          if (!(e instanceof HostNotFoundError)) throw e;
          const error: PingError = e.cause instanceof ResolveTimeout ? 'timeout' : 'host not found';
          const outcomeBody = { address: null, scheme: null, port: null, method: 'HEAD' as const, connectMs: null, attempts: lostAttempts(PING_ATTEMPTS, error), setupError: error };
          return { body: pingBody(hp, outcomeBody, source), maxAge: null };
        }
        const remaining = Math.max(0, budget - (performance.now() - started));
        const result = await prober.probe({ host: hp.host, kind: hp.kind, addresses: target.addresses, port: hp.port }, remaining, signal);
        if (result.setupError !== null) metrics.upstreamRequests.inc({ upstream: 'ping', outcome: result.setupError.replace(/ /g, '_') });
        return { body: pingBody(hp, result, source), maxAge: null };
      });
    },
  };
}

class ResolveTimeout extends Error {
  constructor() {
    super('name resolution timed out');
    this.name = 'ResolveTimeout';
  }
}

// getaddrinfo cannot be cancelled; the probe stops waiting for it instead.
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ResolveTimeout()), ms);
    p.then(
      (v) => { clearTimeout(timer); resolve(v); },
      (e) => { clearTimeout(timer); reject(e); },
    );
  });
}
