import type { Message, ToolCall } from '@toolwire/core';
import { imageToBytes } from './convert-image.ts';
import type { OllamaWireMessage, OllamaWireToolCall } from './ollama-wire.ts';

/**
 * Maps a core conversation to Ollama messages: assistant calls with arguments as objects
 * (`""` becomes `{}`), tool results with the `tool_name` Ollama's templates need (taken
 * from the earlier call when the message has none), user images as bytes.
 */
export function toOllamaMessages(messages: readonly Message[]): OllamaWireMessage[] {
  const toolNames = new Map<string, string>();
  const wire: OllamaWireMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        wire.push({ role: 'system', content: message.content });
        break;
      case 'user': {
        if (typeof message.content === 'string') {
          wire.push({ role: 'user', content: message.content });
          break;
        }
        const texts: string[] = [];
        const images: Uint8Array[] = [];
        for (const part of message.content) {
          if (part.type === 'text') texts.push(part.text);
          else images.push(imageToBytes(part.image));
        }
        wire.push({ role: 'user', content: texts.join('\n'), ...(images.length > 0 ? { images } : {}) });
        break;
      }
      case 'assistant': {
        const out: OllamaWireMessage = { role: 'assistant', content: message.content };
        if (message.reasoning !== undefined && message.reasoning !== '') out.thinking = message.reasoning;
        const calls = message.toolCalls ?? [];
        if (calls.length > 0) {
          out.tool_calls = calls.map((call, index) => {
            toolNames.set(call.id, call.name);
            return toWireToolCall(call, index);
          });
        }
        wire.push(out);
        break;
      }
      case 'tool': {
        const name = message.toolName ?? toolNames.get(message.toolCallId);
        wire.push({
          role: 'tool',
          content: message.content,
          ...(name !== undefined ? { tool_name: name } : {}),
          tool_call_id: message.toolCallId,
        });
        break;
      }
      default: {
        const unexpected: never = message;
        throw new TypeError(`Unknown message role in ${JSON.stringify(unexpected)}`);
      }
    }
  }
  return wire;
}

function toWireToolCall(call: ToolCall, index: number): OllamaWireToolCall {
  return { id: call.id, function: { index, name: call.name, arguments: argumentsObject(call.arguments) } };
}

/**
 * Ollama wants an object. Histories that went through an OpenAI-style client may carry
 * arguments as JSON text, and `""` for a call without arguments.
 */
export function argumentsObject(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    if (value.trim() === '') return {};
    try {
      const parsed: unknown = JSON.parse(value);
      return isPlainObject(parsed) ? parsed : {};
    } catch {
      return {};
    }
  }
  return isPlainObject(value) ? value : {};
}

/** True for a JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
