import type { Message, Warning } from '@toolwire/core';
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { toImageUrl } from '@toolwire/openai-responses';

/** How system messages are sent: `system`, or `developer` (OpenAI's reasoning models). */
export type SystemMessageMode = 'system' | 'developer';

/**
 * Maps core messages to Chat Completions messages: tool calls with arguments as JSON
 * strings, tool results by `tool_call_id`. Calls the provider ran itself (Responses-only
 * tools) have no Chat form and are left out with a warning.
 */
export function toChatMessages(
  messages: readonly Message[],
  systemMessageMode: SystemMessageMode = 'system',
): { messages: ChatCompletionMessageParam[]; warnings: Warning[] } {
  const out: ChatCompletionMessageParam[] = [];
  const warnings: Warning[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        out.push({ role: systemMessageMode, content: message.content });
        break;
      case 'user':
        if (typeof message.content === 'string') {
          out.push({ role: 'user', content: message.content });
        } else {
          const parts: ChatCompletionContentPart[] = message.content.map((part) =>
            part.type === 'text'
              ? { type: 'text', text: part.text }
              : { type: 'image_url', image_url: { url: toImageUrl(part.image, part.mediaType) } },
          );
          out.push({ role: 'user', content: parts });
        }
        break;
      case 'assistant': {
        const calls = (message.toolCalls ?? []).filter((call) => call.providerExecuted !== true);
        if (calls.length < (message.toolCalls?.length ?? 0)) {
          warnings.push({
            type: 'other',
            message: 'Calls of provider-executed tools in the history were left out: Chat Completions has no form for them.',
          });
        }
        if (calls.length === 0) {
          out.push({ role: 'assistant', content: message.content });
          break;
        }
        out.push({
          role: 'assistant',
          // OpenAI accepts null content beside tool calls; some compatible servers reject "".
          content: message.content === '' ? null : message.content,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        });
        break;
      }
      case 'tool':
        out.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
        break;
      default: {
        const unexpected: never = message;
        throw new Error(`Unknown message role in ${JSON.stringify(unexpected)}`);
      }
    }
  }
  return { messages: out, warnings };
}
