import type { ChatResponse, ToolCall, Warning } from '@toolwire/core';
import { generateId } from '@toolwire/core';
import { toToolCall } from '@toolwire/core/provider';
import { droppedCallsWarning } from './dropped-calls-warning.ts';
import { mapResponsesFinishReason } from './responses-finish-reason.ts';
import { replayableReasoningItem } from './responses-reasoning.ts';
import type { ResolvedProviderTool } from './responses-tools.ts';
import { findProviderTool } from './responses-tools.ts';
import { mapResponsesUsage } from './responses-usage.ts';
import { isRecord } from './responses-wire.ts';
import { providerCallArguments } from './provider-tool-output.ts';
import type { ProviderToolOutput } from './provider-tool-output.ts';

/** A mapped Responses answer; `toolResults` is filled once `providerOutputs` are resolved. */
export interface MappedResponsesResponse {
  response: ChatResponse;
  providerOutputs: ProviderToolOutput[];
  annotations: unknown[];
}

/** Options of `mapResponsesResponse`. */
export interface MapResponsesResponseOptions {
  /** The `providerMetadata` key (`openai`). */
  metadataKey?: string;
  providerTools: readonly ResolvedProviderTool[];
  /** `false` keeps only the first function call, with a warning. */
  parallelToolCalls?: boolean;
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? (value as unknown[]).filter(isRecord) : [];
}

/**
 * Maps a (non-streamed) Responses `response` object to core's `ChatResponse` (pure): output
 * text and its annotations (kept in `providerMetadata[key].annotations`), refusals,
 * reasoning summaries and replayable reasoning items, function calls by `call_id`,
 * provider-tool calls (`providerExecuted`) with their raw items, finish reason and usage.
 */
export function mapResponsesResponse(wire: unknown, options: MapResponsesResponseOptions): MappedResponsesResponse {
  const raw = isRecord(wire) ? wire : {};
  const key = options.metadataKey ?? 'openai';
  let text = '';
  let refusal = '';
  const reasoning: string[] = [];
  const reasoningItems: Record<string, unknown>[] = [];
  const annotations: unknown[] = [];
  const toolCalls: ToolCall[] = [];
  const providerOutputs: ProviderToolOutput[] = [];
  const warnings: Warning[] = [];
  let clientCalls = 0;
  const callIds = new Set<string>();
  for (const item of list(raw['output'])) {
    switch (item['type']) {
      case 'message':
        for (const part of list(item['content'])) {
          if (part['type'] === 'output_text' && typeof part['text'] === 'string') {
            text += part['text'];
            if (Array.isArray(part['annotations'])) annotations.push(...(part['annotations'] as unknown[]));
          } else if (part['type'] === 'refusal' && typeof part['refusal'] === 'string') {
            refusal += part['refusal'];
          }
        }
        break;
      case 'reasoning': {
        for (const part of [...list(item['summary']), ...list(item['content'])]) if (typeof part['text'] === 'string') reasoning.push(part['text']);
        const replayable = replayableReasoningItem(item);
        if (replayable) reasoningItems.push(replayable);
        break;
      }
      case 'function_call':
        clientCalls += 1;
        if (options.parallelToolCalls === false && clientCalls > 1) break;
        toolCalls.push(
          toToolCall({
            id: callIdOf(item, callIds),
            name: typeof item['name'] === 'string' ? item['name'] : '',
            rawArguments: typeof item['arguments'] === 'string' ? item['arguments'] : '',
            truncated: item['status'] === 'incomplete',
          }),
        );
        break;
      default: {
        const provider = findProviderTool(options.providerTools, item['type']);
        if (!provider) break;
        const id = providerCallIdOf(item, callIds);
        toolCalls.push({ id, name: provider.tool.name, arguments: providerCallArguments(item), providerExecuted: true });
        providerOutputs.push({ toolCallId: id, tool: provider.tool, item });
      }
    }
  }
  if (options.parallelToolCalls === false && clientCalls > 1) warnings.push(droppedCallsWarning(clientCalls - 1));
  const responseId = typeof raw['id'] === 'string' ? raw['id'] : undefined;
  const modelId = typeof raw['model'] === 'string' ? raw['model'] : undefined;
  const entry: Record<string, unknown> = {};
  if (responseId !== undefined) entry['responseId'] = responseId;
  if (annotations.length > 0) entry['annotations'] = annotations;
  if (reasoningItems.length > 0) entry['reasoningItems'] = reasoningItems;
  const providerMetadata = { [key]: entry };
  const reasoningText = reasoning.join('\n\n');
  const details = isRecord(raw['incomplete_details']) ? raw['incomplete_details'] : {};
  const response: ChatResponse = {
    text,
    toolCalls,
    toolResults: [],
    finishReason: mapResponsesFinishReason({ status: raw['status'], incompleteReason: details['reason'], hasClientToolCalls: clientCalls > 0 }),
    warnings,
    message: {
      role: 'assistant',
      content: text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(reasoningText !== '' ? { reasoning: reasoningText } : {}),
      providerMetadata,
    },
    ...(responseId !== undefined ? { responseId } : {}),
    ...(modelId !== undefined ? { modelId } : {}),
    providerMetadata,
  };
  const usage = mapResponsesUsage(raw['usage']);
  if (usage) response.usage = usage;
  if (reasoningText !== '') response.reasoning = reasoningText;
  if (refusal !== '') response.refusal = refusal;
  return { response, providerOutputs, annotations };
}

/** A provider-executed call's id: its item id, or one of ours when it has none or an earlier call has it. */
function providerCallIdOf(item: Record<string, unknown>, used: Set<string>): string {
  const itemId = item['id'];
  const id = typeof itemId === 'string' && itemId !== '' && !used.has(itemId) ? itemId : generateId('call_');
  used.add(id);
  return id;
}

/**
 * A function call's id: its `call_id` (else its item id), or one of ours when it has neither
 * or an earlier call of the response has it (ids only pair calls with their results).
 */
function callIdOf(item: Record<string, unknown>, used: Set<string>): string {
  const callId = item['call_id'];
  const itemId = item['id'];
  const wireId = typeof callId === 'string' && callId !== '' ? callId : typeof itemId === 'string' ? itemId : '';
  const id = wireId === '' || used.has(wireId) ? generateId('call_') : wireId;
  used.add(id);
  return id;
}
