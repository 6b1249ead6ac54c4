import { StreamError } from '@toolwire/core';
import type { ChatStreamEvent } from '@toolwire/core';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { callArgs, callsStream, callStart, chunk, finishChunk, roleChunk, textStream, usageChunk } from '../test/chat-wire.ts';
import { createChatStreamMapper } from './openai-chat-stream.ts';
import type { ChatStreamMapperOptions } from './openai-chat-stream.ts';

function run(chunks: ChatCompletionChunk[], options: Partial<ChatStreamMapperOptions> = {}): ChatStreamEvent[] {
  let n = 0;
  const mapper = createChatStreamMapper({ generateId: () => `call_gen${++n}`, ...options });
  return [...chunks.flatMap((c) => mapper.push(c)), ...mapper.end()];
}

function ofType<T extends ChatStreamEvent['type']>(events: ChatStreamEvent[], type: T): Extract<ChatStreamEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ChatStreamEvent, { type: T }> => event.type === type);
}

describe('createChatStreamMapper', () => {
  it('streams text and finishes with usage', () => {
    const events = run(textStream(['Hel', 'lo', '!']));
    expect(events).toEqual([
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo' },
      { type: 'text-delta', delta: '!' },
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 82, outputTokens: 17, totalTokens: 99, cachedInputTokens: 64, reasoningTokens: 0 },
        responseId: 'chatcmpl-BkQ4t0aHn1mSXx8dDqk2Yb3cA1',
        modelId: 'gpt-4.1-mini-2025-04-14',
      },
    ]);
  });

  it("streams Mistral's content parts: thinking parts as reasoning, text parts as text", () => {
    const events = run([
      chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Two and two.' }] }] } as never),
      chunk({ content: [{ type: 'text', text: 'It is ' }, { type: 'text', text: '4.' }] } as never),
      chunk({ content: [] } as never),
      finishChunk('stop'),
    ]);
    expect(events.filter((e) => e.type !== 'finish')).toEqual([
      { type: 'reasoning-delta', delta: 'Two and two.' },
      { type: 'text-delta', delta: 'It is 4.' },
    ]);
  });

  it('emits start, a delta per fragment, and the call only at the finish', () => {
    const events = run(callsStream([{ id: 'call_1', name: 'get_weather', fragments: ['{"ci', 'ty":', '"Paris"}'] }]));
    expect(events.slice(0, 5)).toEqual([
      { type: 'tool-call-start', id: 'call_1', name: 'get_weather' },
      { type: 'tool-call-delta', id: 'call_1', argumentsDelta: '{"ci' },
      { type: 'tool-call-delta', id: 'call_1', argumentsDelta: 'ty":' },
      { type: 'tool-call-delta', id: 'call_1', argumentsDelta: '"Paris"}' },
      { type: 'tool-call', toolCall: { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } } },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  });

  it('never finishes a call because its partial arguments already parse', () => {
    const mapper = createChatStreamMapper({ generateId: () => 'x' });
    const early = [roleChunk(), callStart(0, 'call_1', 'search'), callArgs(0, '{"query":"test"}')].flatMap((c) => mapper.push(c));
    expect(ofType(early, 'tool-call')).toEqual([]);
    const rest = [callArgs(0, ''), finishChunk('tool_calls')].flatMap((c) => mapper.push(c));
    expect(ofType(rest, 'tool-call')).toHaveLength(1);
  });

  it('assembles the same arguments wherever they are split', () => {
    const args = '{"city":"Zürich","note":"a \\"quoted\\" 😀 word","days":[1,2,3],"nested":{"x":null}}';
    const expected = JSON.parse(args);
    for (let first = 0; first <= args.length; first++) {
      for (const second of [first, Math.min(args.length, first + 1), Math.min(args.length, first + 7)]) {
        const fragments = [args.slice(0, first), args.slice(first, second), args.slice(second)];
        const events = run(callsStream([{ id: 'call_1', name: 'f', fragments }]));
        const calls = ofType(events, 'tool-call');
        expect(calls).toHaveLength(1);
        expect(calls[0]?.toolCall.arguments).toEqual(expected);
        expect(ofType(events, 'tool-call-delta').map((event) => event.argumentsDelta).join('')).toBe(args);
      }
    }
  });

  it('assembles interleaved fragments of parallel calls by index', () => {
    const events = run([
      roleChunk(),
      callStart(0, 'call_a', 'get_weather'),
      callStart(1, 'call_b', 'get_time'),
      callArgs(0, '{"city":'),
      callArgs(1, '{"tz":'),
      callArgs(0, '"Paris"}'),
      callArgs(1, '"Europe/Rome"}'),
      finishChunk('tool_calls'),
      usageChunk(),
    ]);
    expect(ofType(events, 'tool-call').map((event) => event.toolCall)).toEqual([
      { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
      { id: 'call_b', name: 'get_time', arguments: { tz: 'Europe/Rome' } },
    ]);
    expect(ofType(events, 'tool-call-delta').filter((event) => event.id === 'call_b').map((event) => event.argumentsDelta)).toEqual(['{"tz":', '"Europe/Rome"}']);
  });

  it('handles parallel calls sent one after another, in order', () => {
    const events = run(
      callsStream([
        { id: 'call_a', name: 'f', fragments: ['{"n":', '1}'] },
        { id: 'call_b', name: 'f', fragments: ['{"n":2}'] },
        { id: 'call_c', name: 'g', fragments: [] },
      ]),
    );
    expect(ofType(events, 'tool-call').map((event) => [event.toolCall.id, event.toolCall.arguments])).toEqual([
      ['call_a', { n: 1 }],
      ['call_b', { n: 2 }],
      ['call_c', {}],
    ]);
  });

  it('assigns a name repeated in every delta instead of concatenating it', () => {
    const events = run([
      roleChunk(),
      callStart(0, 'call_1', 'get_time'),
      chunk({ tool_calls: [{ index: 0, function: { name: 'get_time', arguments: '{}' } }] }),
      finishChunk('tool_calls'),
    ]);
    expect(ofType(events, 'tool-call')[0]?.toolCall.name).toBe('get_time');
  });

  it('keeps the arguments of a call whose id arrives only after its first fragment', () => {
    const events = run([
      roleChunk(),
      chunk({ tool_calls: [{ index: 0, type: 'function', function: { name: 'f', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_late', function: { arguments: '{"a":1}' } }] }),
      finishChunk('tool_calls'),
    ]);
    const calls = ofType(events, 'tool-call').map((event) => event.toolCall);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.arguments).toEqual({ a: 1 });
    // The id the call started with (and every delta carried) stays its id.
    const started = ofType(events, 'tool-call-start')[0]?.id;
    expect(calls[0]?.id).toBe(started);
    expect(ofType(events, 'tool-call-delta').map((event) => event.id)).toEqual([started]);
    expect(ofType(events, 'warning')).toEqual([]);
  });

  it('separates whole calls that all carry index 0 (Ollama)', () => {
    const events = run([
      roleChunk(),
      chunk({ tool_calls: [{ index: 0, id: 'call_x1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_x2', type: 'function', function: { name: 'g', arguments: '{"b":2}' } }] }),
      finishChunk('tool_calls'),
    ]);
    expect(ofType(events, 'tool-call').map((event) => event.toolCall)).toEqual([
      { id: 'call_x1', name: 'f', arguments: { a: 1 } },
      { id: 'call_x2', name: 'g', arguments: { b: 2 } },
    ]);
  });

  it('gives a call whose id another call of the turn already has an id of ours, even with the id repeated in every fragment', () => {
    const events = run([
      roleChunk(),
      chunk({ tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'f', arguments: '{"a":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_0', type: 'function', function: { name: 'f', arguments: '{"a":' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_0', function: { arguments: '1}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_0', function: { arguments: '2}' } }] }),
      finishChunk('tool_calls'),
    ]);
    expect(ofType(events, 'tool-call').map((event) => event.toolCall)).toEqual([
      { id: 'call_0', name: 'f', arguments: { a: 1 } },
      { id: 'call_gen1', name: 'f', arguments: { a: 2 } },
    ]);
    expect(ofType(events, 'tool-call-start').map((event) => event.id)).toEqual(['call_0', 'call_gen1']);
  });

  it('keeps the id it gave a call that got its server id only in a later fragment', () => {
    const events = run([
      roleChunk(),
      chunk({ tool_calls: [{ index: 0, type: 'function', function: { name: 'f', arguments: '{"a":' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_late', function: { arguments: '1}' } }] }),
      finishChunk('tool_calls'),
    ]);
    expect(ofType(events, 'tool-call-start').map((event) => event.id)).toEqual(['call_gen1']);
    expect(ofType(events, 'tool-call').map((event) => event.toolCall.id)).toEqual(['call_gen1']);
  });

  it('with textCallTools, reads an answer that is one call written as text as that call, but never a cut one', () => {
    const tools = [{ name: 'get_weather' }];
    const call = '{"name": "get_weather", "arguments": {"city": "Paris"}}';
    const read = run([roleChunk(), chunk({ content: call.slice(0, 10) }), chunk({ content: call.slice(10) }), finishChunk('stop')], { textCallTools: tools });
    expect(read.map((event) => event.type)).toEqual(['warning', 'tool-call-start', 'tool-call-delta', 'tool-call', 'finish']);
    expect(ofType(read, 'finish')[0]?.finishReason).toBe('tool-calls');

    // Cut by the token limit: the held text is text.
    const cut = run([roleChunk(), chunk({ content: call }), finishChunk('length')], { textCallTools: tools });
    expect(ofType(cut, 'text-delta').map((event) => event.delta)).toEqual([call]);
    expect(ofType(cut, 'tool-call')).toEqual([]);

    // A stream that breaks off: what was held comes out as text before the error.
    const mapper = createChatStreamMapper({ generateId: () => 'call_x', textCallTools: tools });
    expect(mapper.pushText('{"name": "get_we')).toBeUndefined();
    const ended = mapper.end();
    expect(ended[0]).toEqual({ type: 'text-delta', delta: '{"name": "get_we' });
    expect(ended[1]?.type).toBe('error');
  });

  it('handles calls without index or id, and arguments sent as an object', () => {
    const events = run([
      roleChunk(),
      chunk({ tool_calls: [{ function: { name: 'f', arguments: { a: 1 } } } as never] }),
      finishChunk('tool_calls'),
    ]);
    expect(ofType(events, 'tool-call').map((event) => event.toolCall)).toEqual([{ id: 'call_gen1', name: 'f', arguments: { a: 1 } }]);
  });

  it('reports length during a call and marks the cut-off call invalid', () => {
    const events = run(callsStream([{ id: 'call_1', name: 'write', fragments: ['{"text":"Once upon'] }], 'length'));
    const [call] = ofType(events, 'tool-call');
    expect(call?.toolCall.invalid?.rawArguments).toBe('{"text":"Once upon');
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'length' });
  });

  it('surfaces malformed arguments as an invalid call', () => {
    const events = run(callsStream([{ id: 'call_1', name: 'f', fragments: ['{"a":', '}'] }]));
    expect(ofType(events, 'tool-call')[0]?.toolCall.invalid).toBeDefined();
  });

  it('ends with an error event when the stream stops without a finish reason', () => {
    const events = run([roleChunk(), callStart(0, 'call_1', 'f'), callArgs(0, '{"a":1}')]);
    expect(ofType(events, 'tool-call')).toEqual([]);
    const last = events.at(-1);
    expect(last?.type).toBe('error');
    expect(last?.type === 'error' && StreamError.isInstance(last.error)).toBe(true);
  });

  it('keeps only the first call when parallelToolCalls is false', () => {
    const events = run(
      callsStream([
        { id: 'call_a', name: 'f', fragments: ['{}'] },
        { id: 'call_b', name: 'g', fragments: ['{}'] },
      ]),
      { parallelToolCalls: false },
    );
    expect(events.filter((event) => 'id' in event && event.id === 'call_b')).toEqual([]);
    expect(ofType(events, 'tool-call').map((event) => event.toolCall.id)).toEqual(['call_a']);
    expect(ofType(events, 'warning')).toHaveLength(1);
  });

  it('streams reasoning of compatible servers and keeps a refusal', () => {
    const events = run([
      roleChunk(),
      chunk({ reasoning_content: 'thinking' } as never),
      chunk({ refusal: "I can't" }),
      chunk({ refusal: ' help.' }),
      finishChunk('stop'),
    ]);
    expect(events[0]).toEqual({ type: 'reasoning-delta', delta: 'thinking' });
    expect(events.at(-1)).toMatchObject({ providerMetadata: { openai: { refusal: "I can't help." } } });
  });
});
