import type { Message, ToolMessage } from '../types/message.ts';
import type { Warning } from '../types/warning.ts';

/**
 * What an unanswered call is answered with. Codex answers a call whose output is missing
 * from the history with "aborted" before sending (openai/codex,
 * codex-rs/core/src/context_manager/normalize.rs, `ensure_call_outputs_present`).
 */
export const UNANSWERED_TOOL_CALL_OUTPUT = 'aborted';

/**
 * Answers every tool call in the history that has no tool message, because the APIs refuse
 * such a history (OpenAI: "An assistant message with 'tool_calls' must be followed by tool
 * messages"; the Codex backend: "No tool output found for function call"). The answer
 * (`"aborted"`) is put right after that assistant turn's own answers; provider-executed
 * calls are left alone. Returns the input array itself when nothing was missing.
 */
export function answerUnansweredToolCalls(messages: readonly Message[]): { messages: readonly Message[]; warnings: Warning[] } {
  const answered = new Set<string>();
  for (const message of messages) if (message.role === 'tool') answered.add(message.toolCallId);
  let missing = false;
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) if (call.providerExecuted !== true && !answered.has(call.id)) missing = true;
  }
  if (!missing) return { messages, warnings: [] };
  const result: Message[] = [];
  const filled: string[] = [];
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as Message;
    result.push(message);
    index++;
    if (message.role !== 'assistant') continue;
    // Keep the turn's own tool answers together, then add the missing ones after them.
    while (index < messages.length && (messages[index] as Message).role === 'tool') result.push(messages[index++] as Message);
    for (const call of message.toolCalls ?? []) {
      if (call.providerExecuted === true || answered.has(call.id)) continue;
      answered.add(call.id);
      filled.push(call.name);
      const answer: ToolMessage = { role: 'tool', toolCallId: call.id, toolName: call.name, content: UNANSWERED_TOOL_CALL_OUTPUT };
      result.push(answer);
    }
  }
  return {
    messages: result,
    warnings: [
      {
        type: 'other',
        message: `${filled.length} tool call(s) in the history had no result (${filled.join(', ')}); they were answered with "${UNANSWERED_TOOL_CALL_OUTPUT}" so the provider accepts the conversation. Add a tool message for every call to control the answer.`,
      },
    ],
  };
}
