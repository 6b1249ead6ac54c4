import { InvalidRequestError } from '@toolwire/core';
import type { Message, UserContentPart } from '@toolwire/core';

import { isRecord } from '../auth/jwt.ts';
import { PROVIDER_NAME } from '../constants.ts';
import { toWireCall } from '../tools/map-tool-calls.ts';
import type { WireFunctionCall } from '../tools/map-tool-calls.ts';
import type { ToolMapping } from '../tools/wire-tool.ts';

/** One Responses input item. */
export type InputItem = Record<string, unknown>;

/**
 * Turns the conversation into Responses input items: system messages become developer
 * messages, tool calls become `function_call` items and tool messages the matching
 * `function_call_output`, paired by `call_id`. Reasoning items recorded on assistant
 * messages are replayed with their `encrypted_content`; item ids are never sent (with
 * `store: false` the backend rejects ids it has not kept).
 */
export function convertMessages(messages: readonly Message[], mapping: ToolMapping): InputItem[] {
  const input: InputItem[] = [];
  const openCalls = new Set<string>();
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        input.push({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: message.content }] });
        break;
      case 'user':
        input.push({ type: 'message', role: 'user', content: userContent(message.content) });
        break;
      case 'assistant': {
        const metadata = message.providerMetadata?.[PROVIDER_NAME];
        for (const item of reasoningItems(metadata)) input.push(item);
        if (message.content !== '') {
          input.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: message.content }] });
        }
        const recorded = recordedCalls(metadata);
        for (const toolCall of message.toolCalls ?? []) {
          if (toolCall.providerExecuted === true) continue;
          const call = toWireCall(mapping, toolCall, recorded.get(toolCall.id));
          input.push({ type: 'function_call', call_id: call.callId, name: call.name, arguments: call.arguments });
          openCalls.add(call.callId);
        }
        break;
      }
      case 'tool':
        if (!openCalls.has(message.toolCallId)) {
          throw new InvalidRequestError({
            provider: PROVIDER_NAME,
            message:
              `The tool message for call "${message.toolCallId}" has no earlier assistant tool call with that id, and the backend rejects it ` +
              '("No tool call found for function call output"). Keep the assistant message with its toolCalls before the tool results.',
          });
        }
        input.push({ type: 'function_call_output', call_id: message.toolCallId, output: message.content });
        break;
      default: {
        const unexpected: never = message;
        throw new InvalidRequestError({ provider: PROVIDER_NAME, message: `Unknown message role in ${JSON.stringify(unexpected)}.` });
      }
    }
  }
  return input;
}

function userContent(content: string | UserContentPart[]): InputItem[] {
  if (typeof content === 'string') return [{ type: 'input_text', text: content }];
  return content.map((part) => {
    switch (part.type) {
      case 'text':
        return { type: 'input_text', text: part.text };
      case 'image':
        return { type: 'input_image', image_url: imageUrl(part.image, part.mediaType) };
      default: {
        const unexpected: never = part;
        throw new InvalidRequestError({ provider: PROVIDER_NAME, message: `Unknown user content part ${JSON.stringify(unexpected)}.` });
      }
    }
  });
}

function imageUrl(image: string, mediaType: string | undefined): string {
  if (image.startsWith('http://') || image.startsWith('https://') || image.startsWith('data:')) return image;
  return `data:${mediaType ?? 'image/png'};base64,${image}`;
}

function reasoningItems(metadata: Record<string, unknown> | undefined): InputItem[] {
  const items = metadata?.reasoningItems;
  if (!Array.isArray(items)) return [];
  const result: InputItem[] = [];
  for (const item of items as unknown[]) {
    if (!isRecord(item) || typeof item.encrypted_content !== 'string') continue;
    const { id: _id, status: _status, ...rest } = item;
    result.push({ ...rest, type: 'reasoning', summary: Array.isArray(rest.summary) ? rest.summary : [] });
  }
  return result;
}

function recordedCalls(metadata: Record<string, unknown> | undefined): Map<string, WireFunctionCall> {
  const calls = new Map<string, WireFunctionCall>();
  const wireCalls = metadata?.wireCalls;
  if (!isRecord(wireCalls)) return calls;
  for (const [callId, value] of Object.entries(wireCalls)) {
    if (isRecord(value) && typeof value.name === 'string' && typeof value.arguments === 'string') {
      calls.set(callId, { callId, name: value.name, arguments: value.arguments });
    }
  }
  return calls;
}
