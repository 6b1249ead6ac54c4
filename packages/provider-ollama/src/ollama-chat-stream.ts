import type { AnswerLimit, ChatStreamEvent, ToolCall, Warning } from '@toolwire/core';
import { textCallOpening } from '@toolwire/core/provider';
import { fromOllamaToolCalls } from './ollama-chat-tool-calls.ts';
import { mapUsage } from './ollama-chat-response.ts';
import type { TurnSummary } from './ollama-chat-response.ts';
import type { OllamaChatChunk } from './ollama-wire.ts';

/** How `streamTurn` treats the chunks. */
export interface StreamTurnOptions {
  /** Keep only the first call (`parallelToolCalls: false`). */
  firstCallOnly: boolean;
  /** Collect text instead of yielding it (a forced call may still need a retry). */
  holdText: boolean;
  /** When set, calls to other tools are dropped with a warning (a forced named call). */
  allowedNames?: ReadonlySet<string> | undefined;
  /**
   * Hold text back while it may still be one tool call written as text (`textCallOpening`);
   * the summary's `heldText` says whether it still was at the end.
   */
  holdPossibleTextCall?: boolean;
  /** Counts the answer (its content, thinking and calls, also what is held): throws its `AnswerTooLargeError` past a bound. */
  answerLimit?: AnswerLimit | undefined;
}

/**
 * Maps Ollama's NDJSON chunks to core events: `content` → `text-delta`, `thinking` →
 * `reasoning-delta`, and each tool call (Ollama sends every call whole, in one chunk)
 * → `tool-call-start`, one `tool-call-delta` with the JSON arguments, `tool-call`.
 * Returns the turn's summary; the caller emits `finish`.
 */
export async function* streamTurn(
  chunks: AsyncIterable<OllamaChatChunk>,
  options: StreamTurnOptions,
): AsyncGenerator<ChatStreamEvent, TurnSummary> {
  const summary: TurnSummary = { text: '', reasoning: '', toolCalls: [], doneReason: undefined, usage: undefined, modelId: undefined };
  let holding = options.holdPossibleTextCall === true;
  /** The held text opens as a call: held to the end without asking again. */
  let heldCall = false;
  const limit = options.answerLimit;
  for await (const chunk of chunks) {
    const message = chunk.message;
    if (message?.thinking !== undefined && message.thinking !== '') {
      limit?.addChars(message.thinking.length);
      summary.reasoning += message.thinking;
      yield { type: 'reasoning-delta', delta: message.thinking };
    }
    if (message?.content !== undefined && message.content !== '') {
      limit?.addChars(message.content.length);
      summary.text += message.content;
      const opening = holding && !heldCall ? textCallOpening(summary.text) : undefined;
      if (opening === 'call') heldCall = true;
      if (opening === 'text') {
        // Not a call after all: what was held goes out, and the rest streams.
        holding = false;
        if (!options.holdText) yield { type: 'text-delta', delta: summary.text };
      } else if (!options.holdText && !holding) {
        yield { type: 'text-delta', delta: message.content };
      }
    }
    for (const call of fromOllamaToolCalls(message?.tool_calls)) {
      if (limit !== undefined) {
        limit.addToolCall();
        limit.addChars(call.invalid?.rawArguments.length ?? JSON.stringify(call.arguments).length);
      }
      if (options.allowedNames !== undefined && !options.allowedNames.has(call.name)) {
        yield { type: 'warning', warning: droppedCallWarning(call.name) };
        continue;
      }
      if (options.firstCallOnly && summary.toolCalls.length > 0) continue;
      summary.toolCalls.push(call);
      yield* toolCallEvents(call);
    }
    if (chunk.done === true) {
      summary.doneReason = chunk.done_reason;
      summary.usage = mapUsage(chunk);
      summary.modelId = chunk.model;
    }
  }
  summary.heldText = holding && summary.text !== '';
  return summary;
}

/** Said when a forced turn called a tool other than the allowed ones. */
export function droppedCallWarning(name: string): Warning {
  return { type: 'unsupported-tool', toolName: name, message: `The model called "${name}", which toolChoice does not allow; the call was dropped.` };
}

/** The events of one complete call. */
export function* toolCallEvents(call: ToolCall): Generator<ChatStreamEvent> {
  yield { type: 'tool-call-start', id: call.id, name: call.name };
  yield { type: 'tool-call-delta', id: call.id, argumentsDelta: call.invalid?.rawArguments ?? JSON.stringify(call.arguments) };
  yield { type: 'tool-call', toolCall: call };
}
