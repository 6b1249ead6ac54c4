import { describe, expect, it } from 'vitest';
import { parseStoredTurn } from './stored-turn.ts';

const turn = {
  clientCallIds: ['call_c'],
  toolCalls: [
    { id: 'srv_1', name: 'get_current_time', arguments: {} },
    { id: 'call_c', name: 'client_fn', arguments: { x: 1 } },
  ],
  results: [{ role: 'tool', toolCallId: 'srv_1', toolName: 'get_current_time', content: '"12:00"' }],
};

describe('parseStoredTurn', () => {
  it('reads back a turn the gateway wrote', () => {
    expect(parseStoredTurn(JSON.stringify(turn))).toEqual(turn);
  });

  it('reads back a failed result with its error type (what text tools render)', () => {
    const failed = { ...turn, results: [{ role: 'tool', toolCallId: 'srv_1', toolName: 'get_current_time', content: 'boom', error: { type: 'execution_error' } }] };
    expect(parseStoredTurn(JSON.stringify(failed))).toEqual(failed);
  });

  it.each([
    ['an error that is not an object', JSON.stringify({ ...turn, results: [{ ...turn.results[0], error: 'x' }] })],
    ['an error without its type', JSON.stringify({ ...turn, results: [{ ...turn.results[0], error: { message: 'x' } }] })],
    ['not JSON', 'hello'],
    ['a number', '42'],
    ['null', 'null'],
    ['an array', '[1,2]'],
    ['no client calls', JSON.stringify({ ...turn, clientCallIds: [] })],
    ['calls that are not a list', JSON.stringify({ ...turn, toolCalls: 'x' })],
    ['a call without arguments', JSON.stringify({ ...turn, toolCalls: [{ id: 'a', name: 'b' }] })],
    ['a result that is not a tool message', JSON.stringify({ ...turn, results: [{ role: 'user', content: 'hi' }] })],
    ['a result whose content is not text', JSON.stringify({ ...turn, results: [{ role: 'tool', toolCallId: 'srv_1', content: { x: 1 } }] })],
  ])('refuses %s', (_, text) => {
    expect(parseStoredTurn(text)).toBeUndefined();
  });
});
