import { isRecord } from './responses-wire.ts';
import type { ResponsesInputItem } from './responses-wire.ts';

/**
 * The part of a `reasoning` output item that can be sent back: with `store: false` the
 * API only accepts it with its `encrypted_content` (asked for with
 * `include: ['reasoning.encrypted_content']`), and without its item `id`.
 * `undefined` for an item without encrypted content.
 */
export function replayableReasoningItem(item: Record<string, unknown>): ResponsesInputItem | undefined {
  if (typeof item['encrypted_content'] !== 'string') return undefined;
  const { id: _id, status: _status, ...rest } = item;
  return { ...rest, type: 'reasoning', summary: Array.isArray(rest['summary']) ? rest['summary'] : [] };
}

/** The reasoning items recorded on an assistant message's `providerMetadata[key].reasoningItems`. */
export function recordedReasoningItems(metadata: Record<string, unknown> | undefined): ResponsesInputItem[] {
  const items = metadata?.['reasoningItems'];
  if (!Array.isArray(items)) return [];
  const result: ResponsesInputItem[] = [];
  for (const item of items as unknown[]) {
    if (!isRecord(item)) continue;
    const replayable = replayableReasoningItem(item);
    if (replayable) result.push(replayable);
  }
  return result;
}
