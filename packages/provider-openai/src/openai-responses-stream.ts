import { StreamError } from '@toolwire/core';
import type { ChatStreamEvent, FinishReason, Usage } from '@toolwire/core';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { mapResponseErrorCode } from './map-openai-error.ts';
import { droppedCallsWarning } from './openai-chat-response.ts';
import type { ResolvedProviderTool } from './openai-responses-prepare-tools.ts';
import { findProviderTool, mapResponsesFinishReason } from './openai-responses-response.ts';
import { mapResponsesUsage } from './openai-usage.ts';
import { providerCallArguments } from './provider-tool-output.ts';
import type { ProviderToolOutput } from './provider-tool-output.ts';
import { toToolCall } from './tool-call-arguments.ts';

/**
 * What the Responses stream mapper emits: core events, plus `provider-output` parts (one
 * per provider-executed call, right before `finish` once the response has completed) that
 * the model turns into `tool-result`s through the tool's `handleProviderOutput`.
 */
export type ResponsesStreamPart =
  | ChatStreamEvent
  | { type: 'provider-output'; output: ProviderToolOutput; annotations: readonly unknown[] };

/** Turns Responses stream events into `ResponsesStreamPart`s; feed every event, then call `end()`. */
export interface ResponsesStreamMapper {
  push(event: ResponseStreamEvent): ResponsesStreamPart[];
  /** An `error` when the stream ended before `response.completed` / `incomplete` / `failed`. */
  end(): ChatStreamEvent[];
}

interface ItemState {
  id: string;
  name: string;
  args: string;
  done: boolean;
  provider: ResolvedProviderTool | undefined;
  item: Record<string, unknown> | undefined;
  /** Code interpreter: the JSON text of `{ code, containerId }` is open after `"code":"`. */
  codeOpen: boolean;
  /** A function call beyond the first while `parallelToolCalls` is `false`: tracked, never emitted. */
  hidden: boolean;
  containerId: unknown;
}

