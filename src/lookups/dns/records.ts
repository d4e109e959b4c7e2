// Decoded resource records → the API's record objects: presentation-format `data` (as dig prints it)
// plus the parsed fields of each type. Pure: no I/O.
import net from 'node:net';

/** A resource record as the wire decoder (dns2) leaves it: common fields plus type-specific ones. */
export interface WireRecord {
  readonly name: string;
  readonly type: number;
  readonly class: number;
  readonly ttl: number;
  readonly [field: string]: unknown;
}

export interface ApiRecord {
  readonly name: string;
  readonly type: string;
  readonly ttl: number;
  readonly data: string;
  readonly [field: string]: unknown;
}

/** A record whose RDATA is not what its type promises: the response is garbage. */
export class MalformedRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedRecordError';
  }
}

/** Mnemonics of types that may show up in an answer besides the nine we ask for. */
const TYPE_NAME: Readonly<Record<number, string>> = {
  1: 'A', 2: 'NS', 5: 'CNAME', 6: 'SOA', 12: 'PTR', 13: 'HINFO', 15: 'MX', 16: 'TXT', 28: 'AAAA', 33: 'SRV',
  35: 'NAPTR', 39: 'DNAME', 41: 'OPT', 43: 'DS', 46: 'RRSIG', 47: 'NSEC', 48: 'DNSKEY', 50: 'NSEC3', 52: 'TLSA',
  64: 'SVCB', 65: 'HTTPS', 99: 'SPF', 257: 'CAA',
};

export function typeName(code: number): string {
  return TYPE_NAME[code] ?? `TYPE${code}`;
}

/** Maps one decoded record to the API shape. @throws MalformedRecordError */
export function toApiRecord(r: WireRecord): ApiRecord {
  const name = hostOf(r.name);
  const ttl = r.ttl;
  if (!Number.isInteger(ttl) || ttl < 0) throw new MalformedRecordError(`bad TTL on ${name}`);
  // Key order as API.md shows it: name, type, ttl, data, then the parsed fields.
  const rec = (type: string, data: string, fields: Record<string, unknown> = {}): ApiRecord => ({ name, type, ttl, data, ...fields });
  switch (r.type) {
    case 1: {
      const address = str(r, 'address');
      if (!net.isIPv4(address)) throw new MalformedRecordError(`bad A address for ${name}`);
      return rec('A', address, { address });
    }
    case 28: {
      const address = str(r, 'address');
      if (!net.isIPv6(address)) throw new MalformedRecordError(`bad AAAA address for ${name}`);
      return rec('AAAA', address, { address });
    }
    case 15: {
      const priority = u16(r, 'priority');
      const exchange = str(r, 'exchange');
      return rec('MX', `${priority} ${absolute(exchange)}`, { priority, exchange: hostOf(exchange) });
    }
    case 16:
    case 99: {
      const strings = r['data'];
      if (!Array.isArray(strings) || !strings.every((s): s is string => typeof s === 'string')) throw new MalformedRecordError(`bad TXT data for ${name}`);
      return rec(typeName(r.type), strings.map(quoteString).join(' '), { text: strings.join(''), strings: [...strings] });
    }
    case 2: {
      const host = str(r, 'ns');
      return rec('NS', absolute(host), { host: hostOf(host) });
    }
    case 5:
    case 12: {
      const target = str(r, 'domain');
      return rec(typeName(r.type), absolute(target), { target: hostOf(target) });
    }
    case 6: {
      const mname = str(r, 'primary');
      const rname = str(r, 'admin');
      const serial = u32(r, 'serial');
      const refresh = u32(r, 'refresh');
      const retry = u32(r, 'retry');
      const expire = u32(r, 'expiration');
      const minimum = u32(r, 'minimum');
      return rec('SOA', `${absolute(mname)} ${absolute(rname)} ${serial} ${refresh} ${retry} ${expire} ${minimum}`, {
        mname: hostOf(mname), rname: hostOf(rname), serial, refresh, retry, expire, minimum,
      });
    }
    case 33: {
      const priority = u16(r, 'priority');
      const weight = u16(r, 'weight');
      const port = u16(r, 'port');
      const target = str(r, 'target');
      return rec('SRV', `${priority} ${weight} ${port} ${absolute(target)}`, { priority, weight, port, target: hostOf(target) });
    }
    case 257: {
      const flags = u8(r, 'flags');
      const tag = str(r, 'tag');
      const value = str(r, 'value');
      if (tag.length === 0 || !/^[A-Za-z0-9]+$/.test(tag)) throw new MalformedRecordError(`bad CAA tag for ${name}`);
      return rec('CAA', `${flags} ${tag} ${quoteString(value)}`, { flags, tag, value });
    }
    default:
      return rec(typeName(r.type), genericData(r));
  }
}

/** Presentation form of a name, without the trailing dot ("." for the root). */
export function hostOf(wireName: string): string {
  if (wireName === '' || wireName === '.') return '.';
  return wireName.split('.').map(escapeLabel).join('.');
}

/** Presentation form with the trailing dot, as dig prints names inside RDATA. */
export function absolute(wireName: string): string {
  const h = hostOf(wireName);
  return h === '.' ? '.' : `${h}.`;
}

// The decoder gives one character per octet (Latin-1). BIND's master-file escaping: the characters
// that are special in zone files get a backslash, other non-printable octets become \DDD.
function escapeLabel(label: string): string {
  let out = '';
  for (let i = 0; i < label.length; i++) {
    const c = label.charCodeAt(i) & 0xff;
    if (c <= 0x20 || c >= 0x7f) out += `\\${String(c).padStart(3, '0')}`;
    else if ('"();\\@$'.includes(label[i]!)) out += `\\${label[i]}`;
    else out += label[i];
  }
  return out;
}

/** A <character-string> in presentation form: quoted, `"` and `\` escaped, octets outside printable ASCII as \DDD (dig's form). */
export function quoteString(s: string): string {
  let out = '"';
  for (const b of Buffer.from(s, 'utf8')) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b < 0x20 || b >= 0x7f) out += `\\${String(b).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}

// RFC 3597 generic form for types we do not decode (e.g. DNAME or RRSIG in an answer).
function genericData(r: WireRecord): string {
  const raw = r['data'];
  if (Buffer.isBuffer(raw)) return raw.length === 0 ? '\\# 0' : `\\# ${raw.length} ${raw.toString('hex').toUpperCase()}`;
  if (r.type === 48) return `${String(r['flags'])} ${String(r['protocol'])} ${String(r['algorithm'])} ${String(r['key'])}`;
  return '\\# 0';
}

function str(r: WireRecord, field: string): string {
  const v = r[field];
  if (typeof v !== 'string') throw new MalformedRecordError(`${typeName(r.type)} record without ${field}`);
  return v;
}

function uint(r: WireRecord, field: string, max: number): number {
  const v = r[field];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw new MalformedRecordError(`${typeName(r.type)} record with bad ${field}`);
  return v;
}

const u8 = (r: WireRecord, f: string): number => uint(r, f, 0xff);
const u16 = (r: WireRecord, f: string): number => uint(r, f, 0xffff);
const u32 = (r: WireRecord, f: string): number => uint(r, f, 0xffffffff);
