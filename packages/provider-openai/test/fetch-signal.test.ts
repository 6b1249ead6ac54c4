// The request's signal handed to a fetch marked as reading `init[FETCH_SIGNAL]` (the client
// then overrides the SDK's `fetchWithTimeout`: no `AbortSignal.any` per call), against a real
// local server that can hold its answer, refuse with retry-after, or stop mid-stream.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProviderError, ProviderUnavailableError, UpstreamTimeoutError } from '@toolwire/core';
import { FETCH_SIGNAL, fetchSignalOf, markFetchSignal } from '@toolwire/core/provider';
import { responseObject } from '@toolwire/openai-responses/testing';
import { createOpenAI } from '../src/index.ts';
import { completion, finishChunk, roleChunk, textStream } from './chat-wire.ts';
import { responsesFrames, sseBody } from './openai-test-server.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface HeldServer {
  baseURL: string;
  /** Requests that reached the server. */
  readonly received: number;
  /** Resolves when the n-th request (1-based) has reached the server. */
  reached(n: number): Promise<void>;
  /** Resolves when a request's connection closed before its response ended. */
  cut(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server that answers the n-th request with `handlers[n]` (the last one for the rest). */
async function serve(...handlers: Handler[]): Promise<HeldServer> {
  let received = 0;
  const waiting = new Map<number, () => void>();
  let onCut: (() => void) | undefined;
  const cut = new Promise<void>((resolve) => (onCut = resolve));
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.on('close', () => {
        if (!res.writableFinished) onCut?.();
      });
      (handlers[received - 1] ?? handlers.at(-1))?.(req, res);
      waiting.get(received)?.();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get received() {
      return received;
    },
    reached: (n) => (received >= n ? Promise.resolve() : new Promise((resolve) => waiting.set(n, resolve))),
    cut: () => cut,
  };
}

const hold: Handler = () => undefined;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A user's fetch that honours `FETCH_SIGNAL` as the contract asks (the global fetch
 * underneath, both signals forwarded by listeners, no `AbortSignal.any`), recording what
 * it was handed.
 */
function signalFetch(seen: RequestInit[]): typeof globalThis.fetch {
  return markFetchSignal(async (input, init) => {
    seen.push(init ?? {});
    const caller = fetchSignalOf(init);
    caller?.throwIfAborted();
    const own = init?.signal ?? undefined;
    const both = new AbortController();
    const forward = (event: Event): void => both.abort((event.target as AbortSignal).reason);
    own?.addEventListener('abort', forward, { once: true });
    caller?.addEventListener('abort', forward, { once: true });
    return globalThis.fetch(input, { ...init, signal: both.signal });
  });
}

const messages = [{ role: 'user' as const, content: 'Hi' }];

