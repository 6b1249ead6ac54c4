import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { attachBodyReader } from '@toolwire/core/provider';
import type { BodyReader } from '@toolwire/core/provider';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { createChatChunkReader } from './read-chat-chunks.ts';

/** A streamed response whose body arrives in `parts`; `cancelled` tells whether the reader gave up on it. */
function streamed(parts: string[]): { response: Response; cancelled: () => boolean } {
  let cancelled = false;
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[next++];
      if (part === undefined) controller.close();
      else controller.enqueue(encoder.encode(part));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(body, { headers: { 'content-type': 'text/event-stream' } }), cancelled: () => cancelled };
}

const chunk = (content: string): string => `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]}\n\n`;

/** `createChatChunkReader` as an async generator: the chunks of each read; leaving early cancels the body. */
async function* readChatChunks(response: Response): AsyncGenerator<ChatCompletionChunk[]> {
  const reader = createChatChunkReader(response);
  try {
    for (let chunks = await reader.read(); chunks !== undefined; chunks = await reader.read()) yield chunks;
  } finally {
    reader.cancel();
  }
}

async function collect(response: Response): Promise<string[]> {
  const texts: string[] = [];
  for await (const chunks of readChatChunks(response)) for (const c of chunks) texts.push(c.choices[0]?.delta.content ?? '');
  return texts;
}

describe('createChatChunkReader, read to the end', () => {
  it('yields the chunks of each read, whatever the chunking, and stops at [DONE]', async () => {
    const text = chunk('Hel') + chunk('lo') + 'data: [DONE]\n\n';
    const whole = streamed([text]);
    expect(await collect(whole.response)).toEqual(['Hel', 'lo']);
    const pieces = Array.from({ length: Math.ceil(text.length / 5) }, (_, i) => text.slice(i * 5, i * 5 + 5));
    expect(await collect(streamed(pieces).response)).toEqual(['Hel', 'lo']);
  });

  it('splits a multi-byte character across reads correctly', async () => {
    const text = chunk('héllo ✓') + 'data: [DONE]\n\n';
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= bytes.length) controller.close();
        else controller.enqueue(bytes.slice(at, (at += 3)));
      },
    });
    expect(await collect(new Response(body))).toEqual(['héllo ✓']);
  });

  it('cancels the body at [DONE] and when the consumer stops early, and not after a body that ended', async () => {
    const done = streamed([chunk('a'), 'data: [DONE]\n\n', chunk('after')]);
    expect(await collect(done.response)).toEqual(['a']);
    expect(done.cancelled()).toBe(true);

    const early = streamed([chunk('a'), chunk('b'), chunk('c')]);
    for await (const chunks of readChatChunks(early.response)) {
      expect(chunks).toHaveLength(1);
      break;
    }
    expect(early.cancelled()).toBe(true);

    const ended = streamed([chunk('a'), chunk('b')]);
    expect(await collect(ended.response)).toEqual(['a', 'b']);
    expect(ended.cancelled()).toBe(false);
  });

  it('throws an error payload as the SDK does, an APIError with the payload', async () => {
    const failing = streamed([chunk('a'), 'data: {"error":{"message":"overloaded","type":"server_error"}}\n\n', chunk('after')]);
    const error: unknown = await collect(failing.response).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toEqual({ message: 'overloaded', type: 'server_error' });
    expect(failing.cancelled()).toBe(true);

    const event = streamed(['event: error\ndata: {"message":"bad"}\n\n']);
    const eventError: unknown = await collect(event.response).catch((e: unknown) => e);
    expect(eventError).toBeInstanceOf(APIError);
    expect((eventError as APIError).error).toEqual({ message: 'bad' });
  });

  it('throws a SyntaxError for a payload that is not JSON', async () => {
    await expect(collect(streamed(['data: {"id":\n\n']).response)).rejects.toThrow(SyntaxError);
  });

  it('throws a SyntaxError that names the value for a payload that is JSON but not an object', async () => {
    for (const payload of ['null', '42', '"text"', 'true']) {
      await expect(collect(streamed([`data: ${payload}\n\n`]).response)).rejects.toThrow(new SyntaxError(`Error reading response: a server-sent event holds ${payload}, not a JSON object.`));
    }
  });

  it('reads a last event that lacks its blank line', async () => {
    expect(await collect(streamed([chunk('a').trimEnd()]).response)).toEqual(['a']);
  });
});

/**
 * A response whose `fetch` attached a `BodyReader` handing out `reads` (each read's chunks
 * at once; an Error fails that read); its web body must never be touched.
 */
