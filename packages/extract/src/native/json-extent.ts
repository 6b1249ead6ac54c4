import { parseArguments } from '@toolwire/core';

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

/**
 * `JSON.parse` of a body the model wrote, `undefined` where it is not JSON. A number JSON
 * cannot hold (`1e400`, which `JSON.parse` makes `Infinity`; an integer past 2^53 that it would
 * round, a 20-digit id) comes back as its text, as core's `parseArguments` reads Hermes JSON:
 * never `Infinity`, a `null` once serialised, or another number.
 */
export function tryJson(text: string): { value: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  if (plainNumbers(value)) return { value };
  // Rare: read again the way core reads JSON arguments, which keeps such a number's text.
  try {
    const read = parseArguments(`{"v":${text}}`);
    return Object.hasOwn(read, 'v') ? { value: read.v } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `JSON.parse` read every number of `value` exactly (core's test), walked without
 * recursion (a value may nest thousands deep). Costs a fraction of the parse: a body has few
 * nodes for its length, a long string is one.
 */
function plainNumbers(value: unknown): boolean {
  if (typeof value === 'number') return exactNumber(value);
  if (typeof value !== 'object' || value === null) return true;
  let pending: object[] | undefined;
  let node: object | undefined = value;
  while (node !== undefined) {
    const values: readonly unknown[] = Array.isArray(node) ? node : Object.values(node);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v === 'number') {
        if (!exactNumber(v)) return false;
      } else if (typeof v === 'object' && v !== null) {
        (pending ??= []).push(v);
      }
    }
    node = pending?.pop();
  }
  return true;
}

/** A number as `JSON.parse` read it is its text's value: a safe integer or a finite fraction (a large one may have been rounded). */
function exactNumber(v: number): boolean {
  return (v | 0) === v || Number.isSafeInteger(v) || (Number.isFinite(v) && !Number.isInteger(v));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
