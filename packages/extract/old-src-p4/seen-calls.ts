// De-duplication of calls: the same name with the same arguments (whatever the key order) is one call.

function collectKeys(value: unknown, keys: Set<string>): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) collectKeys(item, keys);
    return;
  }
  for (const key of Object.keys(value)) {
    keys.add(key);
    collectKeys((value as Record<string, unknown>)[key], keys);
  }
}

/**
 * JSON with sorted keys: two spellings of the same arguments give the same key. A key list
 * passed to `JSON.stringify` orders the members of every object by that list, so the native
 * serializer does the work.
 */
function canonical(value: Record<string, unknown>): string {
  const keys = new Set<string>();
  collectKeys(value, keys);
  return JSON.stringify(value, [...keys].sort());
}

/**
 * Whether two values have the same canonical key (`canonical`), compared directly: the same
 * members whatever their order, the same items in order, equal primitives. Stops at the first
 * difference, so comparing a call with a few earlier ones costs less than making their keys.
 */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) if (!Object.hasOwn(right, key) || !sameValue(left[key], right[key])) return false;
  return true;
}

/** A string hash over every character of short strings and 32 evenly spread ones of long strings. */
function stringHash(s: string): number {
  const n = s.length;
  const step = n <= 64 ? 1 : Math.floor(n / 32);
  let h = Math.imul(n, 0x9e3779b1);
  for (let i = 0; i < n; i += step) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * A cheap fingerprint of a value that ignores the order of object keys (members are
 * combined by addition): equal values always get equal fingerprints, so only calls whose
 * fingerprints collide need the full canonical comparison.
 */
function fingerprint(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return stringHash(value);
    case 'number':
      return (Math.imul(value | 0, 0x85ebca6b) ^ ((value * 1e6) | 0)) | 0;
    case 'boolean':
      return value ? 0x1234567 : 0x7654321;
    case 'object': {
      if (value === null) return 0x0f0f0f0f;
      if (Array.isArray(value)) {
        let h = 0x3c6ef372;
        for (const item of value) h = (Math.imul(h, 31) + fingerprint(item)) | 0;
        return h;
      }
      let h = 0x5bd1e995;
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) h = (h + (Math.imul(stringHash(key), 0x27d4eb2d) ^ fingerprint(record[key]))) | 0;
      return h;
    }
    default:
      return 0;
  }
}

/**
 * The calls seen so far, for de-duplication. A call is reduced to a canonical key only when
 * its name and fingerprint match an earlier call's, so distinct calls pay little; the cost
 * stays linear however many calls collide.
 */
interface Bucket {
  first: Record<string, unknown> | undefined;
  /** Canonical keys, made when a second call lands in the bucket. */
  keys: Set<string> | undefined;
}

/**
 * Up to this many calls are kept in a list and compared directly (`sameValue`, with the
 * earlier calls of the same name only): most outputs hold a few calls, which then need no
 * fingerprint, no canonical key and no map. Past it, buckets.
 */
const LIST_LIMIT = 8;

/**
 * Whether `calls` (at most `LIST_LIMIT`, distinct) hold a call identical to `name(args)`: the
 * comparison `SeenCalls` makes while it keeps a list, for a caller that keeps its calls anyway
 * (batch extraction) and so need not record them twice. Past `LIST_LIMIT` calls, use `SeenCalls`.
 */
export function repeatsEarlier(calls: readonly { name: string; arguments: Record<string, unknown> }[], name: string, args: Record<string, unknown>): boolean {
  for (const call of calls) if (call.name === name && sameValue(call.arguments, args)) return true;
  return false;
}

/** Up to how many earlier calls `repeatsEarlier` compares a call with (then `SeenCalls` decides the same). */
export const DIRECT_COMPARE_LIMIT = LIST_LIMIT;

interface SeenCall {
  name: string;
  args: Record<string, unknown>;
}

export class SeenCalls {
  /** The only call so far: most outputs hold one, which then costs nothing to record. */
  private onlyName: string | undefined;
  private onlyArgs: Record<string, unknown> | undefined;
  /** The calls so far from the second on, while there are at most `LIST_LIMIT`. */
  private list: SeenCall[] | undefined;
  /** Buckets by name, then by fingerprint (a small integer: no key string to build and hash per call). */
  private buckets: Map<string, Map<number, Bucket>> | undefined;

  /** Records the call; false when an identical one was recorded before. */
  add(name: string, args: Record<string, unknown>): boolean {
    if (this.buckets !== undefined) return this.record(name, args);
    if (this.list === undefined) {
      if (this.onlyName === undefined || this.onlyArgs === undefined) {
        this.onlyName = name;
        this.onlyArgs = args;
        return true;
      }
      this.list = [{ name: this.onlyName, args: this.onlyArgs }];
      this.onlyName = undefined;
      this.onlyArgs = undefined;
    }
    const list = this.list;
    for (const earlier of list) if (earlier.name === name && sameValue(earlier.args, args)) return false;
    if (list.length < LIST_LIMIT) {
      list.push({ name, args });
      return true;
    }
    this.buckets = new Map();
    for (const earlier of list) this.record(earlier.name, earlier.args);
    list.length = 0;
    return this.record(name, args);
  }

  private record(name: string, args: Record<string, unknown>): boolean {
    const buckets = (this.buckets ??= new Map<string, Map<number, Bucket>>());
    let byPrint = buckets.get(name);
    if (byPrint === undefined) {
      byPrint = new Map();
      buckets.set(name, byPrint);
    }
    // Within the small-integer range, so that the map's keys stay unboxed.
    const print = fingerprint(args) & 0x3fffffff;
    const bucket = byPrint.get(print);
    if (bucket === undefined) {
      byPrint.set(print, { first: args, keys: undefined });
      return true;
    }
    const keys = (bucket.keys ??= new Set());
    if (bucket.first !== undefined) {
      keys.add(canonical(bucket.first));
      bucket.first = undefined;
    }
    const key = canonical(args);
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  }
}
