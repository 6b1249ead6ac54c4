const MAX_STRING = 40;

/** A short rendering of a value for a validation message: `500`, `"abc"`, `an array`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const shown = value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

/** `limit`, `items[0].name`; the whole arguments object is `arguments`. */
export function formatPath(segments: readonly PropertyKey[]): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else path += path === '' ? String(segment) : `.${String(segment)}`;
  }
  return path === '' ? 'arguments' : path;
}

/** Splits a JSON Pointer (`/items/0/name`) into segments, numbers for array indexes. */
export function pointerSegments(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => {
      const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      return isIndex(segment) ? Number(segment) : segment;
    });
}

function isIndex(segment: string): boolean {
  if (segment === '' || segment.length > 9) return false;
  for (let i = 0; i < segment.length; i++) {
    const code = segment.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** `1 character`, `3 characters`. */
export function countOf(limit: unknown, noun: string): string {
  return `${String(limit)} ${noun}${limit === 1 || limit === 1n ? '' : 's'}`;
}
