// Response bodies assembled from serialised fragments. A lookup answer is mostly parts shared by many
// requests (a record's fields, the dataset source); serialising those once per object instead of once
// per request is most of what a local lookup costs otherwise. Every text built this way is checked
// equal to JSON.stringify of the object form by the lookups' tests.

const memberText = new WeakMap<object, string>();
const MEMBER_BYTES = Symbol('JSON members, UTF-8');

/**
 * Freezes `o` with its JSON members (no braces) attached as UTF-8 bytes, under a symbol key and not
 * enumerable: JSON.stringify, Object.keys and deep-equality checks all skip it. For the objects a hot
 * answer is copied together from on every request: reading the bytes back is a property load (the
 * WeakMap lookups of membersOnce were ~4% of a /v1/ip request), and a body of bytes is not flattened and
 * re-encoded by the server (another ~4%).
 */
export function withMemberBytes<T extends object>(o: T): Readonly<T> {
  Object.defineProperty(o, MEMBER_BYTES, { value: Buffer.from(JSON.stringify(o).slice(1, -1)) });
  return Object.freeze(o);
}

/** The bytes withMemberBytes() attached, or the members encoded now for any other object. */
export function memberBytes(o: object): Buffer {
  return (o as { [MEMBER_BYTES]?: Buffer })[MEMBER_BYTES] ?? Buffer.from(membersOnce(o));
}

/** An immutable object's JSON members without the braces, serialised once per object. */
export function membersOnce(o: object): string {
  let m = memberText.get(o);
  if (m === undefined) {
    m = JSON.stringify(o).slice(1, -1);
    memberText.set(o, m);
  }
  return m;
}

/** An immutable object's JSON, serialised once per object. */
export function jsonOnce(o: object): string {
  return `{${membersOnce(o)}}`;
}

/** JSON of a string or null. */
export function jsonString(s: string | null): string {
  return s === null ? 'null' : JSON.stringify(s);
}

// Names, countries and dates repeat across answers; their JSON is memoised (bounded: cleared when full).
const STRING_CACHE_MAX = 65_536;
const stringText = new Map<string, string>();

/** jsonString for values drawn from a dataset (few distinct values), memoised. */
export function jsonDatasetString(s: string | null): string {
  if (s === null) return 'null';
  let t = stringText.get(s);
  if (t === undefined) {
    if (stringText.size >= STRING_CACHE_MAX) stringText.clear();
    t = JSON.stringify(s);
    stringText.set(s, t);
  }
  return t;
}
