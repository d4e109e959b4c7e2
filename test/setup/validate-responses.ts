// Every response the tests receive from a netintel daemon through fetch() is validated against the
// OpenAPI document's schema for its endpoint and status, so the published contract cannot drift.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument, resultSchemaName } from '../../src/http/openapi.js';
import { ENDPOINTS, type LookupName } from '../../src/lookups/types.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(openApiDocument(), 'openapi');

const NAMES = new Set<string>(ENDPOINTS.map((e) => e.name));

function schemaFor(pathname: string, status: number): string | null {
  if (pathname === '/') return status === 200 || status === 503 ? 'Health' : 'Error';
  const m = /^\/v1\/([a-z]+)(?:\/|$)/.exec(pathname);
  if (m !== null && NAMES.has(m[1]!)) return status === 200 ? resultSchemaName(m[1] as LookupName) : 'Error';
  if (['/docs', '/docs/', '/openapi.json', '/metrics'].includes(pathname)) return null;
  return 'Error';
}

export function validateDaemonResponse(url: string, status: number, body: unknown): string | null {
  const schema = schemaFor(new URL(url).pathname, status);
  if (schema === null) return null;
  const validate = ajv.getSchema(`openapi#/components/schemas/${schema}`);
  if (validate === undefined) return `no schema ${schema}`;
  if (validate(body)) return null;
  return `${status} ${url} does not match ${schema}: ${ajv.errorsText(validate.errors)}`;
}

const original = globalThis.fetch;
globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
  const res = await original(input, init);
  // Only netintel's own answers carry this exact exposed-headers list.
  const exposed = res.headers.get('access-control-expose-headers') ?? '';
  const isDaemon = exposed.includes('X-Request-Id') && exposed.includes('RateLimit-Limit');
  if ((globalThis as { skipContractValidation?: boolean }).skipContractValidation === true) return res;
  if (isDaemon && (res.headers.get('content-type') ?? '').startsWith('application/json') && res.status !== 204) {
    const body = (await res.clone().json()) as unknown;
    const problem = validateDaemonResponse(res.url, res.status, body);
    if (problem !== null) throw new Error(`OpenAPI contract violation: ${problem}\nbody: ${JSON.stringify(body).slice(0, 2000)}`);
  }
  return res;
};
