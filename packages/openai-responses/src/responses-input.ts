import { InvalidRequestError } from '@toolwire/core';
import type { Message, UserContentPart, Warning } from '@toolwire/core';
import type { ResponsesCallMapping, WireFunctionCall } from './responses-call-mapping.ts';
import { recordedReasoningItems } from './responses-reasoning.ts';
import { isRecord } from './responses-wire.ts';
import type { ResponsesInputItem } from './responses-wire.ts';

/** Options of `toResponsesInput`. */
export interface ResponsesInputOptions {
  /** The provider name on errors. */
  provider: string;
  /** Where reasoning items and wire calls recorded by this provider sit on assistant messages (`providerMetadata[key]`). */
  metadataKey: string;
  /**
   * `instructions` (OpenAI): leading system messages become `instructions`, later ones
   * `system` messages. `developer` (Codex): every system message becomes a `developer`
   * message, because `instructions` carry the model's base instructions.
   */
  systemMessages: 'instructions' | 'developer';
  /**
   * `false` when the request sets `store: false`: stored items cannot be referenced then,
   * and reasoning items are replayed with their `encrypted_content` instead. Default `true`.
   */
  store?: boolean;
  /** Codex: wire names differ from the caller's tool names. */
  callMapping?: Pick<ResponsesCallMapping, 'toWireCall'>;
  /** Refuse a tool message whose call is not earlier in the history (the Codex backend does). */
  requireCallBeforeOutput?: boolean;
}

/** The mapped conversation. */
export interface ResponsesInput {
  instructions: string | undefined;
  input: ResponsesInputItem[];
  warnings: Warning[];
}

/**
 * Maps core messages to Responses `input` items. Tool calls become `function_call` items
 * and tool results `function_call_output` items, linked by `call_id`; item ids are never
 * sent (with `store: false` the API rejects ids it has not kept). With `store: false` the
 * reasoning items the model produced in a turn (kept in `providerMetadata[key].reasoningItems`)
 * are sent back before that turn, so the model keeps its reasoning across tool round trips.
 * A call the provider ran itself (code interpreter) is replayed as an `item_reference`.
 */
export function toResponsesInput(messages: readonly Message[], options: ResponsesInputOptions): ResponsesInput {
  const instructions: string[] = [];
  const input: ResponsesInputItem[] = [];
  const warnings: Warning[] = [];
  const openCalls = new Set<string>();
  const store = options.store !== false;
  let leading = true;
  for (const message of messages) {
    if (message.role !== 'system') leading = false;
    switch (message.role) {
      case 'system':
        if (options.systemMessages === 'developer') input.push(textMessage('developer', message.content));
        else if (leading) instructions.push(message.content);
        else input.push(textMessage('system', message.content));
        break;
      case 'user':
        input.push({ type: 'message', role: 'user', content: userContent(message.content, options.provider) });
        break;
      case 'assistant': {
        const metadata = message.providerMetadata?.[options.metadataKey];
        if (!store) input.push(...recordedReasoningItems(metadata));
        if (message.content !== '') input.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: message.content }] });
        const recorded = recordedCalls(metadata);
        for (const call of message.toolCalls ?? []) {
          if (call.providerExecuted === true) {
            if (!store) {
              warnings.push({
                type: 'other',
                message: `The provider-executed call ${call.id} was left out of the input: with store: false it cannot be referenced.`,
              });
            } else {
              input.push({ type: 'item_reference', id: call.id });
            }
            continue;
          }
          const wire: WireFunctionCall = options.callMapping
            ? options.callMapping.toWireCall(call, recorded.get(call.id))
            : { callId: call.id, name: call.name, arguments: call.invalid?.rawArguments ?? JSON.stringify(call.arguments) };
          input.push({ type: 'function_call', call_id: wire.callId, name: wire.name, arguments: wire.arguments });
          openCalls.add(wire.callId);
        }
        break;
      }
      case 'tool':
        if (options.requireCallBeforeOutput === true && !openCalls.has(message.toolCallId)) {
          throw new InvalidRequestError({
            provider: options.provider,
            message:
              `The tool message for call "${message.toolCallId}" has no earlier assistant tool call with that id, and the backend rejects it ` +
              '("No tool call found for function call output"). Keep the assistant message with its toolCalls before the tool results.',
          });
        }
        input.push({ type: 'function_call_output', call_id: message.toolCallId, output: message.content });
        break;
      default: {
        const unexpected: never = message;
        throw new InvalidRequestError({ provider: options.provider, message: `Unknown message role in ${JSON.stringify(unexpected)}.` });
      }
    }
  }
  return { instructions: instructions.length > 0 ? instructions.join('\n\n') : undefined, input, warnings };
}

function textMessage(role: 'developer' | 'system', text: string): ResponsesInputItem {
  return { type: 'message', role, content: [{ type: 'input_text', text }] };
}

function userContent(content: string | UserContentPart[], provider: string): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'input_text', text: content }];
  return content.map((part) => {
    switch (part.type) {
      case 'text':
        return { type: 'input_text', text: part.text };
      case 'image':
        return { type: 'input_image', image_url: toImageUrl(part.image, part.mediaType), detail: 'auto' };
      default: {
        const unexpected: never = part;
        throw new InvalidRequestError({ provider, message: `Unknown user content part ${JSON.stringify(unexpected)}.` });
      }
    }
  });
}

/** A URL or data URL for an image given as a URL, a data URL or raw base64. */
export function toImageUrl(image: string, mediaType: string | undefined): string {
  if (image.startsWith('http://') || image.startsWith('https://') || image.startsWith('data:')) return image;
  return `data:${mediaType ?? 'image/png'};base64,${image}`;
}

function recordedCalls(metadata: Record<string, unknown> | undefined): Map<string, WireFunctionCall> {
  const calls = new Map<string, WireFunctionCall>();
  const wireCalls = metadata?.['wireCalls'];
  if (!isRecord(wireCalls)) return calls;
  for (const [callId, value] of Object.entries(wireCalls)) {
    if (isRecord(value) && typeof value['name'] === 'string' && typeof value['arguments'] === 'string') {
      calls.set(callId, { callId, name: value['name'], arguments: value['arguments'] });
    }
  }
  return calls;
}
