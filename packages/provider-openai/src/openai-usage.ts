import type { Usage } from '@toolwire/core';

/** Chat Completions `usage` as some servers send it (every detail optional). */
export interface ChatWireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** A token count as sent, when it is one (a finite number, not negative): compatible servers have sent strings. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Maps Chat Completions usage (with cached and reasoning tokens) to core's `Usage`. A count
 * that is not a number is read as missing, so that it cannot reach a sum or a metric.
 */
export function mapChatUsage(usage: ChatWireUsage | null | undefined): Usage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const input = count(usage.prompt_tokens) ?? 0;
  const output = count(usage.completion_tokens) ?? 0;
  const mapped: Usage = { inputTokens: input, outputTokens: output, totalTokens: count(usage.total_tokens) ?? input + output };
  const cached = count(usage.prompt_tokens_details?.cached_tokens);
  if (cached !== undefined) mapped.cachedInputTokens = cached;
  const reasoning = count(usage.completion_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) mapped.reasoningTokens = reasoning;
  return mapped;
}
