import type { ChatStreamEvent } from '@toolwire/core';
import { describe, expect, it, vi } from 'vitest';
import { nextThen } from '@toolwire/core/provider';
import { createChatEventStream } from './openai-chat-event-stream.ts';
import type { OpenedChatStream } from './openai-chat-event-stream.ts';
import { createChatStreamMapper } from './openai-chat-stream.ts';

const chunk = (delta: string, finish: string | null = null): string =>
  `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":${delta},"finish_reason":${finish === null ? 'null' : `"${finish}"`}}]}\n\n`;

/** A body that hands out `parts` one read at a time (an Error fails that read); `cancelled` tells whether it was let go. */
function body(parts: (string | Error)[]): { response: Response; cancelled: () => boolean } {
  let cancelled = false;
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[next++];
      if (part === undefined) controller.close();
      else if (part instanceof Error) controller.error(part);
      else controller.enqueue(new TextEncoder().encode(part));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(stream), cancelled: () => cancelled };
}

function opened(response: Response, before: ChatStreamEvent[] = []): OpenedChatStream {
  return { response, before, mapper: createChatStreamMapper({ generateId: () => 'call_x' }), restore: (event) => event };
}

async function collect(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const mapError = (error: unknown): Error => new Error(`mapped: ${(error as Error).message}`);

// vitest.shared.ts starts the test workers with --expose-gc.
const gc =
  globalThis.gc ??
  ((): never => {
    throw new Error('globalThis.gc is missing: run the tests with --expose-gc (vitest.shared.ts passes it)');
  });

/** Whether what `ref` points at is collected within five turns, a full collection after each. */
async function collectedSoon(ref: WeakRef<object> | undefined): Promise<boolean> {
  for (let i = 0; i < 5 && ref?.deref() !== undefined; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return ref !== undefined && ref.deref() === undefined;
}

describe('createChatEventStream', () => {
  it('makes the call on the first next(), then gives the warnings, the events of each read and the closing events', async () => {
    let calls = 0;
    const { response } = body([chunk('{"role":"assistant","content":""}'), chunk('{"content":"Hel"}') + chunk('{"content":"lo"}'), chunk('{}', 'stop'), 'data: [DONE]\n\n']);
    const stream = createChatEventStream({
      open: () => {
        calls++;
        return Promise.resolve(opened(response, [{ type: 'warning', warning: { type: 'other', message: 'w' } }]));
      },
      mapError,
    });
    expect(calls).toBe(0);
    const events = await collect(stream);
    expect(calls).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['warning', 'text-delta', 'text-delta', 'finish']);
    expect(events.filter((e) => e.type === 'text-delta').map((e) => (e.type === 'text-delta' ? e.delta : ''))).toEqual(['Hel', 'lo']);
  });

  it('rejects the first next() when the call fails, and is done after', async () => {
    const stream = createChatEventStream({ open: () => Promise.reject(new Error('401')), mapError });
    await expect(stream.next()).rejects.toThrow('401');
    await expect(stream.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it('gives the warnings, then one mapped error, for a streamed response without a body (a 204)', async () => {
    const warning: ChatStreamEvent = { type: 'warning', warning: { type: 'other', message: 'w' } };
    const stream = createChatEventStream({ open: () => Promise.resolve(opened(new Response(null, { status: 204 }), [warning])), mapError });
    const events = await collect(stream);
    expect(events.map((e) => e.type)).toEqual(['warning', 'error']);
    expect(events[1]?.type === 'error' && events[1].error.message).toMatch(/^mapped: .*no body/);
    await expect(stream.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it('turns a failure while reading into one error event after the events before it', async () => {
    const failing = body([chunk('{"content":"a"}'), new Error('socket hang up')]);
    const events = await collect(createChatEventStream({ open: () => Promise.resolve(opened(failing.response)), mapError }));
    expect(events.map((e) => e.type)).toEqual(['text-delta', 'error']);
    expect(events[1]?.type === 'error' && events[1].error.message).toBe('mapped: socket hang up');
  });

  it('ends a stream without a finish reason with the mapper error, and a quietly cut aborted one with the abort', async () => {
    const cut = body([chunk('{"content":"a"}')]);
    const events = await collect(createChatEventStream({ open: () => Promise.resolve(opened(cut.response)), mapError }));
    expect(events.map((e) => e.type)).toEqual(['text-delta', 'error']);

    const controller = new AbortController();
    controller.abort(new Error('client left'));
    const aborted = body([chunk('{"content":"a"}')]);
    const abortedEvents = await collect(createChatEventStream({ open: () => Promise.resolve(opened(aborted.response)), mapError, signal: controller.signal }));
    expect(abortedEvents.at(-1)?.type).toBe('error');
  });

  it('lets the body go when left early, and never calls when left before the first next()', async () => {
    const streaming = body([chunk('{"content":"a"}'), chunk('{"content":"b"}'), chunk('{}', 'stop')]);
    const stream = createChatEventStream({ open: () => Promise.resolve(opened(streaming.response)), mapError });
    for await (const event of stream) if (event.type === 'text-delta') break;
    expect(streaming.cancelled()).toBe(true);
    await expect(stream.next()).resolves.toEqual({ value: undefined, done: true });

    let calls = 0;
    const unused = createChatEventStream({
      open: () => {
        calls++;
        return Promise.resolve(opened(body([]).response));
      },
      mapError,
    });
    await unused.return(undefined);
    await expect(unused.next()).resolves.toEqual({ value: undefined, done: true });
    expect(calls).toBe(0);
  });
});

describe('createChatEventStream, plain text chunks read without parsing', () => {
  /** The events of `frames` as the mapper gives them when every payload is parsed. */
  function parsedEvents(frames: string[]): ChatStreamEvent[] {
    const mapper = createChatStreamMapper({ generateId: () => 'call_x' });
    const events: ChatStreamEvent[] = [];
    for (const frame of frames) {
      const data = frame.slice('data: '.length, -2);
      if (data === '[DONE]') break;
      events.push(...mapper.push(JSON.parse(data) as Parameters<typeof mapper.push>[0]));
    }
    events.push(...mapper.end());
    return events;
  }

  it('gives the same events as parsing every chunk: texts alike, escaped, after a finish, a changed shape, a call between', async () => {
    const frames = [
      chunk('{"role":"assistant","content":""}'),
      chunk('{"content":"Hello"}'),
      chunk('{"content":" world"}'),
      chunk('{"content":""}'),
      chunk('{"content":"a \\"quoted\\" word\\n"}'),
      chunk('{"content":"é 😀"}'),
      `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"other shape"},"logprobs":null,"finish_reason":null}]}\n\n`,
      chunk('{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}'),
      chunk('{"content":"after the call"}'),
      chunk('{"content":"last"}', 'stop'),
      chunk('{"content":"after the finish"}'),
      `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9,"total_tokens":12}}\n\n`,
      'data: [DONE]\n\n',
    ];
    // One frame per read, and everything in one read.
    for (const parts of [frames, [frames.join('')]]) {
      const events = await collect(createChatEventStream({ open: () => Promise.resolve(opened(body(parts).response)), mapError }));
      expect(events).toEqual(parsedEvents(frames));
    }
  });

  /** The events of `frames` through the stream, and how many times `JSON.parse` ran meanwhile. */
  async function eventsAndParses(frames: string[]): Promise<{ events: ChatStreamEvent[]; parses: number }> {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const events = await collect(createChatEventStream({ open: () => Promise.resolve(opened(body(frames).response)), mapError }));
      return { events, parses: parse.mock.calls.length };
    } finally {
      parse.mockRestore();
    }
  }
  const stamped = (created: number, text: string, extra = ''): string =>
    `data: {"id":"c1","object":"chat.completion.chunk","created":${created}${extra},"model":"m","choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}\n\n`;

  it('learns the template again when a server stamps each second on its chunks, and stops when a field changes on every chunk', async () => {
    // llama.cpp-style: \`created\` moves every second, 5 chunks a second. Each new second costs
    // its first chunk's parse and one probe; the rest are read from the template.
    const seconds = [1, 2, 3].flatMap((created) => [0, 1, 2, 3, 4].map((i) => stamped(created, `t${created}.${i} `)));
    const perSecond = [...seconds, chunk('{}', 'stop'), 'data: [DONE]\n\n'];
    const a = await eventsAndParses(perSecond);
    expect(a.events).toEqual(parsedEvents(perSecond));
    expect(a.parses).toBeLessThanOrEqual(7);
    // OpenAI-style: a random field on every chunk. After the second chunk nothing is learned
    // any more, so each chunk is parsed once (not once more for a probe).
    const random = Array.from({ length: 15 }, (_, i) => stamped(1, `t${i} `, `,"obfuscation":"${'abcdefghijklmnop'.slice(i)}"`));
    const perChunk = [...random, chunk('{}', 'stop'), 'data: [DONE]\n\n'];
    const b = await eventsAndParses(perChunk);
    expect(b.events).toEqual(parsedEvents(perChunk));
    expect(b.parses).toBeLessThanOrEqual(perChunk.length - 1 + 3);
    // Escaped text misses the template for its text, not its shape: it keeps reading the rest.
    const escaped = [stamped(1, 'a'), stamped(1, 'b'), stamped(1, 'q\\"1'), stamped(1, 'q\\"2'), ...[0, 1, 2, 3, 4, 5].map((i) => stamped(1, `c${i}`)), chunk('{}', 'stop'), 'data: [DONE]\n\n'];
    const c = await eventsAndParses(escaped);
    expect(c.events).toEqual(parsedEvents(escaped));
    expect(c.parses).toBeLessThanOrEqual(5);
  });

  it('still fails on a garbage payload that starts like a text chunk', async () => {
    const frames = [chunk('{"content":"Hello"}'), 'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"cut\n\n'];
    const events = await collect(createChatEventStream({ open: () => Promise.resolve(opened(body(frames).response)), mapError }));
    expect(events[0]).toEqual({ type: 'text-delta', delta: 'Hello' });
    expect(events.at(-1)?.type).toBe('error');
  });
});

describe('createChatEventStream through NEXT_THEN', () => {
  /** Reads to the end through `nextThen` (what `guardStream` and the tool loop use). */
  async function collectChained(stream: AsyncGenerator<ChatStreamEvent>): Promise<{ events: ChatStreamEvent[]; failure?: unknown }> {
    const events: ChatStreamEvent[] = [];
    for (;;) {
      const step = await nextThen<ChatStreamEvent, boolean | { error: unknown }>(
        stream,
        (next): boolean => {
          if (next.done === true) return false;
          events.push(next.value);
          return true;
        },
        (error: unknown) => ({ error }),
      );
      if (step === false) return { events };
      if (step !== true) return { events, failure: step.error };
    }
  }

  it('gives what next() gives: text, a call, a reset mid-stream, garbage, a failed call, a body that ends early', async () => {
    const call = chunk('{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\\"a\\":1}"}}]}');
    const scripts: (() => OpenedChatStream | Promise<never>)[] = [
      () => opened(body([chunk('{"role":"assistant","content":""}'), chunk('{"content":"a"}'), chunk('{"content":"b"}') + chunk('{"content":"c"}'), chunk('{}', 'stop'), 'data: [DONE]\n\n']).response),
      () => opened(body([call, chunk('{}', 'tool_calls'), 'data: [DONE]\n\n']).response, [{ type: 'warning', warning: { type: 'other', message: 'w' } }]),
      () => opened(body([chunk('{"content":"a"}'), chunk('{"content":"b"}'), new Error('socket hang up')]).response),
      () => opened(body([chunk('{"content":"a"}'), 'data: {not json\n\n']).response),
      () => opened(body([chunk('{"content":"a"}'), ': comment\n', chunk('{"content":"b"}')]).response),
      () => Promise.reject(new Error('refused')),
    ];
    for (const script of scripts) {
      const make = () => createChatEventStream({ open: () => Promise.resolve().then(script), mapError });
      const expected: { events: ChatStreamEvent[]; failure?: unknown } = { events: [] };
      try {
        for await (const event of make()) expected.events.push(event);
      } catch (error) {
        expected.failure = error;
      }
      expect(await collectChained(make())).toEqual(expected);
    }
  });

  it('does not keep the Response of an open stream once its body is being read', async () => {
    let response: WeakRef<Response> | undefined;
    const stream = createChatEventStream({
      open: () => {
        const made = body([chunk('{"content":"Hel"}'), chunk('{"content":"lo"}'), chunk('{}', 'stop'), 'data: [DONE]\n\n']).response;
        response = new WeakRef(made);
        return Promise.resolve(opened(made));
      },
      mapError,
    });
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'text-delta', delta: 'Hel' });
    expect(await collectedSoon(response)).toBe(true);
    // The rest of the stream reads as before.
    const rest = await collect(stream);
    expect(rest.map((e) => e.type)).toEqual(['text-delta', 'finish']);
  });

  it('does not keep its open function (and what it closes over) once the call is made', async () => {
    let open: WeakRef<() => Promise<OpenedChatStream>> | undefined;
    const stream = (() => {
      const made = (): Promise<OpenedChatStream> => Promise.resolve(opened(body([chunk('{"content":"Hel"}'), chunk('{"content":"lo"}'), chunk('{}', 'stop'), 'data: [DONE]\n\n']).response));
      open = new WeakRef(made);
      return createChatEventStream({ open: made, mapError });
    })();
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'text-delta', delta: 'Hel' });
    expect(await collectedSoon(open)).toBe(true);
    const rest = await collect(stream);
    expect(rest.map((e) => e.type)).toEqual(['text-delta', 'finish']);
  });
});
