import type { JsonSchema } from '@toolwire/core';
import type { AllowList, ExtractableTool } from './extract-options.ts';

/** Lists up to this long are read where they stand (see `SmallAllowList`). */
export const SMALL_LIST_LENGTH = 8;

/**
 * A short allow-list read where it stands on every call (from a copy of the array): nothing
 * to prepare, cache or look up, so a new list with every request costs nothing, and an old
 * one touches no cache (a cache entry per list is memory the processor must fetch again when
 * lists are many). Answers as a map of the names would: a name listed twice takes its last
 * schema.
 */
export class SmallAllowList implements AllowList {
  private readonly tools: readonly (string | ExtractableTool)[];

  constructor(tools: readonly (string | ExtractableTool)[]) {
    // A copy: a parser answers as the list was when it was created, whatever the caller does to it later.
    this.tools = tools.slice();
  }

  has(name: string): boolean {
    for (const tool of this.tools) if ((typeof tool === 'string' ? tool : tool.name) === name) return true;
    return false;
  }

  get(name: string): JsonSchema | undefined {
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
