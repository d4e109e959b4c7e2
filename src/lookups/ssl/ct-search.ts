// Optional CT search (NETINTEL_CT_SEARCH_URL, crt.sh JSON format): certificates logged for a domain,
// merged into ct.history with origin "ct-log". Best effort: any failure just omits them.
import { fetch, type Dispatcher } from 'undici';
import { formatSerial } from './cert.js';
import type { HistoryEntry } from './history.js';

/** How many logged certificates a response lists (newest first). */
export const CT_SEARCH_LIMIT = 100;
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** crt.sh entries → history entries: serial-deduplicated (crt.sh lists precertificate and certificate), newest first. */
export function parseCtSearch(body: unknown): HistoryEntry[] {
  if (!Array.isArray(body)) throw new Error('CT search answer is not a JSON array');
  const bySerial = new Map<string, HistoryEntry>();
  for (const e of body) {
    if (typeof e !== 'object' || e === null) continue;
    const r = e as { serial_number?: unknown; issuer_name?: unknown; not_before?: unknown; not_after?: unknown; entry_timestamp?: unknown };
    if (typeof r.serial_number !== 'string' || !/^[0-9a-fA-F:]{1,128}$/.test(r.serial_number)) continue;
    const validFrom = isoUtc(r.not_before);
    const expiresAt = isoUtc(r.not_after);
    if (validFrom === null || expiresAt === null) continue;
    const serial = formatSerial(r.serial_number);
    const logged = isoUtc(r.entry_timestamp);
    const prev = bySerial.get(serial);
    // Keep the earliest log entry: when the certificate first became visible.
    if (prev !== undefined && (prev.first_seen === null || logged === null || prev.first_seen <= logged)) continue;
    bySerial.set(serial, {
      fingerprint_sha256: null,
      serial_number: serial,
      issuer: typeof r.issuer_name === 'string' && r.issuer_name.trim() !== '' ? rfc4514(r.issuer_name) : null,
      valid_from: validFrom,
      expires_at: expiresAt,
      first_seen: logged,
      last_seen: null,
      origin: 'ct-log',
    });
  }
  return [...bySerial.values()].sort((a, b) => (a.valid_from < b.valid_from ? 1 : a.valid_from > b.valid_from ? -1 : 0)).slice(0, CT_SEARCH_LIMIT);
}

// crt.sh prints timestamps without a zone; they are UTC.
function isoUtc(v: unknown): string | null {
  if (typeof v !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$/.test(v)) return null;
  const t = Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(t) ? null : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// crt.sh shows issuer names in certificate order ("C=US, O=Let's Encrypt, CN=R11"); observed
// certificates use RFC 4514 order ("CN=R11,O=Let's Encrypt,C=US"), so history entries compare.
function rfc4514(name: string): string {
  return name.split(/,\s*(?=[A-Za-z][A-Za-z0-9.-]*=)/).map((s) => s.trim()).reverse().join(',');
}

export interface CtSearchClientOptions {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly dispatcher: Dispatcher;
}

export class CtSearchClient {
  constructor(private readonly opts: CtSearchClientOptions) {}

  get upstream(): string {
    return this.opts.baseUrl;
  }

  /** Logged certificates for a domain; throws on any failure (the caller omits them). */
  async search(domain: string, signal: AbortSignal): Promise<HistoryEntry[]> {
    const url = new URL(this.opts.baseUrl);
    url.searchParams.set('q', domain);
    url.searchParams.set('output', 'json');
    const res = await fetch(url, {
      dispatcher: this.opts.dispatcher,
      headers: { accept: 'application/json' },
      signal: AbortSignal.any([signal, AbortSignal.timeout(this.opts.timeoutMs)]),
    });
    if (res.status !== 200 || res.body === null) {
      await res.body?.cancel();
      throw new Error(`CT search answered HTTP ${res.status}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Uint8Array).byteLength;
      if (size > MAX_BODY_BYTES) throw new Error(`CT search answer larger than ${MAX_BODY_BYTES} bytes`);
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    return parseCtSearch(JSON.parse(Buffer.concat(chunks).toString('utf8')));
  }
}
