import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openApiDocument } from '../../../src/http/openapi.js';
import { STATUS_OF } from '../../../src/http/errors.js';
import { ENDPOINTS } from '../../../src/lookups/types.js';
import { validateDaemonResponse } from '../../setup/validate-responses.js';

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(openApiDocument()));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents every endpoint, every error code, the headers and the optional bearer scheme', () => {
    const doc = openApiDocument() as {
      paths: Record<string, { get: { responses: Record<string, { headers?: Record<string, unknown> }> } }>;
      components: { schemas: { Error: { properties: { code: { enum: string[] } } } }; securitySchemes: Record<string, unknown> };
      security: unknown[];
    };
    for (const e of ENDPOINTS) {
      const op = doc.paths[e.template]?.get;
      expect(op, e.template).toBeDefined();
      expect(Object.keys(op!.responses['200']!.headers!)).toEqual(expect.arrayContaining(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
      expect(op!.responses['429']!.headers).toHaveProperty('Retry-After');
    }
    expect(doc.components.schemas.Error.properties.code.enum.sort()).toEqual(Object.keys(STATUS_OF).sort());
    expect(doc.components.securitySchemes).toHaveProperty('bearer');
    expect(doc.security).toContainEqual({});
  });

  it('rejects answers that drift from the contract', () => {
    expect(validateDaemonResponse('http://h/v1/ip/1.1.1.1', 400, { error: 'x', code: 'invalid_ip', docs: 'd' })).toBeNull();
    expect(validateDaemonResponse('http://h/v1/ip/1.1.1.1', 400, { error: 'x', code: 'bad_code', docs: 'd' })).toMatch(/Error/);
    expect(validateDaemonResponse('http://h/v1/ip/1.1.1.1', 200, { ip: '1.1.1.1' })).toMatch(/IpResult/);
  });
});
