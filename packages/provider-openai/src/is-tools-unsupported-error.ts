import { ProviderError } from '@toolwire/core';

// Phrases servers use when they reject `tools` (research/openai-compat.md §4, §5):
// Ollama "… does not support tools", vLLM "\"auto\" tool choice requires
// --enable-auto-tool-choice and --tool-call-parser to be set", llama.cpp "Cannot use
// tools with stream", and generic "tools are not supported" / "unrecognized request argument".
const REJECTIONS = [
  'does not support tool',
  'does not support function',
  'not support tool',
  'not support function',
  'tools are not supported',
  'tools is not supported',
  'tool calling is not supported',
  'tool use is not supported',
  'function calling is not supported',
  'tools not supported',
  'tool calls are not supported',
  'enable-auto-tool-choice',
  'cannot use tools',
  'unrecognized request argument supplied: tools',
  "unrecognized request arguments supplied: tool",
];

/**
 * Whether an error says the server does not support native tools at all (so text tools
 * may work), as opposed to rejecting one tool's schema or the key: the trigger of
 * `textTools: 'auto'`.
 */
export function isToolsUnsupportedError(error: unknown): boolean {
  if (!ProviderError.isInstance(error)) return false;
  const { status } = error;
  if (status === 401 || status === 403 || status === 404 || status === 429) return false;
  const message = error.message.toLowerCase();
  return REJECTIONS.some((phrase) => message.includes(phrase));
}
