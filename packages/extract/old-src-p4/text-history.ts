import type { Message } from '@toolwire/core';
import { renderToolCall } from './render-tool-call.ts';
import { renderToolResult } from './render-tool-result.ts';
import type { TextToolFormat } from './text-tool-format.ts';

/**
 * A conversation as a text-only model can read it: earlier assistant tool calls become
 * call text in the assistant's turn, tool messages become user turns with the rendered
 * results (consecutive ones merged), and `toolPrompt` joins the system prompt.
 */
export function toTextMessages(messages: readonly Message[], options: { format: TextToolFormat; toolPrompt: string }): Message[] {
  const out: Message[] = [];
  const namesById = new Map<string, string>();
  let results: string[] = [];
  const flushResults = (): void => {
    if (results.length === 0) return;
    out.push({ role: 'user', content: results.join('\n\n') });
    results = [];
  };
  for (const message of messages) {
    switch (message.role) {
      case 'tool': {
        const name = message.toolName ?? message.result?.name ?? namesById.get(message.toolCallId) ?? 'tool';
        const result = message.result ?? { toolCallId: message.toolCallId, name, success: true, message: message.content };
        results.push(renderToolResult(result.success ? { ...result, message: message.content } : result));
        break;
      }
      case 'assistant': {
        flushResults();
        const calls = (message.toolCalls ?? []).filter((call) => call.providerExecuted !== true);
        for (const call of calls) namesById.set(call.id, call.name);
        const parts = [message.content, ...calls.map((call) => renderToolCall(call, options.format))].filter((part) => part !== '');
        out.push({ role: 'assistant', content: parts.join('\n') });
        break;
      }
      case 'system':
      case 'user':
        flushResults();
        out.push(message);
        break;
      default: {
        const unknown: never = message;
        throw new Error(`unknown message ${JSON.stringify(unknown)}`);
      }
    }
  }
  flushResults();
  if (options.toolPrompt === '') return out;
  const systemIndex = out.findIndex((message) => message.role === 'system');
  const system = out[systemIndex];
  if (system?.role === 'system') {
    out[systemIndex] = { role: 'system', content: `${system.content}\n\n${options.toolPrompt}` };
  } else {
    out.unshift({ role: 'system', content: options.toolPrompt });
  }
  return out;
}
