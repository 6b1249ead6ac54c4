import type { Message, ToolErrorType, ToolMessage, ToolResult } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import { withTextToolCalling } from '@toolwire/extract';
import { describe, expect, it } from 'vitest';
import { createHiddenToolTurns, hiddenTurnText } from './hidden-tool-turns.ts';
import type { HiddenToolTurn } from './hidden-tool-turns.ts';

const serverCall = { id: 'srv_1', name: 'get_current_time', arguments: { timezone: 'UTC' } };
const turn: HiddenToolTurn = {
  clientCallIds: ['call_client'],
  toolCalls: [serverCall, { id: 'call_client', name: 'lookup', arguments: { q: 'x' } }],
  results: [{ role: 'tool', toolCallId: 'srv_1', toolName: 'get_current_time', content: '12:00' }],
};

/** The conversation as the client sends it back: only its own call, and its answer. */
const fromClient = (callId = 'call_client'): Message[] => [
  { role: 'user', content: 'What time is it, and look up x?' },
  { role: 'assistant', content: '', toolCalls: [{ id: callId, name: 'lookup', arguments: { q: 'x' } }] },
  { role: 'tool', toolCallId: callId, content: 'x is 42' },
];

/** A failed result as `executeToolCall` makes it. */
const toolFailure = (call: { id: string; name: string }, type: ToolErrorType, message: string): ToolResult => ({ toolCallId: call.id, name: call.name, success: false, message, error: { type, message } });

