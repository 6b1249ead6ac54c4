import type { ChatResponse, FinishReason, ToolCall, Warning } from '@toolwire/core';
import type { Response } from 'openai/resources/responses/responses';
import { droppedCallsWarning } from './openai-chat-response.ts';
import type { ResolvedProviderTool } from './openai-responses-prepare-tools.ts';
import { mapResponsesUsage } from './openai-usage.ts';
import { providerCallArguments } from './provider-tool-output.ts';
import type { ProviderToolOutput } from './provider-tool-output.ts';
import { toToolCall } from './tool-call-arguments.ts';

/**
 * Maps a Responses `status` (and `incomplete_details.reason`) to core's finish reason.
 * `length` wins; client-side calls present means `tool-calls`. Provider-executed calls do
 * not count: the provider already ran them and the turn is complete.
 */
export function mapResponsesFinishReason(options: {
  status: string | null | undefined;
  incompleteReason?: string | null | undefined;
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

/** A mapped Responses answer; `toolResults` is filled once `providerOutputs` are resolved. */
export interface MappedResponsesResponse {
  response: ChatResponse;
  providerOutputs: ProviderToolOutput[];
  annotations: unknown[];
}

/** Finds the provider tool whose calls come back as items of this type. */
export function findProviderTool(providerTools: readonly ResolvedProviderTool[], itemType: unknown): ResolvedProviderTool | undefined {
  return providerTools.find((entry) => entry.itemType === itemType);
}

/**
 * Maps a Responses API response to core's `ChatResponse` (pure): output text and its
 * annotations (kept in `providerMetadata.openai.annotations`), refusals, reasoning
 * summaries, function calls by `call_id`, provider-tool calls (`providerExecuted`) with
 * their raw items for `handleProviderOutput`, finish reason and usage.
 */
export function mapResponsesResponse(
  wire: Response,
  options: { providerTools: readonly ResolvedProviderTool[]; /** `false` keeps only the first function call, with a warning. */ parallelToolCalls?: boolean },
): MappedResponsesResponse {
  let text = '';
  let refusal = '';
  const reasoning: string[] = [];
  const annotations: unknown[] = [];
  const toolCalls: ToolCall[] = [];
  const providerOutputs: ProviderToolOutput[] = [];
  const warnings: Warning[] = [];
  let clientCalls = 0;
  for (const item of wire.output) {
    switch (item.type) {
      case 'message':
        for (const part of item.content) {
          if (part.type === 'output_text') {
            text += part.text;
            annotations.push(...part.annotations);
          } else {
            refusal += part.refusal;
          }
        }
        break;
      case 'reasoning':
        for (const part of item.summary) reasoning.push(part.text);
        for (const part of item.content ?? []) reasoning.push(part.text);
        break;
      case 'function_call':
        clientCalls += 1;
        if (options.parallelToolCalls === false && clientCalls > 1) break;
        toolCalls.push(
          toToolCall({ id: item.call_id, name: item.name, rawArguments: item.arguments, truncated: item.status === 'incomplete' }),
        );
        break;
      default: {
        const raw = item as unknown as Record<string, unknown>;
        const provider = findProviderTool(options.providerTools, raw['type']);
        if (!provider) break;
        const id = typeof raw['id'] === 'string' ? raw['id'] : '';
        toolCalls.push({ id, name: provider.tool.name, arguments: providerCallArguments(raw), providerExecuted: true });
        providerOutputs.push({ toolCallId: id, tool: provider.tool, item: raw });
      }
    }
  }
  if (options.parallelToolCalls === false && clientCalls > 1) warnings.push(droppedCallsWarning(clientCalls - 1));
  const openaiMetadata: Record<string, unknown> = { responseId: wire.id };
  if (annotations.length > 0) openaiMetadata['annotations'] = annotations;
  const providerMetadata = { openai: openaiMetadata };
  const reasoningText = reasoning.join('\n\n');
  const response: ChatResponse = {
    text,
    toolCalls,
    toolResults: [],
    finishReason: mapResponsesFinishReason({
      status: wire.status,
      incompleteReason: wire.incomplete_details?.reason,
      hasClientToolCalls: clientCalls > 0,
    }),
    warnings,
    message: {
      role: 'assistant',
      content: text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(reasoningText !== '' ? { reasoning: reasoningText } : {}),
      providerMetadata,
    },
    responseId: wire.id,
    modelId: wire.model,
    providerMetadata,
  };
  const usage = mapResponsesUsage(wire.usage);
  if (usage) response.usage = usage;
  if (reasoningText !== '') response.reasoning = reasoningText;
  if (refusal !== '') response.refusal = refusal;
  return { response, providerOutputs, annotations };
}
