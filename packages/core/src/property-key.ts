// Object keys read from argument text, kept for reuse: a key cut fresh from the text must be
// looked up in the engine's string table on every property store, which costs more than
// parsing the key. The same tools are called over and over, so their keys repeat.

/** Two keys per set; 4096 sets hold the keys of many tool sets with few evictions. */
const SETS = 4096;
/** Longer keys are rare and not worth keeping. */
const MAX_KEY_LENGTH = 64;
const keys: (string | undefined)[] = new Array<string | undefined>(2 * SETS).fill(undefined);

/** `key` as the engine stores property names (the key of a property it was used for). */
function internalized(key: string): string {
  const holder: Record<string, null> = {};
  holder[key] = null;
  // `__proto__` (set with `setKey`'s own care by the caller) and index-like keys come back as given.
  return Object.keys(holder)[0] ?? key;
}

/**
 * `text.slice(start, end)` for use as an object key: equal content, but a key seen before
 * is returned as the string stored then. A bounded cache (2-way, by a hash of the characters).
 */
export function propertyKey(text: string, start: number, end: number): string {
  const length = end - start;
  if (length <= 0 || length > MAX_KEY_LENGTH) return text.slice(start, end);
  let h = length;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  const set = ((h ^ (h >>> 15)) & (SETS - 1)) * 2;
  for (let way = set; way < set + 2; way++) {
    const cached = keys[way];
    if (cached?.length !== length) continue;
    let i = 0;
    while (i < length && cached.charCodeAt(i) === text.charCodeAt(start + i)) i++;
    if (i === length) return cached;
  }
  const key = internalized(text.slice(start, end));
  // The newer key goes first; the older one moves to the second way.
  keys[set + 1] = keys[set];
  keys[set] = key;
  return key;
}