const created = { type: 'response.created', sequence_number: 0, response: responseObject('in_progress') };
const textDelta = { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Once', logprobs: [] };

describe('a fetch that reads FETCH_SIGNAL', () => {
  it("gets the request's signal in init[FETCH_SIGNAL] and the SDK's own in init.signal, with no AbortSignal.any", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion({ content: 'Hello.' })));
    });
    const seen: RequestInit[] = [];
    const controller = new AbortController();
    const any = vi.spyOn(AbortSignal, 'any');
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', fetch: signalFetch(seen) }).chat('gpt-4.1-mini');
    expect((await model.generate({ messages, signal: controller.signal })).text).toBe('Hello.');
    expect(seen).toHaveLength(1);
    expect((seen[0] as { [FETCH_SIGNAL]?: AbortSignal })[FETCH_SIGNAL]).toBe(controller.signal);
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(seen[0]?.signal).not.toBe(controller.signal);
    expect(any).not.toHaveBeenCalled();
  });

  it('cuts the upstream request and rejects with the abort reason when aborted before the response, without a retry', async () => {
    const server = await serve(hold);
    const seen: RequestInit[] = [];
    const controller = new AbortController();
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 2, fetch: signalFetch(seen) }).chat('gpt-4.1-mini');
    const pending = model.generate({ messages, signal: controller.signal });
    await server.reached(1);
    controller.abort(new Error('the client left'));
    await expect(pending).rejects.toThrow('the client left');
    await server.cut();
    // Past the SDK's first retry delay (at most 0.5 s): the SDK saw the abort and tried no second time.
    await sleep(700);
    expect(seen).toHaveLength(1);
    expect(server.received).toBe(1);
  });

  it('ends the call at once when aborted while the SDK waits to retry, and the SDK calls the fetch no more', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' });
      res.end('{"error":{"message":"busy","type":"server_error"}}');
    });
    const seen: RequestInit[] = [];
    const controller = new AbortController();
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 2, fetch: signalFetch(seen) }).chat('gpt-4.1-mini');
    const pending = model.generate({ messages, signal: controller.signal });
    await server.reached(1);
    await sleep(100);
    const started = Date.now();
    controller.abort(new Error('the client left'));
    await expect(pending).rejects.toThrow('the client left');
    expect(Date.now() - started).toBeLessThan(1000);
    // Past the 2 s the upstream asked for: the SDK's wait ended with the abort, no second call.
    await sleep(2500);
    expect(seen).toHaveLength(1);
    expect(server.received).toBe(1);
  });

  it('cuts a streamed chat body when aborted mid-stream', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseBody([{ data: roleChunk() }, { data: textStream(['Once'])[1] }], false));
    });
    const controller = new AbortController();
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', fetch: signalFetch([]) }).chat('gpt-4.1-mini');
    const types: string[] = [];
    let last: unknown;
    for await (const event of model.stream({ messages, signal: controller.signal })) {
      types.push(event.type);
      last = event;
      if (event.type === 'text-delta') controller.abort();
    }
    await server.cut();
    expect(types).toEqual(['text-delta', 'error']);
    expect((last as { error: Error }).error.name).toBe('AbortError');
  });

  it("throws a chat stream's abort reason from its first read when aborted before the response, without a retry", async () => {
    const server = await serve(hold);
    const seen: RequestInit[] = [];
    const controller = new AbortController();
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 2, fetch: signalFetch(seen) }).chat('gpt-4.1-mini');
    const first = model.stream({ messages, signal: controller.signal })[Symbol.asyncIterator]().next();
    await server.reached(1);
    controller.abort(new Error('the client left'));
    await expect(first).rejects.toThrow('the client left');
    await server.cut();
    await sleep(700);
    expect(seen).toHaveLength(1);
  });

  it('rejects a Responses call aborted before the response, and cuts a Responses stream before and during its body', async () => {
    const held = await serve(hold, hold, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseBody(responsesFrames([created, textDelta]), false));
    });
    const seen: RequestInit[] = [];
    const model = createOpenAI({ baseURL: held.baseURL, apiKey: 'sk-test', maxRetries: 2, fetch: signalFetch(seen) }).responses('gpt-4.1-mini');

    const first = new AbortController();
    const generated = model.generate({ messages, signal: first.signal });
    await held.reached(1);
    first.abort(new Error('left before the answer'));
    await expect(generated).rejects.toThrow('left before the answer');

    const second = new AbortController();
    const before = model.stream({ messages, signal: second.signal })[Symbol.asyncIterator]().next();
    await held.reached(2);
    second.abort(new Error('left before the stream'));
    await expect(before).rejects.toThrow('left before the stream');

    const third = new AbortController();
    const during: { type: string; error?: Error }[] = [];
    for await (const event of model.stream({ messages, signal: third.signal })) {
      during.push(event);
      if (event.type === 'text-delta') third.abort(new Error('left mid-stream'));
    }
    expect(during.map((event) => event.type)).toEqual(['text-delta', 'error']);
    expect(during.at(-1)?.error?.message).toBe('left mid-stream');
    await held.cut();
    await sleep(700);
    // One request per call: no abort was taken for a connection failure to retry.
    expect(seen).toHaveLength(3);
    expect(held.received).toBe(3);
  });

  it("passes an upstream's own 499 (no abort) through as a provider error", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(499, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"client closed request","type":"invalid_request_error"}}');
    });
    const controller = new AbortController();
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', fetch: signalFetch([]) }).chat('gpt-4.1-mini');
    const error: unknown = await model.generate({ messages, signal: controller.signal }).catch((caught: unknown) => caught);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('client closed request');
  });

  it("still times out with the SDK's timeout, which reaches the fetch as init.signal", async () => {
    const server = await serve(hold);
    const controller = new AbortController();
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0, timeoutMs: 200, fetch: signalFetch([]) }).chat('gpt-4.1-mini');
    const error: unknown = await model.generate({ messages, signal: controller.signal }).catch((caught: unknown) => caught);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/timed out/iu);
    await server.cut();
  });

  it("leaves a signal that is not this realm's AbortSignal to the SDK (init.signal only), and the call still works", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion({ content: 'Hello.' })));
    });
    const seen: RequestInit[] = [];
    // A polyfill-like signal: the shape the SDK uses, not an instance of AbortSignal.
    const foreign = { aborted: false, reason: undefined, addEventListener: () => undefined, removeEventListener: () => undefined } as unknown as AbortSignal;
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', fetch: signalFetch(seen) }).chat('gpt-4.1-mini');
    expect((await model.generate({ messages, signal: foreign })).text).toBe('Hello.');
    expect(seen).toHaveLength(1);
    expect((seen[0] as { [FETCH_SIGNAL]?: unknown })[FETCH_SIGNAL]).toBeUndefined();
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
  });

  it('rejects without a request when the signal is already aborted', async () => {
    const server = await serve(hold);
    const seen: RequestInit[] = [];
    const controller = new AbortController();
    controller.abort();
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', fetch: signalFetch(seen) }).chat('gpt-4.1-mini');
    await expect(model.generate({ messages, signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(0);
  });
});

/**
 * A fetch with an idle timeout, as the gateway's: an upstream that sends no headers within
 * `timeoutMs` fails the fetch with an `UpstreamTimeoutError`.
 */
function idleTimeoutFetch(timeoutMs: number): typeof globalThis.fetch {
  return markFetchSignal(async (input, init) => {
    const silence = new AbortController();
    const timer = setTimeout(() => silence.abort(new UpstreamTimeoutError({ timeoutMs, phase: 'headers' })), timeoutMs);
    const caller = fetchSignalOf(init);
    const signal = AbortSignal.any([silence.signal, ...(init?.signal ? [init.signal] : []), ...(caller ? [caller] : [])]);
    try {
      return await globalThis.fetch(input, { ...init, signal });
    } catch (error) {
      throw silence.signal.aborted ? (silence.signal.reason as Error) : error;
    } finally {
      clearTimeout(timer);
    }
  });
}

describe("a fetch's UpstreamTimeoutError (the upstream answered nothing within its idle timeout)", () => {
  it.each([0, 2])('ends the call with that error after one request, without the SDK retrying it (maxRetries %i)', async (maxRetries) => {
    const server = await serve(hold);
    const provider = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries, fetch: idleTimeoutFetch(100) });
    const error = await provider.chat('gpt-4.1-mini').generate({ messages }).catch((e: unknown) => e);
    expect(UpstreamTimeoutError.isInstance(error)).toBe(true);
    // Past the SDK's first retry delay (at most 0.5 s): no second request came.
    await sleep(700);
    expect(server.received).toBe(1);
  });

  it('does the same for a Responses call', async () => {
    const server = await serve(hold);
    const provider = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 2, fetch: idleTimeoutFetch(100) });
    const error = await provider.responses('gpt-4.1-mini').generate({ messages }).catch((e: unknown) => e);
    expect(UpstreamTimeoutError.isInstance(error)).toBe(true);
    await sleep(700);
    expect(server.received).toBe(1);
  });

  it('still lets the SDK retry another failed fetch (a reset connection)', async () => {
    const server = await serve(
      (req) => req.socket.destroy(),
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(completion({ content: 'Hello.' })));
      },
    );
    const provider = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 2, fetch: idleTimeoutFetch(5000) });
    expect((await provider.chat('gpt-4.1-mini').generate({ messages })).text).toBe('Hello.');
    expect(server.received).toBe(2);
  });
});

describe('a fetch that does not read FETCH_SIGNAL', () => {
  it('gets the signal through the SDK as before, and an abort still cuts the request', async () => {
    const server = await serve(hold, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseBody([{ data: roleChunk() }, { data: finishChunk('stop') }]));
    });
    const seen: RequestInit[] = [];
    const plain: typeof globalThis.fetch = (input, init) => {
      seen.push(init ?? {});
      return globalThis.fetch(input, init);
    };
    const controller = new AbortController();
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', fetch: plain }).chat('gpt-4.1-mini');
    const pending = model.generate({ messages, signal: controller.signal });
    await server.reached(1);
    expect((seen[0] as { [FETCH_SIGNAL]?: AbortSignal })[FETCH_SIGNAL]).toBeUndefined();
    controller.abort(new Error('the client left'));
    await expect(pending).rejects.toThrow('the client left');
    await server.cut();
  });
});
