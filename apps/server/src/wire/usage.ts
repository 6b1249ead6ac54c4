import type { Usage } from '@toolwire/core';
import type { WireUsage } from './openai-wire-types.ts';

/** Core usage → OpenAI's `usage` object (only for usage an upstream reported: never invented). */
export function toWireUsage(usage: Usage): WireUsage {
  return { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.totalTokens };
}
