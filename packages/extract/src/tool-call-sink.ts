import type { ToolCall } from '@toolwire/core';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';

/**
 * Receives what a streaming parser finds, one method per event type, in the order the events
 * would be returned; the methods take the event's fields as arguments, so a push makes no event
 * object (in a token stream, most pushes report one argument delta). Every method is optional:
 * a missing one drops that kind of event.
 *
 * @example
 * let args = '';
 * const sink: ToolCallSink = { onToolCallDelta: (id, text) => (args += text), onToolCall: (call) => run(call) };
 * for await (const token of stream) parser.push(token, sink);
 * parser.end(sink);
 */
export interface ToolCallSink {
  /** A `text` event. */
  onText?(text: string): void;
  /** A `reasoning-start` event. */
  onReasoningStart?(text: string): void;
  /** A `reasoning` event. */
  onReasoning?(text: string): void;
  /** A `reasoning-end` event. */
  onReasoningEnd?(text: string): void;
  /** A `tool-call-start` event. */
  onToolCallStart?(id: string, name: string): void;
  /** A `tool-call-delta` event. */
  onToolCallDelta?(id: string, argumentsText: string): void;
  /** A `tool-call` event. */
  onToolCall?(toolCall: ToolCall, text: string): void;
  /** A `tool-call-discarded` event. */
  onToolCallDiscarded?(id: string, text: string, reason: 'invalid-arguments' | 'duplicate'): void;
  /** An `incomplete` event (`id` when the unclosed span was a started call; `reason` when it was given up mid-stream). */
  onIncomplete?(text: string, id: string | undefined, reason: 'too-long' | undefined): void;
}

/** Hands one event to the sink method of its type. */
export function deliverEvent(sink: ToolCallSink, event: ToolCallParserEvent): void {
  switch (event.type) {
    case 'text':
      sink.onText?.(event.text);
      return;
    case 'reasoning-start':
      sink.onReasoningStart?.(event.text);
      return;
    case 'reasoning':
      sink.onReasoning?.(event.text);
      return;
    case 'reasoning-end':
      sink.onReasoningEnd?.(event.text);
      return;
    case 'tool-call-start':
      sink.onToolCallStart?.(event.id, event.name);
      return;
    case 'tool-call-delta':
      sink.onToolCallDelta?.(event.id, event.argumentsText);
      return;
    case 'tool-call':
      sink.onToolCall?.(event.toolCall, event.text);
      return;
    case 'tool-call-discarded':
      sink.onToolCallDiscarded?.(event.id, event.text, event.reason);
      return;
    case 'incomplete':
      sink.onIncomplete?.(event.text, event.id, event.reason);
      return;
    default: {
      const unknown: never = event;
      throw new Error(`unknown parser event ${JSON.stringify(unknown)}`);
    }
  }
}