describe('createHiddenToolTurns', () => {
  it("puts a turn's server calls and their results back into the conversation the client returns", () => {
    const turns = createHiddenToolTurns();
    turns.remember('key-1', turn);
    const restored = turns.restore('key-1', fromClient());
    expect(restored).toEqual([
      { role: 'user', content: 'What time is it, and look up x?' },
      { role: 'assistant', content: '', toolCalls: turn.toolCalls },
      { role: 'tool', toolCallId: 'srv_1', toolName: 'get_current_time', content: '12:00' },
      { role: 'tool', toolCallId: 'call_client', content: 'x is 42' },
    ]);
  });

  it('keeps the client’s own version of its calls', () => {
    const turns = createHiddenToolTurns();
    turns.remember('key-1', turn);
    const sent = fromClient();
    const assistant = sent[1];
    if (assistant?.role !== 'assistant' || assistant.toolCalls?.[0] === undefined) throw new Error('fixture');
    assistant.toolCalls[0] = { ...assistant.toolCalls[0], arguments: { q: 'edited' } };
    const restored = turns.restore('key-1', sent)[1];
    expect(restored).toMatchObject({ toolCalls: [{ id: 'srv_1' }, { id: 'call_client', arguments: { q: 'edited' } }] });
  });

  it('restores only for the API key that made the turn', () => {
    const turns = createHiddenToolTurns();
    turns.remember('key-1', turn);
    const sent = fromClient();
    expect(turns.restore('key-2', sent)).toBe(sent);
  });

  it('leaves a conversation whose calls differ from the remembered turn as it is', () => {
    const turns = createHiddenToolTurns();
    turns.remember('key-1', { ...turn, clientCallIds: ['call_client', 'call_other'] });
    const sent = fromClient();
    expect(turns.restore('key-1', sent)).toBe(sent);
  });

  it('forgets a turn after its time to live, counted from its last use', () => {
    let now = 0;
    const turns = createHiddenToolTurns({ ttlMs: 1000, now: () => now });
    turns.remember('key-1', turn);
    now = 900;
    expect(turns.restore('key-1', fromClient())).toHaveLength(4);
    now = 1800;
    expect(turns.restore('key-1', fromClient())).toHaveLength(4);
    now = 2801;
    expect(turns.restore('key-1', fromClient())).toHaveLength(3);
    expect(turns.size).toBe(0);
  });

  it('holds at most maxEntries turns, dropping the least recently used', () => {
    const turns = createHiddenToolTurns({ maxEntries: 2 });
    const numbered = (n: number): HiddenToolTurn => ({ ...turn, clientCallIds: [`call_${n}`], toolCalls: [serverCall, { id: `call_${n}`, name: 'lookup', arguments: { q: 'x' } }] });
    turns.remember('key-1', numbered(1));
    turns.remember('key-1', numbered(2));
    turns.restore('key-1', fromClient('call_1'));
    turns.remember('key-1', numbered(3));
    expect(turns.size).toBe(2);
    expect(turns.restore('key-1', fromClient('call_1'))).toHaveLength(4);
    expect(turns.restore('key-1', fromClient('call_2'))).toHaveLength(3);
  });

  it('keeps turns under a cap on their stored text, dropping the least recently used', () => {
    const sized = (n: number, length: number): HiddenToolTurn => ({
      clientCallIds: [`call_${n}`],
      toolCalls: [serverCall, { id: `call_${n}`, name: 'lookup', arguments: {} }],
      results: [{ role: 'tool', toolCallId: 'srv_1', content: 'x'.repeat(length) }],
    });
    const sizeOf = (t: HiddenToolTurn): number => hiddenTurnText(t)?.length ?? 0;
    const cap = 1000;
    // Room for two turns of this size, not three.
    const third = Math.floor(cap / 3) + 1 - sizeOf(sized(1, 0));
    const turns = createHiddenToolTurns({ maxTextLength: cap });
    turns.remember('key-1', sized(1, third));
    turns.remember('key-1', sized(2, third));
    expect(turns.textLength).toBe(sizeOf(sized(1, third)) + sizeOf(sized(2, third)));
    turns.remember('key-1', sized(3, third));
    expect(turns.size).toBe(2);
    expect(turns.textLength).toBeLessThanOrEqual(cap);
    expect(turns.restore('key-1', fromClient('call_1'))).toHaveLength(3);
    // One larger than the whole cap is not kept, and evicts nothing; one that fills it exactly is kept alone.
    turns.remember('key-1', sized(4, cap));
    expect(turns.size).toBe(2);
    const fill = cap - sizeOf(sized(5, 0));
    turns.remember('key-1', sized(5, fill));
    expect(turns.textLength).toBe(cap);
    expect(turns.size).toBe(1);
    expect(turns.restore('key-1', fromClient('call_5'))).toHaveLength(4);
  });

  it("keeps what the model reads of a result, not the result's value (an image's data, the uncut text)", () => {
    const image = 'iVBORw0KGgo'.repeat(100_000);
    const withValue: HiddenToolTurn = {
      ...turn,
      results: [
        {
          role: 'tool',
          toolCallId: 'srv_1',
          toolName: 'get_current_time',
          content: '[image: image/png, 800.0 KiB]',
          result: { toolCallId: 'srv_1', name: 'get_current_time', success: true, message: '[image: image/png, 800.0 KiB]', value: { content: [{ type: 'image', data: image, mimeType: 'image/png' }] } },
        },
      ],
    };
    const turns = createHiddenToolTurns();
    turns.remember('key-1', withValue);
    // What is counted is what is kept: the stored text, without the value.
    const text = hiddenTurnText(withValue) ?? '';
    expect(text).not.toContain('iVBORw0KGgo');
    expect(turns.textLength).toBe(text.length);
    expect(turns.textLength).toBeLessThan(500);
    expect(turns.restore('key-1', fromClient())[2]).toEqual({ role: 'tool', toolCallId: 'srv_1', toolName: 'get_current_time', content: '[image: image/png, 800.0 KiB]' });
  });

  it('counts the server calls’ arguments, and keeps the client’s calls by id only (the client sends them back)', () => {
    const longArguments: HiddenToolTurn = { ...turn, toolCalls: [{ ...serverCall, arguments: { timezone: 'x'.repeat(2000) } }, turn.toolCalls[1]!] };
    const small = createHiddenToolTurns({ maxTextLength: 1000 });
    small.remember('key-1', longArguments);
    expect(small.size).toBe(0);
    const turns = createHiddenToolTurns();
    turns.remember('key-1', longArguments);
    expect(turns.textLength).toBeGreaterThan(2000);
    // Unreadable argument text is kept (and counted) as the model wrote it.
    const unreadable: HiddenToolTurn = { ...turn, toolCalls: [{ ...serverCall, arguments: {}, invalid: { rawArguments: `{"timezone": "${'y'.repeat(2000)}`, message: 'not JSON' } }, turn.toolCalls[1]!] };
    small.remember('key-1', unreadable);
    expect(small.size).toBe(0);

    const bigClientCall: HiddenToolTurn = { ...turn, toolCalls: [serverCall, { id: 'call_client', name: 'lookup', arguments: { q: 'z'.repeat(10_000) } }] };
    small.remember('key-1', bigClientCall);
    expect(small.size).toBe(1);
    expect(small.textLength).toBeLessThan(1000);
    const restored = small.restore('key-1', fromClient())[1];
    expect(restored).toEqual({ role: 'assistant', content: '', toolCalls: [serverCall, { id: 'call_client', name: 'lookup', arguments: { q: 'x' } }] });
  });

  it('restores a failed result as a failure, which text tools render as before', async () => {
    const failure = toolFailure(serverCall, 'execution_error', 'unknown city: Atlantis; try "Paris"');
    const failed: ToolMessage = { role: 'tool', toolCallId: 'srv_1', toolName: 'get_current_time', content: failure.message, result: { ...failure, value: { huge: 'v'.repeat(10_000) } } };
    const timedOut = toolFailure({ id: 'srv_2', name: 'slow' }, 'timeout', 'The tool took longer than 30 s.');
    // A message that is not the error's text keeps the error's text.
    const differing: ToolMessage = { role: 'tool', toolCallId: 'srv_2', toolName: 'slow', content: 'see the error', result: timedOut };
    const original: HiddenToolTurn = { ...turn, toolCalls: [serverCall, { id: 'srv_2', name: 'slow', arguments: {} }, turn.toolCalls[1]!], results: [failed, differing] };
    const turns = createHiddenToolTurns();
    turns.remember('key-1', original);
    expect(turns.textLength).toBeLessThan(1000);
    const restored = turns.restore('key-1', fromClient());
    expect(restored[2]).toMatchObject({ content: failure.message, result: { success: false, error: { type: 'execution_error', message: failure.message } } });
    expect(restored[3]).toMatchObject({ content: 'see the error', result: { success: false, error: { type: 'timeout', message: 'The tool took longer than 30 s.' } } });
    // What a text-only model reads (results become text turns): the same as from the whole turn.
    const asText = async (messages: Message[]): Promise<Message[] | undefined> => {
      const inner = createScriptedModel([{ text: 'ok' }]);
      await withTextToolCalling(inner).generate({ messages });
      return inner.requests[0]?.messages;
    };
    const whole: Message[] = [fromClient()[0]!, { role: 'assistant', content: '', toolCalls: [...original.toolCalls] }, failed, differing, fromClient()[2]!];
    const read = await asText(restored);
    expect(read).toEqual(await asText(whole));
    expect(JSON.stringify(read)).toContain('Error from slow (call srv_2, timeout):\\nThe tool took longer than 30 s.');
  });
});
