import type { ChatStreamEvent } from '@toolwire/core';
import { CallTextCleaner } from './call-text-cleaner.ts';
import type { ExtractOptions } from './extract-options.ts';
import { createToolCallParser } from './tool-call-parser.ts';
import type { ToolCallParser } from './tool-call-parser.ts';
import type { ToolCallSink } from './tool-call-sink.ts';

/** What a push that emits nothing returns (most deltas inside a call). */
const NO_EVENTS: readonly ChatStreamEvent[] = Object.freeze([]);

/**
 * Turns the text of a text-tools answer into chat stream events: `text-delta`s with the
 * calls (and their framing) taken out, and complete tool calls. A call's start and its
 * argument text (one delta) wait until the call is complete, so a started call that turns out not to be one (bad
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
  /**
   * Started calls, held until complete: the name and the argument text's pieces (one string per
   * delta, joined once: a model writing a long argument a token at a time costs a pointer per
   * token here, not an event object).
   */
  private readonly pending = new Map<string, { name: string; parts: string[] }>();
  private readonly single: boolean;
  /** What the current `push` or `end` emits, made with its first event (most deltas of a call emit none). */
  private out: ChatStreamEvent[] | undefined;
  /**
   * The parser's events as they are found (its sink form): no event object and array per delta
   * from the parser, and no pass over them here. `Required`, so that a new kind of event cannot
   * be left out unnoticed.
   */
  private readonly sink: Required<ToolCallSink> = {
    onText: (text) => {
      this.text(text);
    },
    onReasoningStart: () => {
      // The delimiters (`<think>`, `</think>`) are neither answer nor reasoning text.
    },
    onReasoning: (text) => {
      this.emit({ type: 'reasoning-delta', delta: text });
    },
    onReasoningEnd: () => {
      // See `onReasoningStart`.
    },
    onToolCallStart: (id, name) => {
      this.pending.set(id, { name, parts: [] });
    },
    onToolCallDelta: (id, argumentsText) => {
      this.pending.get(id)?.parts.push(argumentsText);
    },
    onToolCall: (toolCall, text) => {
      const started = this.pending.get(toolCall.id);
      this.pending.delete(toolCall.id);
      this.shownBefore(text);
      if (this.single && this.called > 0) {
        this.dropped++;
        return;
      }
      if (started !== undefined) {
        this.emit({ type: 'tool-call-start', id: toolCall.id, name: started.name });
        const argumentsDelta = started.parts.join('');
        if (argumentsDelta !== '') this.emit({ type: 'tool-call-delta', id: toolCall.id, argumentsDelta });
      }
      this.emit({ type: 'tool-call', toolCall });
      this.called++;
    },
    onToolCallDiscarded: (id, text, reason) => {
      this.pending.delete(id);
      if (reason === 'invalid-arguments') this.text(text);
      else this.shownBefore(text);
    },
    onIncomplete: (text, id) => {
      if (id !== undefined) this.pending.delete(id);
      this.text(text);
    },
  };

  constructor(extract: ExtractOptions, single: boolean) {
    this.parser = createToolCallParser(extract);
    this.single = single;
  }

  /** The next piece of the model's text. */
  push(delta: string): readonly ChatStreamEvent[] {
    this.out = undefined;
    this.parser.push(delta, this.sink);
    return this.take();
  }

  /** The end of the model's text. */
  end(): readonly ChatStreamEvent[] {
    this.out = undefined;
    this.parser.end(this.sink);
    const rest = this.cleaner.end();
    if (rest !== '') this.emit({ type: 'text-delta', delta: rest });
    return this.take();
  }

  private take(): readonly ChatStreamEvent[] {
    const out = this.out;
    this.out = undefined;
    return out ?? NO_EVENTS;
  }

  private emit(event: ChatStreamEvent): void {
    if (this.out === undefined) this.out = [event];
    else this.out.push(event);
  }

  /** Text between calls, as the cleaner shows it. */
  private text(raw: string): void {
    const shown = this.cleaner.text(raw);
    if (shown !== '') this.emit({ type: 'text-delta', delta: shown });
  }

  /** A call's text (or a repeated call's): the cleaner shows what came before it. */
  private shownBefore(callText: string): void {
    const before = this.cleaner.call(callText);
    if (before !== '') this.emit({ type: 'text-delta', delta: before });
  }
}
