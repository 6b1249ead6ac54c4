import { describe, expect, it } from 'vitest';
import { argumentsObject, toOllamaMessages } from './ollama-chat-messages.ts';

describe('toOllamaMessages', () => {
  it('sends earlier reasoning back as thinking, and prefers an explicit toolName', () => {
    const wire = toOllamaMessages([
      { role: 'system', content: 'Be brief.' },
      { role: 'assistant', content: '', reasoning: 'Need data.', toolCalls: [{ id: 'c1', name: 'lookup', arguments: { id: 1 } }] },
      { role: 'tool', toolCallId: 'c1', toolName: 'lookup_v2', content: '{"ok":true}' },
      { role: 'tool', toolCallId: 'unknown', content: 'orphan' },
    ]);
    expect(wire[1]).toMatchObject({ role: 'assistant', thinking: 'Need data.' });
    expect(wire[2]).toMatchObject({ tool_name: 'lookup_v2', tool_call_id: 'c1' });
    expect(wire[3]).toEqual({ role: 'tool', content: 'orphan', tool_call_id: 'unknown' });
  });

  it('joins the text parts of a user message', () => {
    const wire = toOllamaMessages([{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }]);
    expect(wire).toEqual([{ role: 'user', content: 'a\nb' }]);
  });
});

describe('argumentsObject', () => {
  it('turns "" and JSON text into objects and anything else into {}', () => {
    expect(argumentsObject('')).toEqual({});
    expect(argumentsObject('{"a":1}')).toEqual({ a: 1 });
    expect(argumentsObject('[1]')).toEqual({});
    expect(argumentsObject('{oops')).toEqual({});
    expect(argumentsObject({ b: 2 })).toEqual({ b: 2 });
  });
});