function withBodyReader(reads: (string[] | Error)[]): { response: Response; cancelled: () => boolean; webRead: () => boolean } {
  const encoder = new TextEncoder();
  let cancelled = false;
  let webRead = false;
  let next = 0;
  const reader: BodyReader = {
    read() {
      if (cancelled) return Promise.resolve(undefined);
      const read = reads[next++];
      if (read === undefined) return Promise.resolve(undefined);
      if (read instanceof Error) return Promise.reject(read);
      return Promise.resolve(read.map((part) => encoder.encode(part)));
    },
    cancel() {
      cancelled = true;
    },
  };
  const web = new ReadableStream<Uint8Array>({
    pull() {
      webRead = true;
    },
  }, { highWaterMark: 0 });
  let claimed = false;
  const response = attachBodyReader(new Response(web), {
    claim: () => {
      if (claimed) return undefined;
      claimed = true;
      return reader;
    },
  });
  return { response, cancelled: () => cancelled, webRead: () => webRead };
}

describe('createChatChunkReader with a BodyReader', () => {
  it('reads the attached reader, not the web body, all chunks of one read at once', async () => {
    const source = withBodyReader([[chunk('a'), chunk('b').slice(0, 10)], [chunk('b').slice(10), chunk('c')], ['data: [DONE]\n\n']]);
    const reader = createChatChunkReader(source.response);
    const reads: string[][] = [];
    for (let chunks = await reader.read(); chunks !== undefined; chunks = await reader.read()) reads.push(chunks.map((c) => c.choices[0]?.delta.content ?? ''));
    expect(reads).toEqual([['a'], ['b', 'c']]);
    expect(source.webRead()).toBe(false);
    // [DONE] frees the socket.
    expect(source.cancelled()).toBe(true);
  });

  it('does not cancel a body that ended, and cancels one left early', async () => {
    const ended = withBodyReader([[chunk('a')]]);
    const reader = createChatChunkReader(ended.response);
    expect(await reader.read()).toHaveLength(1);
    expect(await reader.read()).toBeUndefined();
    reader.cancel();
    expect(ended.cancelled()).toBe(false);

    const early = withBodyReader([[chunk('a')], [chunk('b')]]);
    const left = createChatChunkReader(early.response);
    await left.read();
    left.cancel();
    expect(early.cancelled()).toBe(true);
    expect(await left.read()).toBeUndefined();
  });

  it('rejects a failed read and an error payload, and frees the socket', async () => {
    const reset = withBodyReader([[chunk('a')], new Error('socket hang up')]);
    const reader = createChatChunkReader(reset.response);
    await reader.read();
    await expect(reader.read()).rejects.toThrow('socket hang up');
    expect(reset.cancelled()).toBe(true);

    const failing = withBodyReader([['data: {"error":{"message":"overloaded"}}\n\n']]);
    await expect(createChatChunkReader(failing.response).read()).rejects.toBeInstanceOf(APIError);
    expect(failing.cancelled()).toBe(true);
  });

  it('reads the web body when the reader was taken already', async () => {
    const source = withBodyReader([[chunk('a')]]);
    // Claimed once: the second claim finds nothing and falls back to response.body.
    createChatChunkReader(source.response);
    const fallback = createChatChunkReader(source.response);
    void fallback.read();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(source.webRead()).toBe(true);
    fallback.cancel();
  });

  it('hands out the chunks before a bad event of the same read, then fails', async () => {
    const garbage = withBodyReader([[chunk('a'), chunk('b'), 'data: {"id":\n\n', chunk('c')]]);
    const reader = createChatChunkReader(garbage.response);
    expect((await reader.read())?.map((c) => c.choices[0]?.delta.content)).toEqual(['a', 'b']);
    await expect(reader.read()).rejects.toThrow(SyntaxError);
    expect(garbage.cancelled()).toBe(true);
  });
});

