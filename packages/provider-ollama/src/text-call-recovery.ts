import type { FunctionToolSpec, ToolCall, Warning } from '@toolwire/core';
import { parseForcedCall } from './forced-call.ts';

const TAG_OPEN = '<tool_call>';
const TAG_CLOSE = '</tool_call>';

/**
 * Whether an answer's text so far may still turn out to be one tool call written as text:
 * `{"name": …, "arguments": …}`, bare or in a `<tool_call>` tag. Models whose template
 * advertises tools but whose output Ollama's parser misses write exactly that, with
 * `tool_calls` left empty (qwen2.5-coder: ollama/ollama#12174).
 */
export function mayBeTextCall(text: string): boolean {
  const start = text.trimStart();
  if (start === '' || start.startsWith('{')) return true;
  return start.length <= TAG_OPEN.length ? TAG_OPEN.startsWith(start) : start.startsWith(TAG_OPEN);
}

/**
 * The call a whole answer's text is, when it is nothing but one call to an offered tool
 * (bare JSON, or inside one `<tool_call>` tag); `undefined` otherwise, and the text stays text.
 */
export function readTextCall(text: string, offered: readonly FunctionToolSpec[]): ToolCall | undefined {
  if (offered.length === 0) return undefined;
  let body = text.trim();
  if (body.startsWith(TAG_OPEN)) {
    body = body.slice(TAG_OPEN.length);
    if (body.trimEnd().endsWith(TAG_CLOSE)) body = body.trimEnd().slice(0, -TAG_CLOSE.length);
    body = body.trim();
  }
  if (!body.startsWith('{')) return undefined;
  return parseForcedCall(body, offered);
}

/** Said when a call written as text was taken as a call. */
export function textCallWarning(name: string): Warning {
  return {
    type: 'other',
    message: `The model wrote its call to "${name}" as text instead of a native tool call (Ollama's template parser missed it); it was read as a tool call.`,
  };
}
