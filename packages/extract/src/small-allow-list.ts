import type { JsonSchema } from '@toolwire/core';
import type { AllowList, ExtractableTool } from './extract-options.ts';

/** Lists up to this long are read where they stand (see `SmallAllowList`). */
export const SMALL_LIST_LENGTH = 8;

/**
 * A short allow-list read where it stands on every call (a streaming parser gives it a copy
 * of the array, made when the parser is created): nothing to prepare, cache or look up, so a
 * new list with every request costs nothing, and an old one touches no cache (a cache entry
 * per list is memory the processor must fetch again when lists are many). Answers as a map
 * of the names would: a name listed twice takes its last schema.
 */
export class SmallAllowList implements AllowList {
  private readonly tools: readonly (string | ExtractableTool)[];
  /** Whether any listed tool has a schema; found out when first asked for one (see `get`). */
  private schemas: boolean | undefined;

  /** `tools`: a copy where the caller could change the list while it is in use (a streaming parser). */
  constructor(tools: readonly (string | ExtractableTool)[]) {
    this.tools = tools;
  }

  has(name: string): boolean {
    for (const tool of this.tools) if ((typeof tool === 'string' ? tool : tool.name) === name) return true;
    return false;
  }

  /**
   * The listed name equal to `s.slice(start, end)`, or `undefined` (the scanner asks at every
   * `(` with a name before it). Compares length and first character in place, and cuts the name
   * out of `s` (as any-name mode cuts a call's name) only for a candidate that passes, to compare
   * it with `===`; the scanner then takes the listed string as the call's name and cuts nothing
   * more. Every way of comparing tried costs about the same, 40–70 ns for a name of about 18
   * characters (`startsWith`, a `charCodeAt` loop, `indexOf` on the cut): this one measured a
   * little faster than `startsWith` in place in same-process rounds.
   */
  nameIn(s: string, start: number, end: number): string | undefined {
    const length = end - start;
    const first = s.charCodeAt(start);
    let cut: string | undefined;
    for (const tool of this.tools) {
      const name = typeof tool === 'string' ? tool : tool.name;
      if (name.length === length && name.charCodeAt(0) === first && name === (cut ??= s.slice(start, end))) return name;
    }
    return undefined;
  }

  /**
   * The schema of a listed tool. A list of names only answers without comparing any: most
   * lists are names, and an output without a call never asks.
   */
  get(name: string): JsonSchema | undefined {
    this.schemas ??= this.typed();
    if (!this.schemas) return undefined;
    let schema: JsonSchema | undefined;
    for (const tool of this.tools) {
      if (typeof tool === 'string') {
        if (tool === name) schema = undefined;
      } else if (tool.name === name) {
        schema = tool.inputSchema;
      }
    }
    return schema;
  }

  *keys(): IterableIterator<string> {
    for (const tool of this.tools) yield typeof tool === 'string' ? tool : tool.name;
  }

  /** Whether any listed tool has a schema. */
  typed(): boolean {
    for (const tool of this.tools) if (typeof tool !== 'string' && tool.inputSchema !== undefined) return true;
    return false;
  }
}
