// Pure core of /v1/mac: notation parsing, canonical forms, the I/G and U/L bits, and the result shape.
import type { DatasetMeta, OuiRecord } from '../../datasets/types.js';
import { derivedSlot } from '../../datasets/derived-slot.js';
import { answerBuffer } from '../../platform/answer-buffer.js';

export interface ParsedMac {
  /** Upper-case hex digits as given: 12 for an address, 6, 7 or 9 for a prefix query. */
  readonly hex: string;
  /** 48 for an address; 24, 28 or 36 for a prefix query. */
  readonly bits: 24 | 28 | 36 | 48;
}

const HEX_LENGTHS: Readonly<Record<number, 24 | 28 | 36 | 48>> = { 6: 24, 7: 28, 9: 36, 12: 48 };

export const MAC_ACCEPTED =
  'a MAC address in any case with ":", "-", "." or no separators in groups of 2, 4 or 6 hex digits ' +
  '(00:1A:2B:3C:4D:5E, 001a.2b3c.4d5e, 001A2B-3C4D5E, 001A2B3C4D5E), or a prefix of 6, 7 or 9 hex digits (00:1A:2B, 70B3D594D)';

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/**
 * Accepts hex digits with one kind of separator (":", "-" or ".") or none. With separators, every
 * group has the length of the first (2, 4 or 6) except the last, which may be shorter: so
 * "70:B3:D5:94:D", the form the `prefix` field uses, is accepted back. The digits must number 12
 * (an address) or 6, 7 or 9 (an OUI/MA-L, MA-M or MA-S prefix). Null for anything else.
 */
export function parseMac(input: string): ParsedMac | null {
  const n = input.length;
  if (n < 6 || n > 17) return null; // "00:1a:2b:3c:4d:5e" is the longest accepted form
  let sep = 0;
  let groupLen = 0; // length of the first group, once a separator has been seen
  let run = 0;
  let hex = '';
  for (let i = 0; i < n; i++) {
    const c = input.charCodeAt(i);
    if (isHex(c)) {
      run++;
      continue;
    }
    if (c !== 58 && c !== 45 && c !== 46) return null;
    if (sep === 0) {
      sep = c;
      if (run !== 2 && run !== 4 && run !== 6) return null;
      groupLen = run;
    } else if (c !== sep || run !== groupLen) {
      return null; // mixed separators, or a middle group of the wrong length
    }
    hex += input.slice(i - run, i);
    run = 0;
  }
  if (run === 0 || (sep !== 0 && run > groupLen)) return null; // trailing separator or an overlong last group
  hex += input.slice(n - run);
  const bits = HEX_LENGTHS[hex.length];
  if (bits === undefined) return null;
  return { hex: hex.toUpperCase(), bits };
}

/** The first octet of upper-case hex digits (parseMac output). */
export function firstOctet(hex: string): number {
  return hexDigit(hex.charCodeAt(0)) * 16 + hexDigit(hex.charCodeAt(1));
}

function hexDigit(c: number): number {
  return c <= 57 ? c - 48 : c - 55;
}

/** "70B3D594D" → "70:B3:D5:94:D" (pairs joined by ":", an odd last digit alone). */
export function colonForm(hex: string): string {
  let out = hex.slice(0, 2);
  for (let i = 2; i < hex.length; i += 2) out += ':' + hex.slice(i, i + 2);
  return out;
}

export interface MacResult {
  mac: string;
  prefix: string | null;
  prefix_bits: number | null;
  registry: string | null;
  assigned: boolean;
  vendor: string | null;
  address: string | null;
  country: string | null;
  block: { start: string; end: string; size: number } | null;
  multicast: boolean;
  locally_administered: boolean;
  randomized: boolean;
  /** The registry consulted; absent when none was loaded (the answer then comes from the address bits alone). */
  source: { oui?: DatasetMeta };
}

/** The 12 hex digits the registry is searched with: the query padded with zeros, I/G bit cleared. */
export function searchKey(mac: ParsedMac): string {
  const first = firstOctet(mac.hex);
  // IEEE assignments cover an OUI's group addresses too (01:00:5E:… is IANA's 00:00:5E), so the
  // registry is searched with the I/G bit cleared; the reported prefix and block keep the query's bits.
  if ((first & 1) === 0 && mac.hex.length === 12) return mac.hex;
  const head = first & 1 ? (first & 0xfe).toString(16).toUpperCase().padStart(2, '0') : mac.hex.slice(0, 2);
  return (head + mac.hex.slice(2)).padEnd(12, '0');
}

function blockOf(hex: string, bits: number): { start: string; end: string; size: number } {
  const digits = bits / 4;
  const head = hex.slice(0, digits);
  return {
    start: colonForm(head.padEnd(12, '0')),
    end: colonForm(head.padEnd(12, 'F')),
    size: 2 ** (48 - bits),
  };
}

const NO_SOURCE = Object.freeze({});
const sources = new WeakMap<DatasetMeta, { oui: DatasetMeta }>();

function sourceOf(meta: DatasetMeta | null): { oui?: DatasetMeta } {
  if (meta === null) return NO_SOURCE;
  let s = sources.get(meta);
  if (s === undefined) {
    s = Object.freeze({ oui: meta });
    sources.set(meta, s);
  }
  return s;
}

/** Prefix and block of a unicast answer depend only on the record: computed once per record. */
const unicastParts = new WeakMap<OuiRecord, { prefix: string; block: { start: string; end: string; size: number } }>();

