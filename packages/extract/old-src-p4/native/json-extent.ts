/**
 * The end of a JSON value that starts at `from` (an object, array, string or bare literal):
 * the index just past it, or -1 when the text ends first. String-aware (quotes and escapes),
 * so braces and closing tokens inside strings never end it. Linear; no parsing.
 */
export function jsonExtent(s: string, from: number, to: number = s.length): number {
  let i = from;
  while (i < to && isJsonSpace(s.charCodeAt(i))) i++;
  if (i >= to) return -1;
  const first = s.charCodeAt(i);
  if (first !== 0x7b && first !== 0x5b && first !== 0x22) {
    // A bare literal (number, true, null…) ends at a separator.
    while (i < to) {
      const c = s.charCodeAt(i);
      if (c === 0x2c || c === 0x7d || c === 0x5d || isJsonSpace(c) || c === 0x3c) return i;
      i++;
    }
    return -1;
  }
  let depth = 0;
  let inString = false;
  for (; i < to; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) {
        inString = false;
        if (depth === 0) return i + 1;
      }
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth <= 0) return i + 1;
    }
  }
  return -1;
}

export function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Index of the first non-space character at or after `from` (or `to`). */
export function skipSpace(s: string, from: number, to: number = s.length): number {
  let i = from;
  while (i < to && isJsonSpace(s.charCodeAt(i))) i++;
  return i;
}

/** `JSON.parse` that returns `undefined` instead of throwing. */
export function tryJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
