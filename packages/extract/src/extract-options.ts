import type { JsonSchema } from '@toolwire/core';

/** A text format the scanner looks for. */
export type ToolCallFormat =
  /** Call syntax: `search(q="x")`, Python-style lists `[f(a=1), g()]`, `<|python_tag|>f(a=1)`. */
  | 'call'
  /** JSON: `{"name": …, "arguments": …}` (bare, in arrays, fences or `<tool_call>` tags) and `[TOOL_CALLS]name{…}`. */
  | 'json';

/** A tool as the extractor needs it: its name and (optionally) the JSON Schema of its arguments. */
export interface ExtractableTool {
  name: string;
  /** Drives type coercion of the arguments (`"5"` → 5 for an integer property). */
  inputSchema?: JsonSchema;
}

/** Options of `extractToolCalls` and `createToolCallParser`. */
export interface ExtractOptions {
  /**
   * Allow-list: tool names, or tool definitions (a core `Tool` works) whose schemas then
   * drive type coercion. Without it, any identifier counts as a tool name.
   */
  tools?: readonly (string | ExtractableTool)[];
  /** The formats to look for (default: all). */
  formats?: readonly ToolCallFormat[];
  /**
   * Makes the id of the `index`-th call found (0-based, after de-duplication). Default
   * `${name}_${index}`; pass e.g. `() => generateId('call_')` for ids unique across turns.
   */
  id?: (name: string, index: number) => string;
}

/** Options with their defaults resolved, shared by the batch and streaming forms. */
export interface ResolvedExtractOptions {
  /** Allowed names with their schemas; `undefined` means any identifier. */
  allowed: ReadonlyMap<string, JsonSchema | undefined> | undefined;
  /** Every prefix of an allowed name: text that is none of these cannot become a call name. */
  prefixes: ReadonlySet<string> | undefined;
  call: boolean;
  json: boolean;
  id: (name: string, index: number) => string;
}

function defaultId(name: string, index: number): string {
  return `${name}_${index}`;
}

/** Resolves the defaults of `ExtractOptions` in one place. */
export function resolveExtractOptions(options: ExtractOptions | undefined): ResolvedExtractOptions {
  let allowed: Map<string, JsonSchema | undefined> | undefined;
  if (options?.tools !== undefined) {
    allowed = new Map();
    for (const tool of options.tools) {
      if (typeof tool === 'string') allowed.set(tool, undefined);
      else allowed.set(tool.name, tool.inputSchema);
    }
  }
  let prefixes: Set<string> | undefined;
  if (allowed !== undefined) {
    prefixes = new Set();
    for (const name of allowed.keys()) for (let i = 1; i <= name.length; i++) prefixes.add(name.slice(0, i));
  }
  const formats = options?.formats;
  return {
    allowed,
    prefixes,
    call: formats === undefined || formats.includes('call'),
    json: formats === undefined || formats.includes('json'),
    id: options?.id ?? defaultId,
  };
}
