// GET /openapi.json: the OpenAPI 3.1 document of the public contract.
import { ENDPOINTS } from '../lookups/types.js';
import { STATUS_OF } from './errors.js';

const PARAM_DOC: Readonly<Record<string, { name: string; description: string; example: string }>> = {
  ip: { name: 'ip', description: 'IPv4 dotted quad or IPv6 address', example: '8.8.8.8' },
  dns: { name: 'domain', description: 'Host name (IDN accepted)', example: 'example.com' },
  whois: { name: 'domain', description: 'Domain name (IDN accepted)', example: 'example.com' },
  ssl: { name: 'domain', description: 'Host name with optional :port', example: 'example.com' },
  ping: { name: 'host', description: 'Host name or IP literal with optional :port', example: 'example.com' },
  mac: { name: 'mac', description: 'MAC address or OUI prefix, any common notation', example: '00:1A:2B:3C:4D:5E' },
  asn: { name: 'asn_or_ip', description: 'AS number (AS13335, 13335, AS1.10) or IP address', example: 'AS13335' },
};

export function openApiDocument(): Record<string, unknown> {
  const errorResponse = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  const paths: Record<string, unknown> = {
    '/': {
      get: {
        operationId: 'health',
        summary: 'Health',
        responses: {
          '200': { description: 'Healthy or degraded', content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } } },
          '503': { description: 'Draining', content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } } },
        },
      },
    },
  };
  for (const e of ENDPOINTS) {
    const p = PARAM_DOC[e.name]!;
    const parameters: unknown[] = [{ name: p.name, in: 'path', required: true, description: p.description, schema: { type: 'string' }, example: p.example }];
    if (e.name === 'dns') {
      parameters.push({ name: 'type', in: 'query', required: false, schema: { type: 'string', enum: ['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME', 'SOA', 'CAA', 'SRV'], default: 'A' } });
    }
    paths[e.template] = {
      get: {
        operationId: `lookup_${e.name}`,
        summary: `${e.name} lookup`,
        parameters,
        responses: {
          '200': { description: 'Lookup result', content: { 'application/json': { schema: { type: 'object' } } } },
          '4XX': errorResponse,
          '5XX': errorResponse,
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'netintel', version: 'v1', description: 'Network-intelligence lookups as JSON over HTTP GET.' },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: {
        Error: {
          type: 'object',
          required: ['error', 'code', 'docs'],
          properties: {
            error: { type: 'string' },
            code: { type: 'string', enum: Object.keys(STATUS_OF) },
            docs: { type: 'string', format: 'uri' },
          },
        },
        Health: {
          type: 'object',
          required: ['name', 'version', 'status', 'docs', 'endpoints', 'datasets', 'uptime_seconds'],
          properties: {
            name: { type: 'string' },
            version: { type: 'string', const: 'v1' },
            status: { type: 'string', enum: ['operational', 'degraded', 'draining'] },
            docs: { type: 'string' },
            endpoints: { type: 'array', items: { type: 'string' } },
            datasets: { type: 'object' },
            uptime_seconds: { type: 'integer' },
          },
        },
      },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Optional on the free tier' } },
    },
    security: [{}, { bearer: [] }],
  };
}
