import type { Usage } from '@toolwire/core';
import type { WireUsage } from './openai-wire-types.ts';

/** Core usage → OpenAI's `usage` object. */
export function toWireUsage(usage: Usage | undefined): WireUsage {
  const prompt = usage?.inputTokens ?? 0;
  const completion = usage?.outputTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: usage?.totalTokens ?? prompt + completion };
}
