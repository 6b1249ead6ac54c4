import type { ChatStreamEvent } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { createClientView } from './client-view.ts';

function feed(events: ChatStreamEvent[], clientTools = ['lookup']) {
  const view = createClientView(new Set(clientTools));
  const out: ChatStreamEvent[] = [];
  const perEvent = events.map((event) => {
    const before = out.length;
    view.map(event, out);
    return out.slice(before);
  });
  return { view, out, perEvent };
}

const start = (id: string, name = 'lookup'): ChatStreamEvent => ({ type: 'tool-call-start', id, name });
const delta = (id: string, argumentsDelta: string): ChatStreamEvent => ({ type: 'tool-call-delta', id, argumentsDelta });

describe('createClientView', () => {
  it("streams a client call's header and JSON argument text as it arrives, and closes it at its tool-call", () => {
    const { perEvent } = feed([
      start('call_1'),
      delta('call_1', ' {'),
      delta('call_1', '"q": "Pa'),
      delta('call_1', 'ris"}'),
      { type: 'tool-call', toolCall: { id: 'call_1', name: 'lookup', arguments: { q: 'Paris' } } },
    ]);
    expect(perEvent[0]).toEqual([start('call_1')]);
    // One non-space character is not enough to tell JSON from `{'q': …}`.
    expect(perEvent[1]).toEqual([]);
    expect(perEvent[2]).toEqual([delta('call_1', ' {"q": "Pa')]);
    expect(perEvent[3]).toEqual([delta('call_1', 'ris"}')]);
    expect(perEvent[4]).toEqual([{ type: 'tool-call', toolCall: { id: 'call_1', name: 'lookup', arguments: { q: 'Paris' } } }]);
  });

  it('holds a call whose text is not JSON (a text-tools provider) and sends it whole', () => {
    const { out } = feed([
      start('c1'),
      delta('c1', 'q="Paris"'),
      { type: 'tool-call', toolCall: { id: 'c1', name: 'lookup', arguments: { q: 'Paris' } } },
    ]);
    expect(out.map((e) => e.type)).toEqual(['tool-call-start', 'tool-call']);
    expect(out[1]).toMatchObject({ type: 'tool-call', toolCall: { name: 'lookup', arguments: { q: 'Paris' } } });
  });

  it("holds Python-style dicts too, since they are not JSON", () => {
    const { out } = feed([start('c1'), delta('c1', "{'q': 1}"), { type: 'tool-call', toolCall: { id: 'c1', name: 'lookup', arguments: { q: 1 } } }]);
    expect(out.map((e) => e.type)).toEqual(['tool-call-start', 'tool-call']);
  });

  it('never shows server calls, unknown tools or tool results', () => {
    const { out } = feed([
      start('s1', 'calculate'),
      delta('s1', '{"expression": "1+1"}'),
      { type: 'tool-call', toolCall: { id: 's1', name: 'calculate', arguments: { expression: '1+1' } } },
      { type: 'tool-result', result: { toolCallId: 's1', name: 'calculate', success: true, message: '2' } },
      start('u1', 'made_up'),
      { type: 'tool-call', toolCall: { id: 'u1', name: 'made_up', arguments: {} } },
    ]);
    expect(out).toEqual([]);
  });

  it('drops a client call with unreadable arguments that did not stream (generate), for the loop to answer', () => {
    const { view, out } = feed([{ type: 'tool-call', toolCall: { id: 'c1', name: 'lookup', arguments: {}, invalid: { rawArguments: 'q==', message: 'x' } } }]);
    expect(out).toEqual([]);
    expect(view.endsAfterStep).toBe(false);
  });

  it('sends the held text of a streamed call that turns out unreadable as the model wrote it', () => {
    const { view, out } = feed([start('call_1'), delta('call_1', 'q=='), { type: 'tool-call', toolCall: { id: 'call_1', name: 'lookup', arguments: {}, invalid: { rawArguments: 'q==', message: 'x' } } }]);
    expect(out).toEqual([start('call_1'), delta('call_1', 'q=='), expect.objectContaining({ type: 'tool-call' })]);
    expect(view.endsAfterStep).toBe(true);
  });

  it('keeps a streamed call that turns out unreadable the client\'s, and ends the turn at the step with its finish reason', () => {
    const { view, out } = feed([
      start('call_1'),
      delta('call_1', '{"q": "Par'),
      { type: 'tool-call', toolCall: { id: 'call_1', name: 'lookup', arguments: {}, invalid: { rawArguments: '{"q": "Par', message: 'cut off' } } },
      { type: 'finish', finishReason: 'length', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
    ]);
    expect(out.map((e) => e.type)).toEqual(['tool-call-start', 'tool-call-delta', 'tool-call']);
    expect(view.endsAfterStep).toBe(true);
    expect(view.finishAtStep()).toEqual({ type: 'finish', finishReason: 'length', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } });
  });

  it('gives calls without a call_ id a new one, the same for every event of the call', () => {
    const { out } = feed([start('weird'), delta('weird', '{}'), { type: 'tool-call', toolCall: { id: 'weird', name: 'lookup', arguments: {} } }]);
    const ids = out.map((e) => (e.type === 'tool-call' ? e.toolCall.id : e.type === 'tool-call-start' || e.type === 'tool-call-delta' ? e.id : ''));
    expect(ids[0]).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(new Set(ids).size).toBe(1);
  });

  it('sets the text of a later step apart from the previous one', () => {
    const { out } = feed([
      { type: 'text-delta', delta: 'Let me look.' },
      { type: 'finish', finishReason: 'tool-calls' },
      { type: 'text-delta', delta: 'Found it.' },
    ]);
    expect(out).toEqual([
      { type: 'text-delta', delta: 'Let me look.' },
      { type: 'text-delta', delta: '\n\nFound it.' },
    ]);
  });
});
