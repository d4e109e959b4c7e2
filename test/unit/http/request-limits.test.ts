import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_HEADER_BYTES, requestShapeError } from '../../../src/http/request-limits.js';

describe('requestShapeError', () => {
  it('accepts ordinary GET headers', () => {
    expect(requestShapeError({ host: 'x', accept: '*/*', 'content-length': '0' })).toBeNull();
    expect(requestShapeError({})).toBeNull();
  });
  it('refuses any body and oversized header blocks with a 400', () => {
    for (const h of [{ 'content-length': '5' }, { 'transfer-encoding': 'chunked' }, { 'content-length': 'abc' }, { 'x-big': 'a'.repeat(MAX_HEADER_BYTES) }]) {
      const e = requestShapeError(h);
      expect(e?.status, JSON.stringify(h).slice(0, 40)).toBe(400);
      expect(e?.message).toMatch(/not accepted|too large/);
    }
  });
  it('never throws', () => {
    fc.assert(fc.property(fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 100 })), (h) => {
      const e = requestShapeError(h);
      expect(e === null || e.status === 400).toBe(true);
    }), { numRuns: 300 });
  });
});
