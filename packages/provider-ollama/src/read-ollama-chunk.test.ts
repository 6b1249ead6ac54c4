import { describe, expect, it } from 'vitest';
import { readOllamaChunk } from './read-ollama-chunk.ts';

describe('readOllamaChunk', () => {
  it('returns a line Ollama writes as it is', () => {
    const line = { model: 'm', message: { role: 'assistant', content: 'hi', tool_calls: [{ function: { name: 'f', arguments: {} } }] }, done: true, done_reason: 'stop', prompt_eval_count: 3, eval_count: 1 };
    expect(readOllamaChunk(line)).toBe(line);
  });

  it('leaves out each field of the wrong type and keeps the rest', () => {
    expect(readOllamaChunk({ model: 'm', message: { role: 'assistant', content: 42, thinking: 'why', tool_calls: { function: { name: 'f' } } }, done: 'yes', done_reason: { x: 1 }, eval_count: 'lots', prompt_eval_count: -5 })).toEqual({
      model: 'm',
      message: { role: 'assistant', thinking: 'why' },
    });
    expect(readOllamaChunk({ message: 'hi', done: true })).toEqual({ done: true });
  });

  it('reads a value that is not an object as an empty line', () => {
    for (const value of [null, 42, 'text', [1, 2]]) expect(readOllamaChunk(value)).toEqual({});
  });
});
