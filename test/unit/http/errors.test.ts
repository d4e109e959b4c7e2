import { describe, expect, it } from 'vitest';
import { LookupError, STATUS_OF, errorBody, quote, type ErrorCode } from '../../../src/http/errors.js';

describe('error mapping', () => {
  it('maps every API.md code to its status', () => {
    const expected: Record<string, number> = {
      invalid_ip: 400, invalid_domain: 400, invalid_mac: 400, invalid_asn: 400, invalid_host: 400, invalid_type: 400,
      invalid_api_key: 401, target_forbidden: 403, not_found: 404, method_not_allowed: 405, uri_too_long: 414,
      unsupported_tld: 422, rate_limited: 429, upstream_error: 502, dataset_unavailable: 503, draining: 503,
      upstream_timeout: 504, internal_error: 500,
    };
    for (const [code, status] of Object.entries(expected)) {
      expect(STATUS_OF[code as ErrorCode], code).toBe(status);
      expect(new LookupError(code as ErrorCode, 'm').status).toBe(status);
    }
  });

  it('renders the error body with error, code and docs only', () => {
    const body = errorBody(new LookupError('invalid_ip', 'Invalid IP address format: "1.2.3" is not an IPv4 or IPv6 address'), 'http://h/docs');
    expect(body).toEqual({ error: 'Invalid IP address format: "1.2.3" is not an IPv4 or IPv6 address', code: 'invalid_ip', docs: 'http://h/docs' });
  });

  it('quotes untrusted input bounded and escaped', () => {
    expect(quote('a"b\n')).toBe('"a\\"b\\n"');
    expect(quote('x'.repeat(500)).length).toBeLessThan(80);
  });
});
