import { describe, expect, it } from 'vitest';
import { derivedSlot, withDerivedSlot } from '../../../src/datasets/derived-slot.js';
import { GeoFieldsCache, geoFields } from '../../../src/lookups/ip/core.js';
import { macResult, macResultBytes, parseMac } from '../../../src/lookups/mac/core.js';
import type { GeoRecord, OuiRecord } from '../../../src/datasets/types.js';

const GEO: GeoRecord = {
  city: 'Mountain View', region: 'California', region_code: 'CA', country_code: 'US', continent_code: 'NA', postal: null,
  latitude: 37.422, longitude: -122.085, accuracy_radius_km: null, timezone: null,
};

describe('derived slots', () => {
  it('are invisible to JSON, keys and equality, and leave the record frozen', () => {
    const rec = withDerivedSlot({ ...GEO });
    expect(Object.isFrozen(rec)).toBe(true);
    expect(Object.keys(rec)).toEqual(Object.keys(GEO));
    expect(JSON.stringify(rec)).toBe(JSON.stringify(GEO));
    expect(rec).toEqual(GEO);
    const slot = derivedSlot<number>(rec)!;
    slot.value = 42;
    expect(derivedSlot<number>(rec)!.value).toBe(42);
    expect(derivedSlot({ ...GEO })).toBeUndefined();
  });

  it('hold the /v1/ip geo fields: derived once, equal to the unslotted derivation', () => {
    const cache = new GeoFieldsCache();
    const rec = withDerivedSlot({ ...GEO });
    const first = cache.get(rec);
    expect(cache.get(rec)).toBe(first);
    expect(derivedSlot(rec)!.value).toBe(first);
    expect(first).toEqual(geoFields(GEO));
    expect(cache.get({ ...GEO })).toEqual(first); // the WeakMap path for records without a slot
  });

  it('hold the /v1/mac record part, per registry version', () => {
    const record: OuiRecord = { prefix: 'B827EB', bits: 24, registry: 'MA-L', vendor: 'Mudberry Pi Trading Ltd', address: '1 Mud Lane, Cambridge', country: 'GB' };
    const slotted = withDerivedSlot({ ...record });
    const v1 = { dataset: 'oui v1', built_at: null };
    const v2 = { dataset: 'oui v2', built_at: '2026-11-01T00:00:00Z' };
    for (const [hex, meta] of [['B827EB000001', v1], ['B827EBFFFFFE', v1], ['B827EB000001', v2]] as const) {
      const mac = parseMac(hex)!;
      expect(macResultBytes(mac, slotted, meta).toString()).toBe(JSON.stringify(macResult(mac, record, meta)));
    }
  });
});
