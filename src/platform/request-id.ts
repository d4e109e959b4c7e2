// Generated X-Request-Id values: random (version 4) UUIDs, made a batch at a time. crypto.randomUUID()
// assembles each id from 20 string pieces that are flattened again when the id is written out; here a
// batch is written as bytes into one string and each id is a slice of it (V8 keeps a slice as a view of
// the batch string, so an id costs one small object).
import crypto from 'node:crypto';

const BATCH = 256;
const UUID_BYTES = 16;
const UUID_CHARS = 36;
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/** Writes the canonical text of the 16 bytes at `r[from]` into `out[to]`. */
function writeUuid(r: Uint8Array, from: number, out: Uint8Array, to: number): void {
  let p = to;
  for (let i = 0; i < UUID_BYTES; i++) {
    const b = r[from + i]!;
    out[p++] = HEX[b >> 4]!;
    out[p++] = HEX[b & 15]!;
    if (i === 3 || i === 5 || i === 7 || i === 9) out[p++] = 0x2d; // 8-4-4-4-12
  }
}

/** A source of random version 4 UUIDs (RFC 9562 §5.4) in lower-case canonical text. */
export function createRequestIds(): () => string {
  const random = Buffer.alloc(BATCH * UUID_BYTES);
  const text = Buffer.alloc(BATCH * UUID_CHARS);
  let batch = '';
  let next = BATCH;
  const refill = (): void => {
    crypto.randomFillSync(random);
    for (let i = 0; i < BATCH; i++) {
      const at = i * UUID_BYTES;
      random[at + 6] = (random[at + 6]! & 0x0f) | 0x40; // version 4
      random[at + 8] = (random[at + 8]! & 0x3f) | 0x80; // variant 10
      writeUuid(random, at, text, i * UUID_CHARS);
    }
    batch = text.toString('latin1');
    next = 0;
  };
  return () => {
    if (next === BATCH) refill();
    const at = next++ * UUID_CHARS;
    return batch.slice(at, at + UUID_CHARS);
  };
}
