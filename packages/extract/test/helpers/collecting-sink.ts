import type { ToolCallParserEvent } from '../../src/tool-call-parser-event.ts';
import type { ToolCallSink } from '../../src/tool-call-sink.ts';

/** A sink that rebuilds, into `events`, the events its methods receive (for comparing with `push`'s). */
export function collectingSink(events: ToolCallParserEvent[]): Required<ToolCallSink> {
  return {
    onText: (text) => events.push({ type: 'text', text }),
    onReasoningStart: (text) => events.push({ type: 'reasoning-start', text }),
    onReasoning: (text) => events.push({ type: 'reasoning', text }),
    onReasoningEnd: (text) => events.push({ type: 'reasoning-end', text }),
    onToolCallStart: (id, name) => events.push({ type: 'tool-call-start', id, name }),
    onToolCallDelta: (id, argumentsText) => events.push({ type: 'tool-call-delta', id, argumentsText }),
    onToolCall: (toolCall, text) => events.push({ type: 'tool-call', toolCall, text }),
    onToolCallDiscarded: (id, text, reason) => events.push({ type: 'tool-call-discarded', id, text, reason }),
    onIncomplete: (text, id, reason) => {
      const event: ToolCallParserEvent = id === undefined ? { type: 'incomplete', text } : { type: 'incomplete', text, id };
      if (reason !== undefined) event.reason = reason;
      events.push(event);
    },
  };
}
