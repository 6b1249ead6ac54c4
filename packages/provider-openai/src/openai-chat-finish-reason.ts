import type { FinishReason } from '@toolwire/core';

/**
 * Maps a Chat Completions `finish_reason`. `length` wins; otherwise calls present means
 * `tool-calls`, because OpenAI answers a forced named function with `stop`
 * (research/openai-compat.md §1).
 */
export function mapChatFinishReason(raw: string | null | undefined, hasToolCalls: boolean): FinishReason {
  if (raw === 'length') return 'length';
  if (hasToolCalls) return 'tool-calls';
  switch (raw) {
    case 'stop':
      return 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}
