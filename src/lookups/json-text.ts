// Response bodies assembled from serialised fragments. A lookup answer is mostly parts shared by many
// requests (a record's fields, the dataset source); serialising those once per object instead of once
// per request is most of what a local lookup costs otherwise. Every text built this way is checked
// equal to JSON.stringify of the object form by the lookups' tests.

const memberText = new WeakMap<object, string>();

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
