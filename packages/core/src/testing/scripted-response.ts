import type { ChatResponse } from '../types/chat-response.ts';
import type { ChatStreamEvent } from '../types/chat-stream-event.ts';
import type { FinishReason } from '../types/finish-reason.ts';
import type { AssistantMessage } from '../types/message.ts';
import type { ProviderMetadata } from '../types/provider-metadata.ts';
import type { ToolCall } from '../types/tool-call.ts';
import type { ToolResult } from '../types/tool-result.ts';
import type { Usage } from '../types/usage.ts';
import type { Warning } from '../types/warning.ts';

/** A tool call written in short; `id` defaults to `call_<turn>_<index>`, `arguments` to `{}`. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments?: Record<string, unknown>;
  providerExecuted?: boolean;
  invalid?: { rawArguments: string; message: string };
}

/**
 * A model turn written in short. `finishReason` defaults to `'tool-calls'` when there are
 * tool calls and `'stop'` otherwise.
 *
 * @example { text: 'Let me look.', toolCalls: [{ name: 'search', arguments: { q: 'x' } }] }
 */
export interface ScriptedResponse {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Results of provider-executed tools in this turn. */
  toolResults?: ToolResult[];
  reasoning?: string;
  finishReason?: FinishReason;
  usage?: Usage;
  warnings?: Warning[];
  responseId?: string;
  modelId?: string;
  providerMetadata?: ProviderMetadata;
}

/** Expands a `ScriptedResponse` into the full `ChatResponse`; `turn` numbers default call ids. */
export function toChatResponse(scripted: ScriptedResponse, turn: number): ChatResponse {
  const text = scripted.text ?? '';
  const toolCalls: ToolCall[] = (scripted.toolCalls ?? []).map((call, index) => {
    const toolCall: ToolCall = { id: call.id ?? `call_${turn}_${index}`, name: call.name, arguments: call.arguments ?? {} };
    if (call.providerExecuted !== undefined) toolCall.providerExecuted = call.providerExecuted;
    if (call.invalid) toolCall.invalid = call.invalid;
    return toolCall;
  });
  const toolResults = scripted.toolResults ?? [];
  const message: AssistantMessage = { role: 'assistant', content: text };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  if (toolResults.length > 0) message.toolResults = toolResults;
  if (scripted.reasoning !== undefined) message.reasoning = scripted.reasoning;
  if (scripted.providerMetadata) message.providerMetadata = scripted.providerMetadata;
  const response: ChatResponse = {
    text,
    toolCalls,
    toolResults,
    finishReason: scripted.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
    warnings: scripted.warnings ?? [],
    message,
  };
  if (scripted.reasoning !== undefined) response.reasoning = scripted.reasoning;
  if (scripted.usage) response.usage = scripted.usage;
  if (scripted.responseId !== undefined) response.responseId = scripted.responseId;
  if (scripted.modelId !== undefined) response.modelId = scripted.modelId;
  if (scripted.providerMetadata) response.providerMetadata = scripted.providerMetadata;
  return response;
}

/**
 * The stream events a provider would send for `response`: warnings, reasoning and text
 * in chunks of `chunkSize` characters, each tool call as start / argument deltas / call,
 * provider tool results, then `finish`. `collectStream` of the events gives `response` back.
 */
export function toStreamEvents(response: ChatResponse, chunkSize = 16): ChatStreamEvent[] {
  const size = Math.max(1, Math.floor(chunkSize));
  const events: ChatStreamEvent[] = [];
  for (const warning of response.warnings) events.push({ type: 'warning', warning });
  for (const delta of chunks(response.reasoning ?? '', size)) events.push({ type: 'reasoning-delta', delta });
  for (const delta of chunks(response.text, size)) events.push({ type: 'text-delta', delta });
  for (const toolCall of response.toolCalls) {
    const start: ChatStreamEvent = { type: 'tool-call-start', id: toolCall.id, name: toolCall.name };
    if (toolCall.providerExecuted !== undefined) start.providerExecuted = toolCall.providerExecuted;
    events.push(start);
    const raw = toolCall.invalid ? toolCall.invalid.rawArguments : JSON.stringify(toolCall.arguments);
    for (const argumentsDelta of chunks(raw, size)) events.push({ type: 'tool-call-delta', id: toolCall.id, argumentsDelta });
    events.push({ type: 'tool-call', toolCall });
  }
  for (const result of response.toolResults) events.push({ type: 'tool-result', result });
  const finish: ChatStreamEvent = { type: 'finish', finishReason: response.finishReason };
  if (response.usage) finish.usage = response.usage;
  if (response.responseId !== undefined) finish.responseId = response.responseId;
  if (response.modelId !== undefined) finish.modelId = response.modelId;
  if (response.providerMetadata) finish.providerMetadata = response.providerMetadata;
  events.push(finish);
  return events;
}

function chunks(text: string, size: number): string[] {
  const parts: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(text.length, i + size);
    // Never cut a surrogate pair in two.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    parts.push(text.slice(i, end));
    i = end;
  }
  return parts;
}
