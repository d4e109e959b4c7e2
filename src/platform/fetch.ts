// Outgoing HTTP(S) for upstreams (DoH, RDAP, mirrors): undici with timeouts and our trust store.
import { Agent } from 'undici';
import { trustedCas } from './tls-trust.js';

export interface HttpAgentOptions {
  readonly extraCa: string | null;
  readonly connectTimeoutMs: number;
  readonly connections?: number;
}

export function createHttpAgent(opts: HttpAgentOptions): Agent {
  return new Agent({
    connections: opts.connections ?? 64,
    keepAliveTimeout: 10_000,
    connect: { timeout: opts.connectTimeoutMs, ca: [...trustedCas(opts.extraCa)] },
  });
}
