import type { Usage } from '@toolwire/core';
import { isRecord } from './responses-wire.ts';

/** A token count as sent, when it is one (finite, not negative): anything else is read as missing, so it cannot reach a sum or a metric. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Maps Responses `usage` (with cached and reasoning tokens) to core's `Usage`; `undefined` when there is none. */
export function mapResponsesUsage(raw: unknown): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const inputTokens = count(raw['input_tokens']) ?? 0;
  const outputTokens = count(raw['output_tokens']) ?? 0;
  const usage: Usage = { inputTokens, outputTokens, totalTokens: count(raw['total_tokens']) ?? inputTokens + outputTokens };
  const cached = isRecord(raw['input_tokens_details']) ? count(raw['input_tokens_details']['cached_tokens']) : undefined;
  if (cached !== undefined) usage.cachedInputTokens = cached;
  const reasoning = isRecord(raw['output_tokens_details']) ? count(raw['output_tokens_details']['reasoning_tokens']) : undefined;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}
