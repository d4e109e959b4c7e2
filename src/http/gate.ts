// Admission of a lookup request: authentication and rate limits hook in here.
import type HyperExpress from 'hyper-express';
import type { LookupClass } from '../lookups/types.js';
import type { LookupError } from './errors.js';
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';

export interface GateResult {
  /** Headers for the response (RateLimit-*), whatever the outcome. */
  readonly headers: Readonly<Record<string, string>>;
  /** Set when the request must be refused (401, 429). */
  readonly error: LookupError | null;
}

export interface Gate {
  admit(klass: LookupClass, req: HyperExpress.Request): GateResult;
}

const OPEN: GateResult = Object.freeze({ headers: Object.freeze({}), error: null });

/** Admits everything: used until limits and keys are configured. */
export const openGate: Gate = { admit: () => OPEN };

/**
 * State shared by every HTTP worker (created once on the main thread, passed in workerData):
 * rate-limit counters must be shared so that N workers do not give a client N times its allowance.
 */
export type GateShare = unknown;

export function createGateShare(_config: Config): GateShare {
  return null;
}

export function createGate(_ctx: AppContext, _share: GateShare): Gate {
  return openGate;
}
