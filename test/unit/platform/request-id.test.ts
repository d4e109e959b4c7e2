import { describe, expect, it } from 'vitest';
import { createRequestIds } from '../../../src/platform/request-id.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('createRequestIds', () => {
  it('gives version 4 UUIDs in canonical text, all distinct across many batches', () => {
    const next = createRequestIds();
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const id = next();
      expect(id).toMatch(V4);
      seen.add(id);
    }
    expect(seen.size).toBe(5000);
  });

  it('draws its bits at random: every hex digit of the random positions occurs, evenly enough', () => {
    const next = createRequestIds();
    const counts = new Map<string, number>();
    const n = 4000;
    for (let i = 0; i < n; i++) {
      // The 30 hex digits that carry only random bits (not the version, the variant digit or the dashes).
      const digits = next().replace(/-/g, '');
      for (let k = 0; k < 32; k++) if (k !== 12 && k !== 16) counts.set(digits[k]!, (counts.get(digits[k]!) ?? 0) + 1);
    }
    const expected = (n * 30) / 16;
    expect([...counts.keys()].sort().join('')).toBe('0123456789abcdef');
    for (const c of counts.values()) expect(Math.abs(c - expected) / expected).toBeLessThan(0.05);
  });

  it('gives independent sequences to independent sources', () => {
    const a = createRequestIds();
    const b = createRequestIds();
    const fromA = new Set(Array.from({ length: 300 }, () => a()));
    for (let i = 0; i < 300; i++) expect(fromA.has(b())).toBe(false);
  });
});
