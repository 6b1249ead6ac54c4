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
   * `(`). Compares length and first character in place, and cuts the name out of `s` only for a
   * candidate that passes: comparing the cut with `===` costs less than comparing in place
   * (`startsWith` with a position, or a loop of `charCodeAt`, take 40–50 ns for a 20-character
   * name), and the scanner takes the listed string as the call's name, so it cuts no name again.
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
