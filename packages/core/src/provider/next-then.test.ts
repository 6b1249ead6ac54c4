import { describe, expect, it } from 'vitest';
import type { ChatStreamEvent } from '../types/chat-stream-event.ts';
import { guardStream } from './guard-stream.ts';
import { NEXT_THEN, handOn, nextThen } from './next-then.ts';

async function* from(events: ChatStreamEvent[], failAfter?: Error): AsyncGenerator<ChatStreamEvent> {
  for (const event of events) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    yield event;
  }
  if (failAfter) throw failAfter;
}

type Outcome = { events: ChatStreamEvent[]; failure?: string };

/** Reads to the end with `next()`. */
async function byNext(iterator: AsyncIterator<ChatStreamEvent>): Promise<Outcome> {
  const events: ChatStreamEvent[] = [];
  try {
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) events.push(next.value);
  } catch (error) {
    return { events, failure: String(error) };
  }
  return { events };
}

/** Reads to the end with `nextThen`, the callbacks doing what the reader of `next()` does. */
async function byNextThen(iterator: AsyncIterator<ChatStreamEvent>): Promise<Outcome> {
  const events: ChatStreamEvent[] = [];
  for (;;) {
    const step = await nextThen(
      iterator,
      (next): 'more' | 'done' => {
        if (next.done === true) return 'done';
        events.push(next.value);
        return 'more';
      },
      (error: unknown): string => String(error),
    );
    if (step === 'done') return { events };
    if (step !== 'more') return { events, failure: step };
  }
}

const text = (delta: string): ChatStreamEvent => ({ type: 'text-delta', delta });
const finish: ChatStreamEvent = { type: 'finish', finishReason: 'stop' };

describe('nextThen', () => {
  it('is next().then for an iterator without NEXT_THEN', async () => {
    const plain = from([text('a'), finish]);
    expect(NEXT_THEN in plain).toBe(false);
    expect(await byNextThen(plain)).toEqual({ events: [text('a'), finish] });
  });

  it('reads a guarded stream (and one guarded twice, chained through both) as next() does', async () => {
    const sources: [string, () => AsyncIterable<ChatStreamEvent>][] = [
      ['well-formed', () => from([text('a'), text('b'), finish])],
      ['failing before the first event', () => from([], new Error('refused'))],
      ['failing after an event', () => from([text('a')], new Error('reset'))],
      ['without a finish', () => from([text('a')])],
      ['breaking the contract', () => from([{ type: 'tool-call-delta', id: 'x', argumentsDelta: '{}' }, finish])],
      ['with a call that never started', () => from([{ type: 'tool-call', toolCall: { id: 'c1', name: 'f', arguments: { a: 1 } } }, finish])],
      ['with events after the finish', () => from([text('a'), finish, text('late')])],
    ];
    for (const [name, source] of sources) {
      for (const wrap of [(s: AsyncIterable<ChatStreamEvent>) => guardStream(s, { provider: 'acme' }), (s: AsyncIterable<ChatStreamEvent>) => guardStream(guardStream(s, { provider: 'inner' }), { provider: 'acme' })]) {
        const expected = await byNext(wrap(source()));
        const chained = wrap(source());
        expect(NEXT_THEN in chained, name).toBe(true);
        const actual = await byNextThen(chained);
        expect(actual, name).toEqual(expected);
      }
    }
  });

  it('settles both of two calls made at once (against the one-at-a-time contract) in order', async () => {
    const guarded = guardStream(from([text('a'), text('b'), finish]), { provider: 'acme' });
    const [first, second] = await Promise.all([nextThen(guarded, (r) => r, (e: unknown) => e), nextThen(guarded, (r) => r, (e: unknown) => e)]);
    expect(first).toEqual({ value: text('a'), done: false });
    expect(second).toEqual({ value: text('b'), done: false });
  });

  it('passes a throw of onResult on as a rejection, without calling onFailure', async () => {
    const guarded = guardStream(from([text('a'), finish]), { provider: 'acme' });
    let failures = 0;
    const read = nextThen(
      guarded,
      () => {
        throw new Error('consumer broke');
      },
      () => failures++,
    );
    await expect(read).rejects.toThrow('consumer broke');
    expect(failures).toBe(0);
  });
});

describe('handOn', () => {
  const record = () => {
    const seen: string[] = [];
    return { seen, callbacks: { onResult: (r: IteratorResult<string, undefined>) => seen.push(`result ${String(r.value)}`), onFailure: (e: unknown) => seen.push(`failure ${(e as Error).message}`) } };
  };
  const owner = { prefix: 'p:' };
  function step(this: typeof owner, input: string): IteratorResult<string, undefined> | Promise<IteratorResult<string, undefined>> {
    if (input === 'throw') throw new Error('thrown');
    if (input === 'reject') return Promise.reject(new Error('rejected'));
    if (input === 'later') return Promise.resolve({ value: `${this.prefix}later`, done: false });
    return { value: `${this.prefix}${input}`, done: false };
  }

  it('hands a result at once, a promised one when it settles, and a throw or rejection to onFailure, with the step run on its owner', async () => {
    const now = record();
    handOn(now.callbacks, owner, step, 'x');
    expect(now.seen).toEqual(['result p:x']);
    const thrown = record();
    handOn(thrown.callbacks, owner, step, 'throw');
    expect(thrown.seen).toEqual(['failure thrown']);
    const later = record();
    await handOn(later.callbacks, owner, step, 'later');
    const rejected = record();
    await handOn(rejected.callbacks, owner, step, 'reject');
    expect([later.seen, rejected.seen]).toEqual([['result p:later'], ['failure rejected']]);
  });
});
