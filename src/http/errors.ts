// The one table from error code to HTTP status (API.md "Errors").

export type ErrorCode =
  | 'invalid_ip' | 'invalid_domain' | 'invalid_mac' | 'invalid_asn' | 'invalid_host' | 'invalid_type' | 'invalid_parameter'
  | 'invalid_api_key'
  | 'target_forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'uri_too_long'
  | 'unsupported_tld'
  | 'rate_limited'
  | 'not_implemented'
  | 'upstream_error'
  | 'dataset_unavailable' | 'draining' | 'overloaded'
  | 'upstream_timeout'
  | 'internal_error';

export const STATUS_OF: Readonly<Record<ErrorCode, number>> = {
  invalid_ip: 400, invalid_domain: 400, invalid_mac: 400, invalid_asn: 400, invalid_host: 400, invalid_type: 400, invalid_parameter: 400,
  invalid_api_key: 401,
  target_forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  uri_too_long: 414,
  unsupported_tld: 422,
  rate_limited: 429,
  internal_error: 500,
  not_implemented: 501,
  upstream_error: 502,
  dataset_unavailable: 503, draining: 503, overloaded: 503,
  upstream_timeout: 504,
};

/** An error whose message is safe to show to the client. Anything else becomes a generic 500. */
export class LookupError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    options?: { cause?: unknown },
  ) {
    // An answer, not a fault: no stack trace (capturing one is most of the cost of a 4xx under load).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message, options);
    Error.stackTraceLimit = limit;
    this.name = 'LookupError';
    this.status = STATUS_OF[code];
  }
}

export function isLookupError(e: unknown): e is LookupError {
  return e instanceof LookupError;
}

/** Quotes untrusted input for an error message: bounded length, control characters escaped. */
export function quote(input: string, max = 64): string {
  const cut = input.length > max ? input.slice(0, max) + '…' : input;
  return JSON.stringify(cut);
}

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  docs: string;
}

export function errorBody(e: LookupError, docs: string): ErrorBody {
  return { error: e.message, code: e.code, docs };
}

export const GENERIC_INTERNAL = 'Internal error: the request could not be completed. Report the X-Request-Id to the operator.';
