// A slot on a shared, frozen dataset record for what one consumer derives from it (the /v1/ip answer's
// geo part, the /v1/mac answer's encoded record part). With random clients the consumer's WeakMap from
// record to derived value cost a hash lookup and its cache misses on every request (~4% of a /v1/mac
// request); a slot created with the record is a property load. Symbol-keyed and not enumerable, so
// JSON, Object.keys and equality checks never see it. Each kind of record has one consumer.

const SLOT = Symbol('derived');

export interface DerivedSlot<V> {
  value: V | undefined;
}

/** Freezes `record` with an empty slot attached. */
export function withDerivedSlot<T extends object>(record: T): Readonly<T> {
  Object.defineProperty(record, SLOT, { value: { value: undefined } });
  return Object.freeze(record);
}

/** The record's slot, or undefined for a record made elsewhere (tests, other sources). */
export function derivedSlot<V>(record: object): DerivedSlot<V> | undefined {
  return (record as { [SLOT]?: DerivedSlot<V> })[SLOT];
}
