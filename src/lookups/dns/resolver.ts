// The configured resolvers, tried in order. Touches the network through the transports.
//
// Failover: a resolver that times out, cannot be reached, sends garbage or answers SERVFAIL, REFUSED,
// NOTIMP or FORMERR is skipped for the next one. When every resolver fails:
//   - if at least one of them answered with such an RCODE, that answer is returned (a 200 carrying
//     the RCODE in `status`: the resolver did answer, just not with data);
//   - otherwise `504 upstream_timeout` if every attempt timed out, else `502 upstream_error`
//     (something answered wrongly or refused the connection: waiting longer would not help).
import { LookupError } from '../../http/errors.js';
import type { Metrics } from '../../platform/metrics.js';
import { InvalidResponseError, decodeResponse, encodeQuery, randomQueryId, type Question } from './message.js';
import { TransportError, TransportTimeoutError, type Transport } from './transports.js';
import { rcodeName, type DnsAnswer } from './types.js';

export interface Resolution {
  readonly answer: DnsAnswer;
  readonly resolver: string;
  readonly protocol: Transport['kind'];
  /** Time spent on the successful exchange, in milliseconds. */
  readonly queryTimeMs: number;
}

export interface ResolverOptions {
  readonly timeoutMs: number;
  readonly metrics: Metrics;
}

/** RCODEs that mean "this resolver could not help", so the next one gets a chance. */
const TRY_NEXT = new Set([1, 2, 4, 5]);
const UPSTREAM = 'dns';

export class DnsResolver {
  constructor(private readonly transports: readonly Transport[], private readonly opts: ResolverOptions) {
    if (transports.length === 0) throw new Error('at least one resolver is needed');
  }

  get resolvers(): readonly string[] {
    return this.transports.map((t) => t.display);
  }

  /**
   * @throws LookupError `upstream_error` / `upstream_timeout` when no resolver answered; the reason
   * of `signal` when it fires first.
   */
  async resolve(q: Question, signal: AbortSignal): Promise<Resolution> {
    const failures: string[] = [];
    let allTimedOut = true;
    let fallback: Resolution | null = null;
    for (const t of this.transports) {
      if (signal.aborted) throw reasonOf(signal);
      const id = randomQueryId();
      const query = encodeQuery(q, id);
      const attempt = AbortSignal.any([signal, AbortSignal.timeout(this.opts.timeoutMs)]);
      const end = this.opts.metrics.upstreamDuration.startTimer({ upstream: UPSTREAM });
      const started = performance.now();
      let outcome = 'ok';
      try {
        const buf = await t.exchange(query, id, attempt);
        const answer = decodeResponse(buf, q, id);
        const resolution: Resolution = { answer, resolver: t.display, protocol: t.kind, queryTimeMs: round(performance.now() - started) };
        if (!TRY_NEXT.has(answer.rcode)) return resolution;
        outcome = rcodeName(answer.rcode).toLowerCase();
        allTimedOut = false;
        fallback = resolution;
        failures.push(`${t.display} answered ${rcodeName(answer.rcode)}`);
      } catch (e) {
        if (signal.aborted) {
          outcome = 'aborted';
          throw reasonOf(signal);
        }
        if (e instanceof TransportTimeoutError) {
          outcome = 'timeout';
          failures.push(`${t.display} did not answer within ${this.opts.timeoutMs} ms`);
        } else if (e instanceof InvalidResponseError || e instanceof TransportError) {
          outcome = e instanceof InvalidResponseError ? 'invalid_response' : 'error';
          allTimedOut = false;
          failures.push(`${t.display} failed: ${e instanceof InvalidResponseError ? 'invalid response: ' : ''}${e.message}`);
        } else {
          outcome = 'error';
          throw e;
        }
      } finally {
        end();
        this.opts.metrics.upstreamRequests.inc({ upstream: UPSTREAM, outcome });
      }
    }
    if (fallback !== null) return fallback;
    const detail = failures.join('; ');
    if (allTimedOut) throw new LookupError('upstream_timeout', `No DNS resolver answered in time (${detail})`);
    throw new LookupError('upstream_error', `No DNS resolver gave a usable answer (${detail})`);
  }
}

function reasonOf(signal: AbortSignal): unknown {
  const r: unknown = signal.reason;
  if (r instanceof LookupError) return r;
  return new LookupError('upstream_timeout', 'The DNS lookup did not finish in time');
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
