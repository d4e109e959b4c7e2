// The contract between the HTTP layer (and the CLI) and each lookup module.

export type LookupName = 'ip' | 'dns' | 'whois' | 'ssl' | 'ping' | 'mac' | 'asn';

/** Rate-limit class of a lookup (API.md "Authentication and limits"). */
export type LookupClass = 'local' | 'network';

export interface LookupRequest {
  /** The path parameter, percent-decoded once; never trimmed. */
  readonly param: string;
  /** Query parameters; a repeated key keeps its first value. */
  readonly query: Readonly<Record<string, string>>;
  /** Aborted when the request deadline passes or the client goes away. */
  readonly signal: AbortSignal;
}

export interface LookupResponse {
  readonly body: Record<string, unknown>;
  /** The body already serialised (equal to JSON.stringify(body)), when the lookup builds it cheaper itself. */
  readonly text?: string;
  /** The same as UTF-8 bytes, for answers copied together from pre-encoded parts. */
  readonly bytes?: Buffer;
  /** Cache-Control max-age in seconds; null means `no-store`. */
  readonly maxAge: number | null;
}

/**
 * A response whose body is already serialised; the object form is parsed back only when asked for (the
 * CLI). A class, not an object literal with a getter: a fresh accessor per response costs V8 a new
 * hidden class each time, which under load ended up as old-generation garbage.
 */
export class SerializedResponse implements LookupResponse {
  constructor(readonly text: string, readonly maxAge: number | null) {}
  get body(): Record<string, unknown> {
    return JSON.parse(this.text) as Record<string, unknown>;
  }
}

/** A response whose body is already encoded; text and object form are decoded only when asked for. */
export class EncodedResponse implements LookupResponse {
  constructor(readonly bytes: Buffer, readonly maxAge: number | null) {}
  get text(): string {
    return this.bytes.toString('utf8');
  }
  get body(): Record<string, unknown> {
    return JSON.parse(this.text) as Record<string, unknown>;
  }
}

export interface Lookup {
  readonly name: LookupName;
  readonly klass: LookupClass;
  run(req: LookupRequest): Promise<LookupResponse>;
  /**
   * The same answer computed synchronously, for lookups served from memory. Answering inside the
   * server's request callback lets uWS batch the whole response into one write.
   */
  runSync?(req: LookupRequest): LookupResponse;
  /**
   * For network lookups: the answer when memory already has it (a cache hit), else null and the
   * dispatcher calls `run`. A hit then skips the deadline, concurrency and promise plumbing of an
   * upstream call. Invalid input throws here as it would in `run`.
   */
  runCached?(req: LookupRequest): LookupResponse | null;
}

/** Spec order of the endpoints (spec.md 2.1), with their public path templates. */
export const ENDPOINTS: readonly { name: LookupName; klass: LookupClass; template: string; health: string }[] = [
  { name: 'ip', klass: 'local', template: '/v1/ip/{ip}', health: 'GET /v1/ip/{ip}' },
  { name: 'dns', klass: 'network', template: '/v1/dns/{domain}', health: 'GET /v1/dns/{domain}?type=A' },
  { name: 'whois', klass: 'network', template: '/v1/whois/{domain}', health: 'GET /v1/whois/{domain}' },
  { name: 'ssl', klass: 'network', template: '/v1/ssl/{domain}', health: 'GET /v1/ssl/{domain}' },
  { name: 'ping', klass: 'network', template: '/v1/ping/{host}', health: 'GET /v1/ping/{host}' },
  { name: 'mac', klass: 'local', template: '/v1/mac/{mac}', health: 'GET /v1/mac/{mac}' },
  { name: 'asn', klass: 'local', template: '/v1/asn/{asn_or_ip}', health: 'GET /v1/asn/{asn_or_ip}' },
];
