import type { Warning } from '@toolwire/core';

/**
 * `providerOptions.openai`: extra body fields in OpenAI's wire names, merged into the
 * request (Chat Completions or Responses). The request's own parts (`model`, `messages` /
 * `input`, `tools`, `tool_choice`, `stream`) cannot be replaced this way; they are left
 * out with a warning.
 *
 * @example providerOptions: { openai: { store: false, reasoning: { effort: 'low' }, user: 'u-1' } }
 */
export interface OpenAIRequestOptions {
  /** Responses: `false` keeps nothing on OpenAI's side; reasoning items are then sent back encrypted. */
  store?: boolean;
  /** Responses: continue from a stored response. */
  previous_response_id?: string;
  /** Responses: more output to include, e.g. `['code_interpreter_call.outputs']`. */
  include?: string[];
  /** Responses: `{ effort, summary }`. */
  reasoning?: { effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh'; summary?: 'auto' | 'concise' | 'detailed' };
  /** Chat Completions: the reasoning effort of reasoning models. */
  reasoning_effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
  user?: string;
  metadata?: Record<string, string>;
  service_tier?: 'auto' | 'default' | 'flex' | 'priority' | 'scale';
  /** Any other body field the API takes, in its wire name. */
  [field: string]: unknown;
}

const RESERVED: Record<'chat' | 'responses', readonly string[]> = {
  chat: ['model', 'messages', 'tools', 'tool_choice', 'functions', 'function_call', 'stream'],
  responses: ['model', 'input', 'instructions', 'tools', 'tool_choice', 'stream'],
};

/** `providerOptions.openai` without the fields that would replace the request's own, with a warning for each. */
export function readOpenAIOptions(
  raw: Record<string, unknown> | undefined,
  api: 'chat' | 'responses',
): { options: OpenAIRequestOptions; warnings: Warning[] } {
  if (raw === undefined) return { options: {}, warnings: [] };
  const options: OpenAIRequestOptions = {};
  const warnings: Warning[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (RESERVED[api].includes(key)) {
      warnings.push({
        type: 'unsupported-setting',
        setting: `providerOptions.openai.${key}`,
        message: `providerOptions.openai.${key} was ignored: it would replace the request's own ${key}. Set it through the request (messages, tools, toolChoice) instead.`,
      });
      continue;
    }
    if (value !== undefined) options[key] = value;
  }
  return { options, warnings };
}
