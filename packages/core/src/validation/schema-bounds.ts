/** Deeper JSON Schemas than this are refused: Ajv compiles them recursively. */
export const MAX_SCHEMA_DEPTH = 64;
/**
 * More objects and arrays than this in one schema are refused: Ajv's compile time grows
 * faster than the schema (30 000 `anyOf` branches take seconds), and it runs on the caller's
 * event loop.
 */
export const MAX_SCHEMA_NODES = 2_000;

/**
 * Says what is wrong when `schema` is too deep, too large or cyclic to compile safely,
 * or returns undefined. Iterative, and it stops at the first bound, so its own cost is
 * bounded by `MAX_SCHEMA_NODES` whatever it is given.
 */
export function schemaBoundsProblem(schema: unknown): string | undefined {
  const pending: [node: unknown, depth: number][] = [[schema, 1]];
  let nodes = 0;
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    // A cycle (possible in a schema built in code) has no depth bound and trips this too.
    if (depth > MAX_SCHEMA_DEPTH) {
      return `it is nested more than ${MAX_SCHEMA_DEPTH} levels deep (or refers to itself as an object); flatten it or use "$ref" to "$defs".`;
    }
    if (++nodes > MAX_SCHEMA_NODES) {
      return `it has more than ${MAX_SCHEMA_NODES} schema objects and arrays; split the tool or use "enum" instead of long "anyOf"/"oneOf" lists.`;
    }
    const children = Array.isArray(node) ? (node as unknown[]) : Object.values(node);
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return undefined;
}
