import type { Usage } from './types/usage.ts';

function sum(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

/**
 * Adds two usages, e.g. the model calls of a tool loop, or a turn and its corrective
 * retry. Either may be absent; optional counts are kept when either side has them.
 */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const total: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  const cached = sum(a.cachedInputTokens, b.cachedInputTokens);
  if (cached !== undefined) total.cachedInputTokens = cached;
  const reasoning = sum(a.reasoningTokens, b.reasoningTokens);
  if (reasoning !== undefined) total.reasoningTokens = reasoning;
  return total;
}
