import type { ToolCall } from '@toolwire/core';
import { resolveExtractOptions } from './extract-options.ts';
import type { ExtractOptions } from './extract-options.ts';
import { ToolCallScanner } from './tool-call-scanner.ts';

/**
 * Finds the tool calls a model wrote into its text, in one pass: call syntax in prose
 * (`search(query="x")`, also in code fences and Python-style lists), JSON call objects
 * (bare, in arrays, fences, `<tool_call>` tags, `<|python_tag|>`) and `[TOOL_CALLS]`.
 * Identical calls are returned once; a call that never closes is not returned.
 *
 * @example extractToolCalls('Sure. search(query="python", limit=10)', { tools: ['search'] })
 * // [{ id: 'search_0', name: 'search', arguments: { query: 'python', limit: 10 } }]
 */
export function extractToolCalls(text: string, options?: ExtractOptions): ToolCall[] {
  const scanner = new ToolCallScanner(resolveExtractOptions(options, true), false);
  scanner.scanWhole(text);
  return scanner.calls;
}
