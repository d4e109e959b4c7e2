import { describe, expect, it } from 'vitest';
import { answerBuffer } from '../../../src/platform/answer-buffer.js';

describe('answerBuffer', () => {
  it('hands out disjoint buffers of the asked length, 8-byte aligned, across slab boundaries', () => {
    const bufs: Buffer[] = [];
    // Enough to fill several 64 KiB slabs, with odd sizes so alignment and the slab switch are exercised.
    for (let i = 0; i < 2000; i++) {
      const n = (i * 37) % 300;
      const b = answerBuffer(n);
      expect(b.length).toBe(n);
      expect(b.byteOffset % 8).toBe(0);
      b.fill(i & 255);
      bufs.push(b);
    }
    bufs.forEach((b, i) => expect(b.every((x) => x === (i & 255))).toBe(true));
    expect(new Set(bufs.map((b) => b.buffer)).size).toBeGreaterThan(1);
  });

  it('gives large answers their own allocation instead of a slab', () => {
    const big = answerBuffer(200_000);
    expect(big.length).toBe(200_000);
    expect(big.buffer.byteLength).toBe(200_000);
  });
});

describe('answerBuffer buffers', () => {
  it('are Buffers in every way the daemon and its tests use them', () => {
    const b = answerBuffer(4);
    expect(b.write('héy')).toBe(4);
    expect(Buffer.isBuffer(b)).toBe(true);
    expect(b.toString('utf8')).toBe('héy');
    expect(b.toString('latin1', 3)).toBe('y');
    expect(b.subarray(1).toString('hex')).toBe('c3a979');
    expect(Buffer.concat([b, Buffer.from('!')]).toString()).toBe('héy!');
    expect(b.equals(Buffer.from('héy'))).toBe(true);
    expect(b).toEqual(Buffer.from('héy'));
    expect(Object.getPrototypeOf(b.subarray(1))).toBe(Buffer.prototype);
  });
});