function escapeJsonFragment(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function closeCode(containerId: unknown): string {
  return containerId === undefined ? '"}' : `","containerId":${JSON.stringify(containerId)}}`;
}

/**
 * Creates the stateful event mapper of a streamed Responses call. Function calls go
 * `output_item.added` → `tool-call-start`, `function_call_arguments.delta` →
 * `tool-call-delta`, `output_item.done` → `tool-call`. A provider tool's call (`<wireTool.type>_call`)
 * becomes a provider-executed call; the code interpreter's code streams as deltas whose
 * concatenation is the JSON of `{ code, containerId }`.
 */
export function createResponsesStreamMapper(options: {
  providerTools: readonly ResolvedProviderTool[];
  /** `false` keeps only the first function call (its events only), with a warning. */
  parallelToolCalls?: boolean;
}): ResponsesStreamMapper {
  const byIndex = new Map<number, ItemState>();
  const items: ItemState[] = [];
  const annotations: unknown[] = [];
  let responseId: string | undefined;
  let modelId: string | undefined;
  let refusal = '';
  let terminal = false;
  let functionCalls = 0;

  function find(outputIndex: number, itemId: string | undefined): ItemState | undefined {
    const byOutput = byIndex.get(outputIndex);
    if (byOutput) return byOutput;
    return itemId === undefined ? undefined : items.find((state) => state.item?.['id'] === itemId);
  }

  function onAdded(outputIndex: number, raw: Record<string, unknown>, out: ResponsesStreamPart[]): void {
    if (raw['type'] === 'function_call') {
      const id = typeof raw['call_id'] === 'string' ? raw['call_id'] : typeof raw['id'] === 'string' ? raw['id'] : '';
      const name = typeof raw['name'] === 'string' ? raw['name'] : '';
      functionCalls += 1;
      const hidden = options.parallelToolCalls === false && functionCalls > 1;
      const state: ItemState = { id, name, args: '', done: false, provider: undefined, item: raw, codeOpen: false, containerId: undefined, hidden };
      byIndex.set(outputIndex, state);
      items.push(state);
      if (hidden) return;
      out.push({ type: 'tool-call-start', id, name });
      const initial = typeof raw['arguments'] === 'string' ? raw['arguments'] : '';
      if (initial !== '') {
        state.args = initial;
        out.push({ type: 'tool-call-delta', id, argumentsDelta: initial });
      }
      return;
    }
    const provider = findProviderTool(options.providerTools, raw['type']);
    if (!provider) return;
    const id = typeof raw['id'] === 'string' ? raw['id'] : '';
    const state: ItemState = {
      id,
      name: provider.tool.name,
      args: '',
      done: false,
      provider,
      item: raw,
      codeOpen: false,
      containerId: raw['container_id'],
      hidden: false,
    };
    byIndex.set(outputIndex, state);
    items.push(state);
    out.push({ type: 'tool-call-start', id, name: provider.tool.name, providerExecuted: true });
    if (raw['type'] === 'code_interpreter_call') {
      state.codeOpen = true;
      const code = typeof raw['code'] === 'string' ? raw['code'] : '';
      out.push({ type: 'tool-call-delta', id, argumentsDelta: `{"code":"${escapeJsonFragment(code)}` });
    }
  }

  function onDone(outputIndex: number, raw: Record<string, unknown>, out: ResponsesStreamPart[]): void {
    const state = find(outputIndex, typeof raw['id'] === 'string' ? raw['id'] : undefined);
    if (!state || state.done) return;
    state.done = true;
    state.item = raw;
    if (state.hidden) return;
    if (!state.provider) {
      const rawArguments = typeof raw['arguments'] === 'string' ? raw['arguments'] : state.args;
      out.push({ type: 'tool-call', toolCall: toToolCall({ id: state.id, name: state.name, rawArguments, truncated: raw['status'] === 'incomplete' }) });
      return;
    }
    if (state.codeOpen) {
      state.codeOpen = false;
      out.push({ type: 'tool-call-delta', id: state.id, argumentsDelta: closeCode(raw['container_id'] ?? state.containerId) });
    }
    out.push({ type: 'tool-call', toolCall: { id: state.id, name: state.name, arguments: providerCallArguments(raw), providerExecuted: true } });
  }

  function onEnd(response: Response, out: ResponsesStreamPart[]): void {
    terminal = true;
    responseId = response.id;
    modelId = response.model;
    const incomplete = response.status === 'incomplete';
    for (const state of items) {
      if (state.done || state.provider || state.hidden) continue;
      // The stream finished without this call's output_item.done (the Codex backend skips it).
      state.done = true;
      out.push({ type: 'tool-call', toolCall: toToolCall({ id: state.id, name: state.name, rawArguments: state.args, truncated: incomplete }) });
    }
    for (const state of items) {
      if (state.provider && state.done && state.item) {
        out.push({ type: 'provider-output', output: { toolCallId: state.id, tool: state.provider.tool, item: state.item }, annotations });
      }
    }
    if (functionCalls > 1 && options.parallelToolCalls === false) {
      out.push({ type: 'warning', warning: droppedCallsWarning(functionCalls - 1) });
    }
    const finishReason: FinishReason = mapResponsesFinishReason({
      status: response.status,
      incompleteReason: response.incomplete_details?.reason,
      hasClientToolCalls: items.some((state) => !state.provider),
    });
    const usage: Usage | undefined = mapResponsesUsage(response.usage);
    const openai: Record<string, unknown> = { responseId: response.id };
    if (annotations.length > 0) openai['annotations'] = annotations;
    if (refusal !== '') openai['refusal'] = refusal;
    out.push({
      type: 'finish',
      finishReason,
      ...(usage ? { usage } : {}),
      responseId: response.id,
      modelId: response.model,
      providerMetadata: { openai },
    });
  }

  return {
    push(event) {
      const out: ResponsesStreamPart[] = [];
      if (terminal) return out;
      switch (event.type) {
        case 'response.created':
        case 'response.in_progress':
          responseId = event.response.id;
          modelId = event.response.model;
          break;
        case 'response.output_item.added':
          onAdded(event.output_index, event.item as unknown as Record<string, unknown>, out);
          break;
        case 'response.output_item.done':
          onDone(event.output_index, event.item as unknown as Record<string, unknown>, out);
          break;
        case 'response.function_call_arguments.delta': {
          const state = find(event.output_index, event.item_id);
          if (state && !state.done && !state.hidden && event.delta !== '') {
            state.args += event.delta;
            out.push({ type: 'tool-call-delta', id: state.id, argumentsDelta: event.delta });
          }
          break;
        }
        case 'response.code_interpreter_call_code.delta': {
          const state = find(event.output_index, event.item_id);
          if (state?.codeOpen === true && event.delta !== '') {
            out.push({ type: 'tool-call-delta', id: state.id, argumentsDelta: escapeJsonFragment(event.delta) });
          }
          break;
        }
        case 'response.output_text.delta':
          if (event.delta !== '') out.push({ type: 'text-delta', delta: event.delta });
          break;
        case 'response.output_text.annotation.added':
          annotations.push(event.annotation);
          break;
        case 'response.refusal.delta':
          refusal += event.delta;
          break;
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta':
          if (event.delta !== '') out.push({ type: 'reasoning-delta', delta: event.delta });
          break;
        case 'response.completed':
        case 'response.incomplete':
          onEnd(event.response, out);
          break;
        case 'response.failed': {
          terminal = true;
          const error = event.response.error;
          out.push({
            type: 'error',
            error: mapResponseErrorCode({ code: error?.code, message: error?.message ?? 'The response failed without an error message.' }),
          });
          break;
        }
        case 'error':
          terminal = true;
          out.push({ type: 'error', error: mapResponseErrorCode({ code: event.code, message: event.message }) });
          break;
        default:
          break;
      }
      return out;
    },
    end() {
      if (terminal) return [];
      return [
        {
          type: 'error',
          error: new StreamError({
            provider: 'openai',
            message:
              `The Responses stream${responseId !== undefined ? ` of ${responseId}` : ''}${modelId !== undefined ? ` (${modelId})` : ''} ` +
              'ended before response.completed, so the answer may be incomplete. Retry the request.',
          }),
        },
      ];
    },
  };
}
