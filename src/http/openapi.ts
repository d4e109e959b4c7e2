// GET /openapi.json: the OpenAPI 3.1 document of the public contract (API.md). The integration tests
// validate every real response against these schemas, so the document cannot drift from the code.
import { ENDPOINTS, type LookupName } from '../lookups/types.js';
import { STATUS_OF } from './errors.js';

type Schema = Record<string, unknown>;

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const num: Schema = { type: 'number' };
const bool: Schema = { type: 'boolean' };
const nullable = (s: Schema): Schema => ({ ...s, type: [s['type'] as string, 'null'] });
const nStr = nullable(str);
const nInt = nullable(int);
const nNum = nullable(num);
const nBool = nullable(bool);
const dateTime: Schema = { type: ['string', 'null'], format: 'date-time' };
const arr = (items: Schema): Schema => ({ type: 'array', items });
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** An object whose listed properties are all required (API.md: a field without a value is null, never omitted). */
function obj(properties: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return { type: 'object', required: Object.keys(properties), properties: { ...properties, ...optional } };
}

const SOURCE = {
  type: 'object',
  description: 'Each dataset or upstream the answer came from, with its version or build time (null: that dataset is not loaded).',
  additionalProperties: { type: ['object', 'null'] },
};

const DNS_TYPES = ['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME', 'SOA', 'CAA', 'SRV'];

const DNS_RECORD = obj(
  { name: str, type: str, ttl: int, data: str },
  {
    address: str, priority: int, exchange: str, text: str, strings: arr(str), host: str, target: str,
    mname: str, rname: str, serial: int, refresh: int, retry: int, expire: int, minimum: int,
    flags: int, tag: str, value: str, weight: int, port: int,
  },
);

const SCHEMAS: Record<string, Schema> = {
  Error: {
    type: 'object',
    required: ['error', 'code', 'docs'],
    additionalProperties: false,
    properties: {
      error: { type: 'string', description: 'What was wrong and what is accepted' },
      code: { type: 'string', enum: Object.keys(STATUS_OF) },
      docs: { type: 'string' },
    },
  },
  DatasetStatus: obj({ loaded: bool, dataset: nStr, built_at: nStr, loaded_at: nStr, records: nInt, stale: bool }),
  Health: obj({
    name: { type: 'string', const: 'netintel' },
    version: { type: 'string', const: 'v1' },
    status: { type: 'string', enum: ['operational', 'degraded', 'draining'] },
    docs: str,
    endpoints: { type: 'array', items: str, minItems: 7, maxItems: 7 },
    datasets: {
      type: 'object',
      required: ['geo', 'oui', 'asn', 'rdap_bootstrap', 'ct_logs'],
      additionalProperties: ref('DatasetStatus'),
    },
    uptime_seconds: int,
  }),
  IpResult: obj({
    ip: str, version: { type: 'integer', enum: [4, 6] },
    city: nStr, region: nStr, region_code: nStr, country: nStr, country_code: nStr, continent: nStr, postal: nStr,
    latitude: nNum, longitude: nNum, accuracy_radius_km: nNum, timezone: nStr,
    asn: nInt, as_name: nStr, isp: nStr, prefix: nStr,
    bogon: bool, bogon_reason: nStr, source: SOURCE,
  }),
  DnsRecord: DNS_RECORD,
  DnsResult: obj({
    domain: str, type: { type: 'string', enum: DNS_TYPES }, status: str, authenticated: bool,
    records: arr(ref('DnsRecord')), authority: arr(ref('DnsRecord')), resolver: str, query_time_ms: num, cached: bool, source: SOURCE,
  }),
  WhoisResult: obj({
    domain: str, unicode_domain: nStr, registered: bool, source_type: nullable({ type: 'string', enum: ['rdap', 'whois'] }),
    registrar: nullable(obj({ name: nStr, iana_id: nStr, url: nStr, abuse_email: nStr, abuse_phone: nStr }) as Schema & { type: string }),
    registered_at: dateTime, expires_at: dateTime, updated_at: dateTime,
    status: nullable(arr(str) as Schema & { type: string }), nameservers: nullable(arr(str) as Schema & { type: string }), dnssec: nBool,
    registrant: nullable(obj({ name: nStr, organization: nStr, country: nStr, email: nStr, redacted: bool }) as Schema & { type: string }),
    servers: obj({ rdap: nStr, whois: nStr }),
    cached: bool, fetched_at: dateTime, source: SOURCE,
  }, { stale: bool, raw: {} }),
  SslResult: obj({
    domain: str, port: int, address: nStr,
    issuer: obj({ common_name: nStr, organization: nStr, country: nStr }),
    subject: obj({ common_name: nStr, organization: nStr }),
    san: arr(str), valid_from: dateTime, expires_at: dateTime, days_until_expiry: int,
    serial_number: str, fingerprint_sha256: str, signature_algorithm: nStr,
    key: obj({ type: nStr, bits: nInt, curve: nStr }),
    protocol: nStr, cipher: nStr,
    protocols: obj({ TLSv1: bool, 'TLSv1.1': bool, 'TLSv1.2': bool, 'TLSv1.3': bool }),
    trusted: bool, trust_error: nStr, hostname_match: bool,
    hsts: obj({ enabled: bool, max_age: nInt }),
    chain: arr(obj({ subject: str, issuer: str, expires_at: dateTime, fingerprint_sha256: str })),
    grade: { type: 'string', enum: ['A+', 'A', 'B', 'C', 'D', 'E', 'F', 'T'] },
    grade_ignoring_trust: { type: 'string', enum: ['A+', 'A', 'B', 'C', 'D', 'E', 'F'] },
    grade_reasons: arr(obj({ rule: str, effect: str })),
    ct: obj({
      scts: arr(obj({ log_id: str, log_name: nStr, operator: nStr, timestamp: dateTime })),
      history: arr(obj({
        fingerprint_sha256: nStr, serial_number: nStr, issuer: nStr, valid_from: dateTime, expires_at: dateTime,
        first_seen: dateTime, last_seen: dateTime, origin: { type: 'string', enum: ['observed', 'ct-log'] },
      })),
    }),
    cached: bool, checked_at: dateTime, source: SOURCE,
  }),
  MacResult: obj({
    mac: str, prefix: nStr, prefix_bits: nInt, registry: nStr, assigned: bool,
    vendor: nStr, address: nStr, country: nStr,
    block: nullable(obj({ start: str, end: str, size: int }) as Schema & { type: string }),
    multicast: bool, locally_administered: bool, randomized: bool, source: SOURCE,
  }),
  AsnResult: obj({
    query: str, asn: nInt, name: nStr, description: nStr, country: nStr, rir: nStr, allocated: nStr, status: nStr,
    reserved: bool, ip: nStr, prefix: nStr, announced: nBool,
    prefixes: nullable(obj({ ipv4: int, ipv6: int }) as Schema & { type: string }), source: SOURCE,
  }),
  PingResult: obj({
    host: str, address: nStr, url: nStr, method: nStr, sent: int, received: int, packet_loss: num, reachable: bool,
    min_ms: nNum, avg_ms: nNum, max_ms: nNum, connect_ms: nNum,
    timings: arr(obj({ seq: int, rtt_ms: nNum, status: nInt, error: nStr })), error: nStr,
  }),
};

