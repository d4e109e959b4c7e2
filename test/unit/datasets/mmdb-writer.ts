// A small MaxMind DB writer for tests: builds real mmdb files (search tree, data section, metadata) so
// the geo code is tested against the binary format, not against mocks.
import net from 'node:net';

type Value = string | number | boolean | Value[] | { [k: string]: Value } | { double: number } | { float: number } | { uint64: bigint };

function ctrl(type: number, size: number): Buffer {
  const ext = type > 7;
  const typeBits = ext ? 0 : type << 5;
  let head: number[];
  if (size < 29) head = [typeBits | size];
  else if (size < 285) head = [typeBits | 29, size - 29];
  else if (size < 65821) head = [typeBits | 30, (size - 285) >> 8, (size - 285) & 255];
  else head = [typeBits | 31, ((size - 65821) >> 16) & 255, ((size - 65821) >> 8) & 255, (size - 65821) & 255];
  if (ext) head.splice(1, 0, type - 7);
  return Buffer.from(head);
}

function uintBytes(n: bigint): Buffer {
  const out: number[] = [];
  while (n > 0n) {
    out.unshift(Number(n & 255n));
    n >>= 8n;
  }
  return Buffer.from(out);
}

export function encode(v: Value): Buffer {
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    return Buffer.concat([ctrl(2, b.length), b]);
  }
  if (typeof v === 'boolean') return ctrl(14, v ? 1 : 0);
  if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= 0 && v <= 0xffffffff) {
      const b = uintBytes(BigInt(v));
      return Buffer.concat([ctrl(v <= 0xffff ? 5 : 6, b.length), b]);
    }
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v);
    return Buffer.concat([ctrl(3, 8), b]);
  }
  if (Array.isArray(v)) return Buffer.concat([ctrl(11, v.length), ...v.map(encode)]);
  if ('double' in v && typeof v.double === 'number') {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v.double);
    return Buffer.concat([ctrl(3, 8), b]);
  }
  if ('float' in v && typeof v.float === 'number') {
    const b = Buffer.alloc(4);
    b.writeFloatBE(v.float);
    return Buffer.concat([ctrl(15, 4), b]);
  }
  if ('uint64' in v && typeof v.uint64 === 'bigint') {
    const b = uintBytes(v.uint64);
    return Buffer.concat([ctrl(9, b.length), b]);
  }
  const entries = Object.entries(v as Record<string, Value>);
  return Buffer.concat([ctrl(7, entries.length), ...entries.flatMap(([k, val]) => [encode(k), encode(val)])]);
}

function addrBits(ip: string, ipVersion: 4 | 6): number[] {
  const bits: number[] = [];
  if (net.isIPv4(ip)) {
    const parts = ip.split('.').map(Number);
    if (ipVersion === 6) for (let i = 0; i < 96; i++) bits.push(0);
    for (const p of parts) for (let i = 7; i >= 0; i--) bits.push((p >> i) & 1);
    return bits;
  }
  const full = expandV6(ip);
  for (const g of full) for (let i = 15; i >= 0; i--) bits.push((g >> i) & 1);
  return bits;
}

function expandV6(ip: string): number[] {
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const h = head === '' ? [] : head.split(':').map((x) => parseInt(x, 16));
  const t = tail === undefined || tail === '' ? [] : tail.split(':').map((x) => parseInt(x, 16));
  const zeros = tail === undefined ? [] : new Array(8 - h.length - t.length).fill(0);
  return [...h, ...zeros, ...t];
}

export interface MmdbNetwork {
  /** "8.8.8.0/24" or "2001:db8::/32"; IPv4 networks go under ::/96 in an IPv6 tree. */
  readonly cidr: string;
  readonly data: Value;
}

export interface MmdbOptions {
  readonly ipVersion: 4 | 6;
  readonly databaseType: string;
  readonly buildEpoch?: number;
  readonly recordSize?: 24 | 28 | 32;
  readonly networks: readonly MmdbNetwork[];
}

/** Builds an mmdb file (record size 24 unless given). Networks must not overlap. */
export function buildMmdb(opts: MmdbOptions): Buffer {
  type Child = { node: number } | { data: number } | null;
  const nodes: [Child, Child][] = [[null, null]];
  const dataParts: Buffer[] = [];
  let dataSize = 0;
  for (const n of opts.networks) {
    const [ip, lenText] = n.cidr.split('/') as [string, string];
    let len = Number(lenText);
    if (opts.ipVersion === 6 && net.isIPv4(ip)) len += 96;
    const bits = addrBits(ip, opts.ipVersion);
    const enc = encode(n.data);
    const offset = dataSize;
    dataParts.push(enc);
    dataSize += enc.length;
    let node = 0;
    for (let d = 0; d < len - 1; d++) {
      const b = bits[d]!;
      const child = nodes[node]![b];
      if (child !== null && 'node' in child) {
        node = child.node;
      } else {
        nodes.push([null, null]);
        nodes[node]![b] = { node: nodes.length - 1 };
        node = nodes.length - 1;
      }
    }
    nodes[node]![bits[len - 1]!] = { data: offset };
  }
  const nodeCount = nodes.length;
  const recordSize = opts.recordSize ?? 24;
  const nodeBytes = recordSize / 4;
  const tree = Buffer.alloc(nodeCount * nodeBytes);
  const rec = (c: Child): number => (c === null ? nodeCount : 'node' in c ? c.node : nodeCount + 16 + c.data);
  nodes.forEach(([l, r], i) => {
    const o = i * nodeBytes;
    const a = rec(l);
    const b = rec(r);
    if (recordSize === 24) {
      tree.writeUIntBE(a, o, 3);
      tree.writeUIntBE(b, o + 3, 3);
    } else if (recordSize === 28) {
      tree.writeUIntBE(a & 0xffffff, o, 3);
      tree[o + 3] = ((a >>> 24) << 4) | (b >>> 24);
      tree.writeUIntBE(b & 0xffffff, o + 4, 3);
    } else {
      tree.writeUInt32BE(a, o);
      tree.writeUInt32BE(b, o + 4);
    }
  });
  const meta = encode({
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: { uint64: BigInt(opts.buildEpoch ?? 1780000000) },
    database_type: opts.databaseType,
    description: { en: 'netintel test database' },
    ip_version: opts.ipVersion,
    languages: ['en'],
    node_count: nodeCount,
    record_size: recordSize,
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...dataParts, Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com'), meta]);
}

/** A flat DB-IP / ip-location-db record. */
export function flatRecord(cc: string, city: string, lat: number, lon: number): Value {
  return { city, country_code: cc, latitude: { float: lat }, longitude: { float: lon }, postcode: '', state1: `${city} State`, state2: '', timezone: '' };
}

/** A GeoIP2 City record. */
export function geoip2Record(cc: string, city: string, lat: number, lon: number, tz: string): Value {
  return {
    city: { geoname_id: 1, names: { en: city } },
    continent: { code: 'EU', geoname_id: 2, names: { en: 'Europe' } },
    country: { geoname_id: 3, iso_code: cc, names: { en: 'Country' } },
    location: { accuracy_radius: 50, latitude: { double: lat }, longitude: { double: lon }, time_zone: tz },
    postal: { code: '10115' },
    subdivisions: [{ geoname_id: 4, iso_code: 'BE', names: { en: 'Land Berlin' } }],
  };
}