function partsOf(mac: ParsedMac, record: OuiRecord, multicast: boolean): { prefix: string; block: { start: string; end: string; size: number } } {
  // A multicast query keeps its I/G bit in prefix and block, so only unicast answers are shared.
  if (multicast) return { prefix: colonForm(mac.hex.slice(0, record.bits / 4)), block: blockOf(mac.hex, record.bits) };
  let parts = unicastParts.get(record);
  if (parts === undefined) {
    parts = { prefix: colonForm(mac.hex.slice(0, record.bits / 4)), block: Object.freeze(blockOf(mac.hex, record.bits)) };
    unicastParts.set(record, parts);
  }
  return parts;
}

/**
 * Shapes the answer. `record` is the registry's longest match for searchKey(mac) (null when none
 * or when the registry is not loaded). Documented choices:
 * - `mac` is the canonical colon form of what was asked: six octets for an address, and for a
 *   prefix query the prefix itself in the same notation as `prefix` ("70:B3:D5", "70:B3:D5:94:D").
 * - A locally administered unicast address is `randomized: true` and `assigned: false` (API.md),
 *   unless a CID assignment covers it: then it is a company's extended local identifier, not random.
 * - A prefix query shorter than the assignment found (e.g. "70B3D5", whose 24 bits the IEEE split
 *   into MA-S blocks) does not name one assignee: `assigned: true`, vendor fields null, and
 *   `prefix`/`block` describe the queried prefix.
 */
export function macResult(mac: ParsedMac, record: OuiRecord | null, meta: DatasetMeta | null): MacResult {
  const first = firstOctet(mac.hex);
  const multicast = (first & 1) === 1;
  const local = (first & 2) === 2;
  const source = sourceOf(meta);
  const canonical = colonForm(mac.hex);
  const cid = record !== null && record.registry === 'CID';

  if (local && !multicast && !cid) {
    return {
      mac: canonical, prefix: null, prefix_bits: null, registry: null, assigned: false,
      vendor: null, address: null, country: null, block: null,
      multicast, locally_administered: local, randomized: true, source,
    };
  }
  if (record === null) {
    return {
      mac: canonical, prefix: null, prefix_bits: null, registry: null, assigned: false,
      vendor: null, address: null, country: null, block: null,
      multicast, locally_administered: local, randomized: false, source,
    };
  }
  if (record.bits > mac.bits) {
    return {
      mac: canonical, prefix: colonForm(mac.hex), prefix_bits: mac.bits, registry: null, assigned: true,
      vendor: null, address: null, country: null, block: blockOf(mac.hex, mac.bits),
      multicast, locally_administered: local, randomized: false, source,
    };
  }
  const parts = partsOf(mac, record, multicast);
  return {
    mac: canonical,
    prefix: parts.prefix,
    prefix_bits: record.bits,
    registry: record.registry,
    assigned: true,
    vendor: record.vendor,
    address: record.address,
    country: record.country,
    block: parts.block,
    multicast,
    locally_administered: local,
    randomized: false,
    source,
  };
}

/** The members after `mac` of a unicast answer inside a record, encoded once per record and registry version. */
interface UnicastPart {
  readonly meta: DatasetMeta | null;
  readonly bytes: Buffer;
}
const unicastBytes = new WeakMap<OuiRecord, UnicastPart>();
const MAC_HEAD = Buffer.from('{"mac":"');
const MAC_MID = Buffer.from('",');

/**
 * The members after `mac` of a unicast answer inside `record`, as UTF-8 without the opening brace:
 * the same for every address the record covers (the caller checks that the answer is that kind).
 */
export function macUnicastPart(record: OuiRecord, meta: DatasetMeta | null): Buffer {
  const { mac: _ignored, ...rest } = macResult({ hex: record.prefix.padEnd(12, '0'), bits: 48 }, record, meta);
  return Buffer.from(JSON.stringify(rest).slice(1));
}

/**
 * JSON.stringify(macResult(...)) as UTF-8. For a unicast address inside an assignment (the common
 * answer) every member but `mac` depends on the record alone, so that part is encoded once per record
 * and the answer is copied together from it and the canonical address (ASCII, nothing to escape).
 */
export function macResultBytes(mac: ParsedMac, record: OuiRecord | null, meta: DatasetMeta | null): Buffer {
  const first = firstOctet(mac.hex);
  const shared = record !== null && (first & 1) === 0 && record.bits <= mac.bits && ((first & 2) === 0 || record.registry === 'CID');
  if (!shared) return Buffer.from(JSON.stringify(macResult(mac, record, meta)));
  // Records from the OUI source carry a slot for this; others (tests) are kept in a WeakMap.
  const slot = derivedSlot<UnicastPart>(record);
  let cached = slot !== undefined ? slot.value : unicastBytes.get(record);
  if (cached === undefined || cached.meta !== meta) {
    cached = { meta, bytes: macUnicastPart(record, meta) };
    if (slot !== undefined) slot.value = cached;
    else unicastBytes.set(record, cached);
  }
  return macBytesWith(mac.hex, cached.bytes);
}

/** `{"mac":"<hex in colon form>",` followed by `rest`. */
export function macBytesWith(hex: string, rest: Uint8Array): Buffer {
  // The address in colon form, written digit by digit (colonForm() as bytes, without its string pieces).
  const colonLength = hex.length + ((hex.length - 1) >> 1);
  const out = answerBuffer(MAC_HEAD.length + colonLength + MAC_MID.length + rest.length);
  let p = 0;
  for (let i = 0; i < MAC_HEAD.length; i++) out[p++] = MAC_HEAD[i]!;
  for (let i = 0; i < hex.length; i++) {
    if (i > 0 && (i & 1) === 0) out[p++] = 0x3a;
    out[p++] = hex.charCodeAt(i);
  }
  for (let i = 0; i < MAC_MID.length; i++) out[p++] = MAC_MID[i]!;
  out.set(rest, p);
  return out;
}