const RESULT_SCHEMA: Readonly<Record<LookupName, string>> = {
  ip: 'IpResult', dns: 'DnsResult', whois: 'WhoisResult', ssl: 'SslResult', ping: 'PingResult', mac: 'MacResult', asn: 'AsnResult',
};

const PARAMS: Readonly<Record<LookupName, { name: string; description: string; example: string }>> = {
  ip: { name: 'ip', description: 'IPv4 dotted quad (no leading zeros) or IPv6 in any RFC 4291/5952 form; IPv4-mapped IPv6 is answered as IPv4', example: '8.8.8.8' },
  dns: { name: 'domain', description: 'Host name, 1–253 octets, optional trailing dot; Unicode names are converted to punycode', example: 'example.com' },
  whois: { name: 'domain', description: 'Domain name (IDN accepted); the registrable domain is looked up', example: 'example.com' },
  ssl: { name: 'domain', description: 'Host name with optional :port (default 443)', example: 'example.com' },
  ping: { name: 'host', description: 'Host name or IP literal (IPv6 bracketed or bare), optional :port', example: 'example.com' },
  mac: { name: 'mac', description: 'MAC address in any case with :, -, . or no separators (groups of 2, 4 or 6), or a 6/7/9-hex-digit prefix', example: '00:1A:2B:3C:4D:5E' },
  asn: { name: 'asn_or_ip', description: 'AS number (AS13335, as13335, 13335, asdot AS1.10; 0–4294967295) or an IP address', example: 'AS13335' },
};

const ERROR_STATUSES: Readonly<Record<LookupName, string[]>> = {
  ip: ['400', '429', '503'], mac: ['400', '429', '503'], asn: ['400', '429', '503'],
  dns: ['400', '429', '502', '503', '504'], whois: ['400', '422', '429', '502', '503', '504'],
  ssl: ['400', '403', '429', '502', '503', '504'], ping: ['400', '403', '429', '503'],
};

