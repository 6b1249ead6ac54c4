import type { Usage } from '@toolwire/core';

/** Chat Completions `usage` as some servers send it (every detail optional). */
export interface ChatWireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

function build(input: number, output: number, total: number | null | undefined, cached: unknown, reasoning: unknown): Usage {
  const usage: Usage = { inputTokens: input, outputTokens: output, totalTokens: total ?? input + output };
  if (typeof cached === 'number') usage.cachedInputTokens = cached;
  if (typeof reasoning === 'number') usage.reasoningTokens = reasoning;
  return usage;
}

/** Maps Chat Completions usage (with cached and reasoning tokens) to core's `Usage`. */
export function mapChatUsage(usage: ChatWireUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  return build(
    usage.prompt_tokens ?? 0,
    usage.completion_tokens ?? 0,
    usage.total_tokens,
    usage.prompt_tokens_details?.cached_tokens,
    usage.completion_tokens_details?.reasoning_tokens,
  );
}
