import { describe, expect, it } from 'vitest';
import { StreamError } from '../errors.ts';
import type { ChatStreamEvent } from '../types/chat-stream-event.ts';
import { guardStream } from './guard-stream.ts';

async function collect(source: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of guardStream(source, { provider: 'acme' })) events.push(event);
  return events;
}

async function* from(events: ChatStreamEvent[], failAfter?: Error): AsyncGenerator<ChatStreamEvent> {
  for (const event of events) yield event;
  if (failAfter) throw failAfter;
}

describe('guardStream', () => {
  it('passes a well-formed stream through unchanged', async () => {
    const events: ChatStreamEvent[] = [
      { type: 'text-delta', delta: 'hi' },
      { type: 'tool-call-start', id: 'c1', name: 'f' },
      { type: 'tool-call-delta', id: 'c1', argumentsDelta: '{}' },
      { type: 'tool-call', toolCall: { id: 'c1', name: 'f', arguments: {} } },
      { type: 'finish', finishReason: 'tool-calls' },
    ];
    expect(await collect(from(events))).toEqual(events);
  });

  it('throws a failure before the first event, and yields one after it', async () => {
    await expect(collect(from([], new Error('refused')))).rejects.toThrow('refused');
    const events = await collect(from([{ type: 'text-delta', delta: 'a' }], new Error('reset')));
    expect(events.at(-1)).toMatchObject({ type: 'error' });
  });

  it('ends a stream without finish with a StreamError', async () => {
    const events = await collect(from([{ type: 'text-delta', delta: 'a' }]));
    const last = events.at(-1);
    expect(last?.type === 'error' && StreamError.isInstance(last.error)).toBe(true);
  });

  it('adds a missing tool-call-start and refuses deltas of unknown calls and double finishes', async () => {
    const added = await collect(from([{ type: 'tool-call', toolCall: { id: 'c', name: 'f', arguments: { a: 1 } } }, { type: 'finish', finishReason: 'tool-calls' }]));
    expect(added.map((event) => event.type)).toEqual(['tool-call-start', 'tool-call-delta', 'tool-call', 'finish']);
    const stray = await collect(from([{ type: 'tool-call-delta', id: 'x', argumentsDelta: '{' }]));
    expect(stray.at(-1)?.type).toBe('error');
    const twice = await collect(
      from([
        { type: 'tool-call', toolCall: { id: 'c', name: 'f', arguments: {} } },
        { type: 'tool-call', toolCall: { id: 'c', name: 'f', arguments: {} } },
      ]),
    );
    expect(twice.at(-1)?.type).toBe('error');
  });

  it('stops reading after the terminal event', async () => {
    let readAfter = false;
    async function* source(): AsyncGenerator<ChatStreamEvent> {
      yield { type: 'finish', finishReason: 'stop' };
      readAfter = true;
      yield { type: 'text-delta', delta: 'late' };
    }
    expect(await collect(source())).toEqual([{ type: 'finish', finishReason: 'stop' }]);
    expect(readAfter).toBe(false);
  });

  it('lets the source clean up: at the end, when the consumer leaves early, and before a failure to start is thrown', async () => {
    const cleanups: string[] = [];
    async function* source(name: string, failFirst = false): AsyncGenerator<ChatStreamEvent> {
      try {
        if (failFirst) throw new Error('refused');
        yield { type: 'text-delta', delta: 'a' };
        yield { type: 'text-delta', delta: 'b' };
        yield { type: 'finish', finishReason: 'stop' };
      } finally {
        cleanups.push(name);
      }
    }
    await collect(source('whole'));
    for await (const event of guardStream(source('left'), { provider: 'acme' })) if (event.type === 'text-delta') break;
    const failing = guardStream(source('refused', true), { provider: 'acme' });
    await expect(failing.next()).rejects.toThrow('refused');
    expect(cleanups).toEqual(['whole', 'left', 'refused']);
    // Ended: nothing more, whatever the caller does.
    await expect(failing.next()).resolves.toEqual({ value: undefined, done: true });
    await expect(failing.return(undefined)).resolves.toEqual({ value: undefined, done: true });
  });

  it('hands out a call added by the guard in order, then the rest of the stream', async () => {
    const call = { id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } };
    const events = await collect(from([{ type: 'text-delta', delta: 'x' }, { type: 'tool-call', toolCall: call }, { type: 'finish', finishReason: 'tool-calls' }]));
    expect(events).toEqual([
      { type: 'text-delta', delta: 'x' },
      { type: 'tool-call-start', id: 'c1', name: 'get_weather' },
      { type: 'tool-call-delta', id: 'c1', argumentsDelta: '{"city":"Paris"}' },
      { type: 'tool-call', toolCall: call },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
  });

  it('asks its source for an iterator on the first next(), as a generator would, and not when left unread', async () => {
    let asked = 0;
    const source: AsyncIterable<ChatStreamEvent> = {
      [Symbol.asyncIterator]() {
        asked++;
        return from([{ type: 'finish', finishReason: 'stop' }]);
      },
    };
    const unread = guardStream(source, { provider: 'acme' });
    await unread.return(undefined);
    expect(asked).toBe(0);
    const guarded = guardStream(source, { provider: 'acme' });
    expect(asked).toBe(0);
    await guarded.next();
    expect(asked).toBe(1);
  });

  it('passes a non-Error failure before the first event on as it is, and a value thrown into it too', async () => {
    const refusing: AsyncIterable<ChatStreamEvent> = {
      [Symbol.asyncIterator]: () => ({
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what a careless source may do
        next: () => Promise.reject('refused'),
      }),
    };
    await expect(guardStream(refusing, { provider: 'acme' }).next()).rejects.toBe('refused');
    const reason = { code: 'stop' };
    await expect(guardStream(from([]), { provider: 'acme' }).throw(reason)).rejects.toBe(reason);
  });
});
