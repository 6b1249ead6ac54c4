import type { ChatStreamEvent } from '@toolwire/core';
import { CallTextCleaner } from './call-text-cleaner.ts';
import type { ExtractOptions } from './extract-options.ts';
import { createToolCallParser } from './tool-call-parser.ts';
import type { ToolCallParser } from './tool-call-parser.ts';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';

/**
 * Turns the text of a text-tools answer into chat stream events: `text-delta`s with the
 * calls (and their framing) taken out, and complete tool calls. A call's start and deltas
 * wait until the call is complete, so a started call that turns out not to be one (bad
 * arguments, a repeat) never leaves a dangling start. Used by both generate and stream, so
 * the two give the same answer.
 */
export class TextToolsDecoder {
  /** Calls emitted so far. */
  called = 0;
  /** Calls left out because only one was allowed. */
  dropped = 0;
  private readonly parser: ToolCallParser;
  private readonly cleaner = new CallTextCleaner();
  private readonly pending = new Map<string, ChatStreamEvent[]>();
  private readonly single: boolean;

  constructor(extract: ExtractOptions, single: boolean) {
    this.parser = createToolCallParser(extract);
    this.single = single;
  }

  /** The next piece of the model's text. */
  push(delta: string): ChatStreamEvent[] {
    return this.map(this.parser.push(delta));
  }

  /** The end of the model's text. */
  end(): ChatStreamEvent[] {
    const out = this.map(this.parser.end());
    const rest = this.cleaner.end();
    if (rest !== '') out.push({ type: 'text-delta', delta: rest });
    return out;
  }

  private map(events: readonly ToolCallParserEvent[]): ChatStreamEvent[] {
    const out: ChatStreamEvent[] = [];
    const text = (raw: string): void => {
      const shown = this.cleaner.text(raw);
      if (shown !== '') out.push({ type: 'text-delta', delta: shown });
    };
    for (const event of events) {
      switch (event.type) {
        case 'text':
          text(event.text);
          break;
        case 'tool-call-start':
          this.pending.set(event.id, [{ type: 'tool-call-start', id: event.id, name: event.name }]);
          break;
        case 'tool-call-delta':
          this.pending.get(event.id)?.push({ type: 'tool-call-delta', id: event.id, argumentsDelta: event.argumentsText });
          break;
        case 'tool-call': {
          const started = this.pending.get(event.toolCall.id) ?? [];
          this.pending.delete(event.toolCall.id);
          const before = this.cleaner.call(event.text);
          if (before !== '') out.push({ type: 'text-delta', delta: before });
          if (this.single && this.called > 0) {
            this.dropped++;
          } else {
            out.push(...started, { type: 'tool-call', toolCall: event.toolCall });
            this.called++;
          }
          break;
        }
        case 'tool-call-discarded':
          this.pending.delete(event.id);
          if (event.reason === 'invalid-arguments') text(event.text);
          else {
            const before = this.cleaner.call(event.text);
            if (before !== '') out.push({ type: 'text-delta', delta: before });
          }
          break;
        case 'incomplete':
          if (event.id !== undefined) this.pending.delete(event.id);
          text(event.text);
          break;
        case 'reasoning':
          out.push({ type: 'reasoning-delta', delta: event.text });
          break;
        case 'reasoning-start':
        case 'reasoning-end':
          // The delimiters (`<think>`, `</think>`) are neither answer nor reasoning text.
          break;
        default: {
          const unknown: never = event;
          throw new Error(`unknown parser event ${JSON.stringify(unknown)}`);
        }
      }
    }
    return out;
  }
}
