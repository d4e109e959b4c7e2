// DNS wire messages: building the query and validating and decoding a response, with dns2's Packet
// codec. Pure: no I/O. dns2 types stay inside this file; callers see our own types.
import { randomInt } from 'node:crypto';
import { Packet } from 'dns2';
import { MalformedRecordError, toApiRecord, type WireRecord } from './records.js';
import { TYPE_CODE, type DnsAnswer, type QueryType } from './types.js';

const CLASS_IN = 1;
const TYPE_OPT = 41;
/** RFC 9715 / DNS flag day 2020: a payload size that avoids IP fragmentation. */
export const EDNS_UDP_PAYLOAD = 1232;
/** Largest DNS message (the TCP length prefix is 16 bits). */
export const MAX_MESSAGE_BYTES = 65535;
const HEADER_BYTES = 12;

// The parts of dns2's decoded packet we read; its bundled typings omit some (ad, EDNS options).
interface WireHeader {
  readonly id: number; readonly qr: number; readonly opcode: number; readonly tc: number; readonly ad: number; readonly rcode: number;
  readonly qdcount: number; readonly ancount: number; readonly nscount: number; readonly arcount: number;
}
interface WirePacket {
  readonly header: WireHeader;
  readonly questions: readonly { readonly name: string; readonly type: number; readonly class: number }[];
  readonly answers: readonly WireRecord[];
  readonly authorities: readonly WireRecord[];
  readonly additionals: readonly WireRecord[];
}
const PacketCodec = Packet as unknown as {
  new (): { header: unknown; questions: unknown[]; additionals: unknown[]; toBuffer(): Buffer };
  parse(buf: Buffer): WirePacket;
  Header: new (h: Record<string, number>) => unknown;
  Resource: { EDNS(options: unknown[], opts: { udpPayloadSize: number }): unknown };
};

export interface Question {
  /** ASCII name without the trailing dot. */
  readonly name: string;
  readonly type: QueryType;
}

/** The response is not a valid answer to our question: the resolver sent garbage. */
export class InvalidResponseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidResponseError';
  }
}

/** A random 16-bit id (RFC 5452: unpredictable ids make forged answers harder). */
export function randomQueryId(): number {
  return randomInt(0x10000);
}

/**
 * A recursive query with EDNS0 and AD=1. AD=1 asks a validating resolver to report whether it
 * validated the answer (RFC 6840 §5.7) without DO=1, which would add RRSIGs to the answer section.
 */
export function encodeQuery(q: Question, id: number): Buffer {
  const p = new PacketCodec();
  p.header = new PacketCodec.Header({ id, rd: 1, ad: 1 });
  p.questions = [{ name: q.name, type: TYPE_CODE[q.type], class: CLASS_IN }];
  p.additionals = [PacketCodec.Resource.EDNS([], { udpPayloadSize: EDNS_UDP_PAYLOAD })];
  return p.toBuffer();
}

/** The id in a message's header, or null when it is too short to have one. */
export function messageId(buf: Buffer): number | null {
  return buf.length >= 2 ? buf.readUInt16BE(0) : null;
}

/** Whether the TC (truncated) bit is set; the caller retries over TCP. */
export function isTruncated(buf: Buffer): boolean {
  return buf.length >= HEADER_BYTES && (buf[2]! & 0x02) !== 0;
}

/**
 * Checks that `buf` is a response to query `id` for `q` and decodes it.
 * @throws InvalidResponseError on anything that is not a well-formed answer to our question.
 */
export function decodeResponse(buf: Buffer, q: Question, id: number): DnsAnswer {
  if (buf.length < HEADER_BYTES) throw new InvalidResponseError(`response of ${buf.length} bytes is shorter than a DNS header`);
  if (buf.length > MAX_MESSAGE_BYTES) throw new InvalidResponseError('response is larger than a DNS message can be');
  // Each question takes at least 5 octets and each record at least 11: counts that cannot fit are
  // garbage, refused before dns2 spends time on thousands of phantom entries.
  const counts = [4, 6, 8, 10].map((o) => buf.readUInt16BE(o));
  if (HEADER_BYTES + counts[0]! * 5 + (counts[1]! + counts[2]! + counts[3]!) * 11 > buf.length) {
    throw new InvalidResponseError('response section counts exceed its size');
  }
  let p: WirePacket;
  try {
    p = PacketCodec.parse(buf);
  } catch (e) {
    throw new InvalidResponseError('response could not be decoded', { cause: e });
  }
  const h = p.header;
  if (h.id !== id) throw new InvalidResponseError('response id does not match the query');
  if (h.qr !== 1) throw new InvalidResponseError('message is a query, not a response');
  if (h.opcode !== 0) throw new InvalidResponseError(`response has opcode ${h.opcode}, not QUERY`);
  // dns2 skips a record it cannot decode and carries on; a count that does not add up means the
  // message was cut short or corrupt.
  if (p.questions.length !== h.qdcount || p.answers.length !== h.ancount || p.authorities.length !== h.nscount || p.additionals.length !== h.arcount) {
    throw new InvalidResponseError('response sections do not match their counts');
  }
  const rcode = h.rcode;
  // FORMERR/NOTIMP/REFUSED answers may legitimately omit the question (RFC 1035 leaves it open).
  if (h.qdcount === 0 ? rcode === 0 || rcode === 3 : h.qdcount !== 1) {
    throw new InvalidResponseError(`response carries ${h.qdcount} questions`);
  }
  const question = p.questions[0];
  if (question !== undefined) {
    // Compared case-insensitively: resolvers may echo 0x20-randomised or re-cased names.
    if (question.name.toLowerCase() !== q.name.toLowerCase() || question.type !== TYPE_CODE[q.type] || question.class !== CLASS_IN) {
      throw new InvalidResponseError('response is for a different question');
    }
  }
  try {
    return {
      rcode,
      authenticated: h.ad === 1,
      truncated: h.tc === 1,
      answers: p.answers.filter(isData).map(toApiRecord),
      authority: p.authorities.filter(isData).map(toApiRecord),
    };
  } catch (e) {
    if (e instanceof MalformedRecordError) throw new InvalidResponseError(e.message, { cause: e });
    throw e;
  }
}

// OPT is a pseudo-record, and other classes (CHAOS, HESIOD) never answer an IN question.
function isData(r: WireRecord): boolean {
  return r.type !== TYPE_OPT && r.class === CLASS_IN;
}
