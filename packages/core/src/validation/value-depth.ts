import type { ValidationIssue } from './validation-issue.ts';

/** Arguments nested deeper than this are refused before validation (same bound as `parseArguments`). */
export const MAX_VALUE_DEPTH = 200;

/** The issue reported for arguments past `MAX_VALUE_DEPTH`. */
export const TOO_DEEP_ISSUE: ValidationIssue = {
  path: 'arguments',
  message: `values are nested more than ${MAX_VALUE_DEPTH} levels deep; flatten the arguments`,
};

/**
 * Whether `value` nests arrays and objects deeper than `maxDepth` (a cycle counts as too
 * deep). Iterative, and it stops at the first too-deep branch, so deep input cannot
 * overflow the stack here.
 */
export function isNestedDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: [node: unknown, depth: number][] = [[value, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= maxDepth) return true;
    const children = Array.isArray(node) ? (node as unknown[]) : Object.values(node);
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * The nesting depth of a JSON text (objects and arrays), by counting brackets outside strings:
 * one linear pass and no allocation, so it can run on untrusted text before `JSON.parse`
 * builds anything that recursive code would later walk. Returns as soon as the depth passes
 * `limit`. Text that is not JSON gives a number, not an error.
 */
export function jsonTextDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return deepest;
}
