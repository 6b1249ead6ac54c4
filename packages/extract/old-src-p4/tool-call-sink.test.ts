import { describe, expect, it } from 'vitest';
import { ToolCallParserEndedError, ToolCallParserReentryError } from './errors.ts';
import type { ExtractOptions } from './extract-options.ts';
import { createToolCallParser } from './tool-call-parser.ts';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';
import { collectingSink } from '../test/helpers/collecting-sink.ts';
import type { ToolCallSink } from './tool-call-sink.ts';

function both(chunks: readonly string[], options?: ExtractOptions): { events: ToolCallParserEvent[]; sunk: ToolCallParserEvent[] } {
  const parser = createToolCallParser(options);
  const events: ToolCallParserEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.end());
  const sinkParser = createToolCallParser(options);
  const sunk: ToolCallParserEvent[] = [];
  const sink = collectingSink(sunk);
  for (const chunk of chunks) expect(sinkParser.push(chunk, sink)).toEqual([]);
  expect(sinkParser.end(sink)).toEqual([]);
  return { events, sunk };
}

const TEXTS = [
  'Let me look: search(query="x", limit=2) and search(query="x", limit=2) again, then g(',
  '<think>maybe f(a=1)</think>{"name": "f", "arguments": {"a": [1, 2]}} done',
  '<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call> tail',
  '[TOOL_CALLS]f[ARGS]{"a": "b"} then f(a=")") and bad(=) and {"name": "x"',
  '<|channel|>analysis<|message|>thinking<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a":1}<|call|>',
];

describe('createToolCallParser with a sink', () => {
  it('hands the sink the same events, in order, that push returns, one character at a time or in chunks', () => {
    for (const text of TEXTS) {
      for (const size of [1, 2, 3, 7, text.length]) {
        const chunks: string[] = [];
        for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
        for (const options of [undefined, { tools: ['f', 'search'] }, { callsInReasoning: true }] satisfies (ExtractOptions | undefined)[]) {
          const { events, sunk } = both(chunks, options);
          expect(sunk).toEqual(events);
          expect(events.length).toBeGreaterThan(0);
        }
      }
    }
  });

  it('reports an unclosed call as incomplete to the sink at end', () => {
    const { sunk } = both(Array.from({ length: 10 }, (_, i) => 'say f(a="x'.charAt(i)));
    expect(sunk.at(-1)).toEqual({ type: 'incomplete', text: 'f(a="x', id: 'f_0' });
  });

  it('drops the events whose method the sink does not have', () => {
    const parser = createToolCallParser();
    const names: string[] = [];
    const sink: ToolCallSink = { onToolCall: (call) => names.push(call.name) };
    for (const c of 'a f(x=1) b g(y=2) c') parser.push(c, sink);
    parser.end(sink);
    expect(names).toEqual(['f', 'g']);
  });

  it('may be mixed with pushes that return events on the same parser', () => {
    const parser = createToolCallParser();
    const events: ToolCallParserEvent[] = [];
    const sink = collectingSink(events);
    const text = 'see f(a=1, b="two") then g()';
    for (let i = 0; i < text.length; i++) {
      if (i % 2 === 0) parser.push(text.charAt(i), sink);
      else events.push(...parser.push(text.charAt(i)));
    }
    events.push(...parser.end());
    expect(events.map((e) => ('text' in e ? e.text : '')).join('')).toBe(text);
    expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall.name] : []))).toEqual(['f', 'g']);
  });

  it('refuses a push from inside a sink method while a chunk is scanned, and works on after it', () => {
    const parser = createToolCallParser();
    let caught: unknown;
    const sink: ToolCallSink = {
      onToolCallStart: () => {
        try {
          parser.push('x');
        } catch (error) {
          caught = error;
        }
      },
    };
    parser.push('f(', sink);
    expect(ToolCallParserReentryError.isInstance(caught)).toBe(true);
    const calls: string[] = [];
    parser.push('a=1)', { onToolCall: (call) => calls.push(JSON.stringify(call.arguments)) });
    expect(calls).toEqual(['{"a":1}']);
  });

  it('lets a sink method throw out of push, and scans the next chunk afterwards', () => {
    const parser = createToolCallParser();
    expect(() =>
      parser.push('hello ', {
        onText: () => {
          throw new Error('sink failed');
        },
      }),
    ).toThrow('sink failed');
    expect(parser.push('f(a=1)').some((e) => e.type === 'tool-call')).toBe(true);
  });

  it('refuses chunks after end()', () => {
    const parser = createToolCallParser();
    parser.end({});
    expect(() => parser.push('f(', {})).toThrow(ToolCallParserEndedError);
    expect(parser.end({})).toEqual([]);
  });
});
