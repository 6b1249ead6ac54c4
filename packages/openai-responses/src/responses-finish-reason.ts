import type { FinishReason } from '@toolwire/core';

/**
 * Maps a Responses `status` (and `incomplete_details.reason`) to core's finish reason.
 * `length` wins; client-side calls present means `tool-calls`. Provider-executed calls do
 * not count: the provider already ran them and the turn is complete.
 */
export function mapResponsesFinishReason(options: {
  status: unknown;
  incompleteReason?: unknown;
  hasClientToolCalls: boolean;
}): FinishReason {
  if (options.status === 'incomplete') {
    if (options.incompleteReason === 'max_output_tokens') return 'length';
    if (options.incompleteReason === 'content_filter') return 'content-filter';
    return options.hasClientToolCalls ? 'tool-calls' : 'other';
  }
  if (options.hasClientToolCalls) return 'tool-calls';
  if (options.status === 'completed') return 'stop';
  if (options.status === 'failed') return 'error';
  return 'other';
}
