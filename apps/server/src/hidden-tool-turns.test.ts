import type { Message } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { createHiddenToolTurns } from './hidden-tool-turns.ts';
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

  it('keeps the results under a size cap, dropping the least recently used turns', () => {
    const sized = (n: number, length: number): HiddenToolTurn => ({
      clientCallIds: [`call_${n}`],
      toolCalls: [serverCall, { id: `call_${n}`, name: 'lookup', arguments: {} }],
      results: [{ role: 'tool', toolCallId: 'srv_1', content: 'x'.repeat(length) }],
    });
    const turns = createHiddenToolTurns({ maxTextLength: 100 });
    turns.remember('key-1', sized(1, 60));
    turns.remember('key-1', sized(2, 30));
    turns.remember('key-1', sized(3, 30));
    expect(turns.size).toBe(2);
    expect(turns.restore('key-1', fromClient('call_1'))).toHaveLength(3);
    // One larger than the whole cap is not kept, and evicts nothing.
    turns.remember('key-1', sized(4, 101));
    expect(turns.size).toBe(2);
  });
});