describe('createChatChunkReader through readThen', () => {
  type Outcome = { reads: string[][]; failure?: string; cancelled: boolean };
  const texts = (chunks: ChatCompletionChunk[]): string[] => chunks.map((c) => c.choices[0]?.delta.content ?? '');

  async function byRead(reads: (string[] | Error)[]): Promise<Outcome> {
    const source = withBodyReader(reads);
    const reader = createChatChunkReader(source.response);
    const outcome: Outcome = { reads: [], cancelled: false };
    try {
      for (let chunks = await reader.read(); chunks !== undefined; chunks = await reader.read()) outcome.reads.push(texts(chunks));
    } catch (error) {
      outcome.failure = String(error);
    }
    outcome.cancelled = source.cancelled();
    return outcome;
  }

  async function byReadThen(reads: (string[] | Error)[]): Promise<Outcome> {
    const source = withBodyReader(reads);
    const reader = createChatChunkReader(source.response);
    const outcome: Outcome = { reads: [], cancelled: false };
    for (;;) {
      const step = await reader.readThen<boolean | { error: unknown }>(
        (chunks) => {
          if (chunks === undefined) return false;
          outcome.reads.push(texts(chunks));
          return true;
        },
        (error: unknown) => ({ error }),
      );
      if (step === false) break;
      if (step !== true) {
        outcome.failure = String(step.error);
        break;
      }
    }
    outcome.cancelled = source.cancelled();
    return outcome;
  }

  it('gives what read() gives: reads with no whole event, [DONE], a reset, garbage, an error payload, a body that ends', async () => {
    const scripts: (string[] | Error)[][] = [
      [[chunk('a'), chunk('b').slice(0, 10)], [chunk('b').slice(10)], [': keep-alive\n'], [chunk('c')], ['data: [DONE]\n\n']],
      [[chunk('a')], new Error('socket hang up')],
      [[chunk('a'), 'data: {"id":\n\n', chunk('c')]],
      [['data: {"error":{"message":"overloaded"}}\n\n']],
      [[chunk('a')], [chunk('b')]],
    ];
    for (const script of scripts) expect(await byReadThen(script)).toEqual(await byRead(script));
  });

  it('takes the plain way for a readThen while another is under way, and both get their read', async () => {
    const source = withBodyReader([[chunk('a')], [chunk('b')]]);
    const reader = createChatChunkReader(source.response);
    const first = reader.readThen((chunks) => (chunks === undefined ? [] : texts(chunks)), () => ['failed']);
    const second = reader.readThen((chunks) => (chunks === undefined ? [] : texts(chunks)), () => ['failed']);
    expect([await first, await second]).toEqual([['a'], ['b']]);
  });

  it('keeps each read to its own caller when a readThen reads again (a comment) while another read waits', async () => {
    const text = (chunks: ChatCompletionChunk[] | undefined): string[] => (chunks === undefined ? [] : texts(chunks));
    const source = withBodyReader([[': keep-alive\n\n'], [chunk('b')], [chunk('c')]]);
    const reader = createChatChunkReader(source.response);
    const calls: string[] = [];
    const first = reader.readThen((chunks) => (calls.push(`first:${text(chunks).join()}`), 'first-result'), () => 'first-failed');
    const second = reader.readThen((chunks) => (calls.push(`second:${text(chunks).join()}`), 'second-result'), () => 'second-failed');
    expect([await first, await second]).toEqual(['first-result', 'second-result']);
    expect(calls.sort()).toEqual(['first:c', 'second:b']);

    const failing = withBodyReader([[': keep-alive\n\n'], new Error('socket hang up'), [chunk('c')]]);
    const failingReader = createChatChunkReader(failing.response);
    const a = failingReader.readThen((chunks) => `a:${text(chunks).join()}`, (error: unknown) => `a failed: ${String(error)}`);
    const b = failingReader.readThen((chunks) => `b:${text(chunks).join()}`, (error: unknown) => `b failed: ${String(error)}`);
    expect(await b).toBe('b failed: Error: socket hang up');
    expect(await a).toMatch(/^a/u);
  });

  it('keeps a plain read() under way to itself when a readThen starts before it settles', async () => {
    const source = withBodyReader([[chunk('a')], [chunk('b')]]);
    const reader = createChatChunkReader(source.response);
    const plain = reader.read();
    const chained = reader.readThen((chunks) => (chunks === undefined ? 'end' : texts(chunks).join()), () => 'failed');
    expect(texts((await plain) ?? [])).toEqual(['a']);
    expect(await chained).toBe('b');
  });
});


describe('createChatChunkReader past the endWithin deadline', () => {
  const usageChunk = 'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}\n\n';

  it('still reads what the body already holds, then ends at [DONE]', async () => {
    const source = withBodyReader([[chunk('a')], [usageChunk], ['data: [DONE]\n\n']]);
    const reader = createChatChunkReader(source.response);
    expect(await reader.read()).toHaveLength(1);
    reader.endWithin(1);
    // The consumer comes back after the deadline: the usage sat in the buffer all along.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect((await reader.read())?.[0]).toMatchObject({ usage: { prompt_tokens: 5 } });
    expect(await reader.read()).toBeUndefined();
    expect(source.cancelled()).toBe(true);
  });

  it('ends and frees the socket when a read past the deadline would wait', async () => {
    let cancelled = false;
    const body: BodyReader = {
      read: () => new Promise(() => undefined),
      cancel: () => {
        cancelled = true;
      },
    };
    let claimed = false;
    const response = attachBodyReader(new Response(null), { claim: () => (claimed ? undefined : ((claimed = true), body)) });
    const reader = createChatChunkReader(response);
    reader.endWithin(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await reader.read()).toBeUndefined();
    expect(cancelled).toBe(true);
  });
});
