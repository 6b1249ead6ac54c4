import type { ChatStreamEvent } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { createChunkMapper } from './chunk-mapper.ts';
import { sseFrame } from './sse-writer.ts';
import type { ChatCompletionChunk } from './openai-wire-types.ts';

const identity = { id: 'chatcmpl-1', created: 1_700_000_000, model: 'openai/gpt-4o' };

function run(events: ChatStreamEvent[], includeUsage = false): ChatCompletionChunk[] {
  const mapper = createChunkMapper({ identity, includeUsage });
  return events.flatMap((e) => mapper.push(e));
}

describe('createChunkMapper', () => {
  it('sends the role first, then text deltas, then a finish chunk with an empty delta', () => {
    const chunks = run([
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo' },
      { type: 'finish', finishReason: 'stop' },
    ]);
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([{ role: 'assistant', content: '', refusal: null }, { content: 'Hel' }, { content: 'lo' }, {}]);
    expect(chunks.map((c) => c.choices[0]?.finish_reason)).toEqual([null, null, null, 'stop']);
  });

  it('shares id, created and model across every chunk', () => {
    const chunks = run([{ type: 'text-delta', delta: 'x' }, { type: 'finish', finishReason: 'stop' }], true);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'openai/gpt-4o' });
    }
  });

  it('opens each call with index, id, type, name and empty arguments, then sends its arguments as one JSON string', () => {
    const chunks = run([
      { type: 'tool-call-start', id: 'call_a', name: 'get_weather' },
      { type: 'tool-call', toolCall: { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } } },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    const deltas = chunks.map((c) => c.choices[0]?.delta);
    // The role rides on the first header with content null, as OpenAI sends a tool-call turn.
    expect(deltas[0]).toEqual({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }], refusal: null });
    expect(deltas[1]).toEqual({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('sends the header at the start and each argument delta as it comes, with nothing more at the end', () => {
    const mapper = createChunkMapper({ identity, includeUsage: false });
    mapper.push({ type: 'text-delta', delta: 'x' });
    const header = mapper.push({ type: 'tool-call-start', id: 'call_a', name: 'get_weather' });
    expect(header.map((c) => c.choices[0]?.delta)).toEqual([{ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }]);
    expect(mapper.push({ type: 'tool-call-delta', id: 'call_a', argumentsDelta: '{"city": "Pa' }).map((c) => c.choices[0]?.delta)).toEqual([
      { tool_calls: [{ index: 0, function: { arguments: '{"city": "Pa' } }] },
    ]);
    mapper.push({ type: 'tool-call-delta', id: 'call_a', argumentsDelta: 'ris"}' });
    expect(mapper.push({ type: 'tool-call', toolCall: { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } } })).toEqual([]);
  });

  it('holds the header and deltas of a call that starts while another is open, and sends them when that one ends', () => {
    const chunks = run([
      { type: 'tool-call-start', id: 'a', name: 'one' },
      { type: 'tool-call-delta', id: 'a', argumentsDelta: '{"x":' },
      { type: 'tool-call-start', id: 'b', name: 'two' },
      { type: 'tool-call-delta', id: 'b', argumentsDelta: '{"y":' },
      { type: 'tool-call-delta', id: 'a', argumentsDelta: '1}' },
      { type: 'tool-call-delta', id: 'b', argumentsDelta: '2}' },
      { type: 'tool-call', toolCall: { id: 'a', name: 'one', arguments: { x: 1 } } },
      { type: 'tool-call', toolCall: { id: 'b', name: 'two', arguments: { y: 2 } } },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: 'a', type: 'function', function: { name: 'one', arguments: '' } },
      { index: 0, function: { arguments: '{"x":' } },
      { index: 0, function: { arguments: '1}' } },
      { index: 1, id: 'b', type: 'function', function: { name: 'two', arguments: '' } },
      { index: 1, function: { arguments: '{"y":2}' } },
    ]);
  });

  it('never interleaves calls: a call that starts while another is open waits for it to finish', () => {
    const chunks = run([
      { type: 'tool-call-start', id: 'a', name: 'one' },
      { type: 'tool-call-start', id: 'b', name: 'two' },
      { type: 'tool-call', toolCall: { id: 'b', name: 'two', arguments: { y: 2 } } },
      { type: 'tool-call', toolCall: { id: 'a', name: 'one', arguments: { x: 1 } } },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: 'a', type: 'function', function: { name: 'one', arguments: '' } },
      { index: 0, function: { arguments: '{"x":1}' } },
      { index: 1, id: 'b', type: 'function', function: { name: 'two', arguments: '' } },
      { index: 1, function: { arguments: '{"y":2}' } },
    ]);
  });

  it('sends the name of each call exactly once', () => {
    const chunks = run([
      { type: 'tool-call', toolCall: { id: 'a', name: 'one', arguments: {} } },
      { type: 'tool-call', toolCall: { id: 'b', name: 'two', arguments: {} } },
      { type: 'finish', finishReason: 'stop' },
    ]);
    const names = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).flatMap((t) => (t.function.name === undefined ? [] : [t.function.name]));
    expect(names).toEqual(['one', 'two']);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('reports length when the answer was cut, even with calls', () => {
    const chunks = run([
      { type: 'tool-call', toolCall: { id: 'a', name: 'one', arguments: {} } },
      { type: 'finish', finishReason: 'length' },
    ]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');
  });

  it('with include_usage, sets usage null on every chunk and sends a usage chunk with no choices last', () => {
    const chunks = run(
      [
        { type: 'text-delta', delta: 'x' },
        { type: 'finish', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } },
      ],
      true,
    );
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('sends no usage chunk when the upstream reported no usage, rather than zeros', () => {
    const chunks = run([{ type: 'text-delta', delta: 'x' }, { type: 'finish', finishReason: 'stop' }], true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.every((c) => c.usage === null)).toBe(true);
  });

  it('keeps content "" on the role chunk of a text turn, and content null only when a call comes first', () => {
    const text = run([{ type: 'text-delta', delta: 'Hi' }, { type: 'tool-call', toolCall: { id: 'c', name: 'f', arguments: {} } }, { type: 'finish', finishReason: 'tool-calls' }]);
    expect(text[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    expect(text.filter((c) => c.choices[0]?.delta.role !== undefined)).toHaveLength(1);
    const empty = run([{ type: 'finish', finishReason: 'stop' }]);
    expect(empty.map((c) => c.choices[0]?.delta)).toEqual([{ role: 'assistant', content: '', refusal: null }, {}]);
    const warningFirst = run([{ type: 'warning', warning: { type: 'other', message: 'w' } }, { type: 'tool-call-start', id: 'c', name: 'f' }]);
    expect(warningFirst[0]?.choices[0]?.delta).toMatchObject({ role: 'assistant', content: null });
  });

  it('leaves usage out without include_usage', () => {
    const chunks = run([{ type: 'finish', finishReason: 'stop' }]);
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
  });

  it('produces nothing after the finish chunk', () => {
    const mapper = createChunkMapper({ identity, includeUsage: false });
    mapper.push({ type: 'finish', finishReason: 'stop' });
    expect(mapper.finished).toBe(true);
    expect(mapper.push({ type: 'text-delta', delta: 'late' })).toEqual([]);
  });

  describe('textFrame', () => {
    const deltas = ['tok ', 'Hel"lo"', 'back\\slash', 'line\nbreak\ttab', '\u0000\u001f control', 'héllo ✓ 👋', '\ud800 lone surrogate', '"delta":{"content":""}', '</script>'];
    const identities = [identity, { id: 'chatcmpl-"x"', created: 0, model: 'openai/"delta":{"content":""}' }];

    it('is the same bytes as the SSE frame of the text chunk push gives, with and without usage', () => {
      for (const id of identities) {
        for (const includeUsage of [false, true]) {
          const mapper = createChunkMapper({ identity: id, includeUsage });
          const twin = createChunkMapper({ identity: id, includeUsage });
          mapper.push({ type: 'text-delta', delta: 'first' });
          twin.push({ type: 'text-delta', delta: 'first' });
          for (const delta of deltas) {
            const event: ChatStreamEvent = { type: 'text-delta', delta };
            const pushed = twin.push(event);
            expect(pushed).toHaveLength(1);
            expect(mapper.textFrame(event)).toBe(sseFrame(pushed[0]));
          }
        }
      }
    });

    it('leaves the opening chunk, empty deltas, other events and anything after the finish to push', () => {
      const mapper = createChunkMapper({ identity, includeUsage: false });
      expect(mapper.textFrame({ type: 'text-delta', delta: 'x' })).toBeUndefined();
      mapper.push({ type: 'text-delta', delta: 'x' });
      expect(mapper.textFrame({ type: 'text-delta', delta: '' })).toBeUndefined();
      expect(mapper.textFrame({ type: 'reasoning-delta', delta: 'r' })).toBeUndefined();
      expect(mapper.textFrame({ type: 'text-delta', delta: 'y' })).toBeDefined();
      mapper.push({ type: 'finish', finishReason: 'stop' });
      expect(mapper.textFrame({ type: 'text-delta', delta: 'late' })).toBeUndefined();
    });
  });
});