const header = (description: string, schema: Schema = str): Schema => ({ description, schema });
const COMMON_HEADERS = {
  'X-Request-Id': header('Echo of a sane client X-Request-Id, or a generated one'),
  'Access-Control-Allow-Origin': header('Always *'),
  'Cache-Control': header('public, max-age=N for cacheable answers; no-store otherwise'),
};
const LIMIT_HEADERS = {
  'RateLimit-Limit': header('Allowance of the current window', int),
  'RateLimit-Remaining': header('Requests left in the current window', int),
  'RateLimit-Reset': header('Seconds until the window resets', int),
};

function errorResponse(description: string, extraHeaders: Record<string, Schema> = {}): Schema {
  return { description, headers: { ...COMMON_HEADERS, ...extraHeaders }, content: { 'application/json': { schema: ref('Error') } } };
}

const STATUS_TEXT: Readonly<Record<string, string>> = {
  '400': 'Malformed parameter', '401': 'Invalid or missing API key', '403': 'Target forbidden by the probe policy', '404': 'Unknown path',
  '405': 'Method not allowed', '414': 'Path too long', '422': 'Unsupported TLD', '429': 'Rate limited', '500': 'Internal error',
  '502': 'Upstream error', '503': 'Dataset unavailable, overloaded or draining', '504': 'Upstream timeout',
};

let cached: Record<string, unknown> | null = null;

export function openApiDocument(): Record<string, unknown> {
  if (cached !== null) return cached;
  const paths: Record<string, unknown> = {
    '/': {
      get: {
        operationId: 'health',
        summary: 'Health: status, datasets and uptime',
        security: [{}],
        responses: {
          '200': { description: 'Operational or degraded', headers: COMMON_HEADERS, content: { 'application/json': { schema: ref('Health') } } },
          '503': { description: 'Draining (shutting down)', headers: COMMON_HEADERS, content: { 'application/json': { schema: ref('Health') } } },
        },
      },
    },
  };
  for (const e of ENDPOINTS) {
    const p = PARAMS[e.name];
    const parameters: unknown[] = [{ name: p.name, in: 'path', required: true, description: p.description, schema: str, example: p.example }];
    if (e.name === 'dns') {
      parameters.push({ name: 'type', in: 'query', required: false, description: 'Record type, case-insensitive', schema: { type: 'string', enum: DNS_TYPES, default: 'A' } });
    }
    if (e.name === 'whois') {
      parameters.push({ name: 'raw', in: 'query', required: false, description: 'true adds the raw RDAP JSON or WHOIS text as `raw`', schema: { type: 'string', enum: ['true', 'false'] } });
    }
    const responses: Record<string, unknown> = {
      '200': {
        description: 'Lookup result',
        headers: { ...COMMON_HEADERS, ...LIMIT_HEADERS },
        content: { 'application/json': { schema: ref(RESULT_SCHEMA[e.name]) } },
      },
      '401': errorResponse(STATUS_TEXT['401']!),
    };
    for (const s of ERROR_STATUSES[e.name]) {
      responses[s] = errorResponse(STATUS_TEXT[s]!, s === '429' || s === '503' ? { ...LIMIT_HEADERS, 'Retry-After': header('Seconds to wait', int) } : LIMIT_HEADERS);
    }
    responses['500'] = errorResponse(STATUS_TEXT['500']!);
    paths[e.template] = { get: { operationId: `lookup_${e.name}`, summary: `${e.name} lookup`, parameters, responses } };
  }
  for (const [p, summary] of [['/docs', 'HTML reference'], ['/openapi.json', 'This document'], ['/metrics', 'Prometheus metrics']] as const) {
    paths[p] = { get: { summary, security: [{}], responses: { '200': { description: summary } } } };
  }
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'netintel',
      version: 'v1',
      description: 'Network-intelligence lookups as JSON over HTTP GET: IP geolocation, DNS, WHOIS/RDAP, TLS, MAC vendor, ASN and HTTP ping.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: SCHEMAS,
      responses: Object.fromEntries(['404', '405', '414'].map((s) => [`E${s}`, errorResponse(STATUS_TEXT[s]!)])),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Optional: selects a paid plan. Required only when the operator sets NETINTEL_AUTH_REQUIRED=true.' } },
    },
    security: [{}, { bearer: [] }],
  };
  return cached;
}

/** The schema name of a lookup's 200 answer (the tests use it to validate responses). */
export function resultSchemaName(name: LookupName): string {
  return RESULT_SCHEMA[name];
}
