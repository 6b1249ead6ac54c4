import { describe, expect, it } from 'vitest';
import { createResponseStore } from './response-store.ts';
import type { StoredResponse } from './response-store.ts';
import { toOutputMessage } from './wire/responses-output-message.ts';
import type { WireResponse } from './wire/responses-wire-types.ts';

function stored(id: string, text = 'hi'): StoredResponse {
  const items = [{ type: 'message' as const, id: `msg_${id}`, status: 'completed' as const, role: 'assistant' as const, content: [{ type: 'output_text' as const, text, annotations: [], logprobs: [] }] }];
  const response = { id, object: 'response', output: items } as unknown as WireResponse;
  return { id, conversation: [{ role: 'user', content: 'q' }, toOutputMessage(items)], response };
}

describe('createResponseStore', () => {
  it('finds a stored conversation and its items for the same key only', () => {
    const store = createResponseStore();
    store.save('alice', stored('resp_1'));
    expect(store.historyOf('alice').conversation('resp_1')).toEqual([{ role: 'user', content: 'q' }, { role: 'assistant', content: 'hi' }]);
    expect(store.historyOf('alice').item('msg_resp_1')).toMatchObject({ type: 'message', id: 'msg_resp_1' });
    expect(store.historyOf('bob').conversation('resp_1')).toBeUndefined();
    expect(store.historyOf('bob').item('msg_resp_1')).toBeUndefined();
    expect(store.get('alice', 'resp_1')).toMatchObject({ id: 'resp_1', object: 'response' });
    expect(store.get('bob', 'resp_1')).toBeUndefined();
  });

  it('forgets entries after the TTL, and the least recently used past the caps', () => {
    let clock = 0;
    const store = createResponseStore({ ttlMs: 1000, maxEntries: 2, now: () => clock });
    store.save('k', stored('resp_1'));
    store.save('k', stored('resp_2'));
    store.historyOf('k').conversation('resp_1');
    store.save('k', stored('resp_3'));
    expect(store.historyOf('k').conversation('resp_2')).toBeUndefined();
    expect(store.historyOf('k').item('msg_resp_2')).toBeUndefined();
    expect(store.historyOf('k').conversation('resp_1')).toBeDefined();
    clock = 5000;
    expect(store.historyOf('k').conversation('resp_3')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('keeps nothing larger than its size cap', () => {
    const store = createResponseStore({ maxTextLength: 100 });
    store.save('k', stored('resp_1', 'x'.repeat(500)));
    expect(store.size).toBe(0);
  });
});

describe('toOutputMessage', () => {
  it('makes one assistant message of text and calls, custom input as the one argument', () => {
    expect(
      toOutputMessage([
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'On it.', annotations: [], logprobs: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{"a":1}', status: 'completed' },
        { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_2', name: 'apply_patch', input: 'patch' },
      ]),
    ).toEqual({
      role: 'assistant',
      content: 'On it.',
      toolCalls: [
        { id: 'call_1', name: 'f', arguments: { a: 1 } },
        { id: 'call_2', name: 'apply_patch', arguments: { input: 'patch' } },
      ],
    });
  });
});
