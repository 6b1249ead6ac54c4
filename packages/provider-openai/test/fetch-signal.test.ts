// The request's signal handed to a fetch that says it reads `init[FETCH_SIGNAL]` (not
// through the SDK's `signal` option), against a real local server that can hold its answer.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAI, FETCH_SIGNAL, FETCH_SIGNAL_ABORT_STATUS } from '../src/index.ts';
import { completion, finishChunk, roleChunk, textStream } from './chat-wire.ts';
import { sseBody } from './openai-test-server.ts';

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

/**
 * A user's fetch that honours `FETCH_SIGNAL` as the contract asks (the global fetch
 * underneath), recording what it was handed.
 */
function signalFetch(seen: RequestInit[]): typeof globalThis.fetch {
  const fetch = async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit): Promise<Response> => {
    seen.push(init ?? {});
    const caller = (init as { [FETCH_SIGNAL]?: AbortSignal } | undefined)?.[FETCH_SIGNAL];
    const aborted = (): Response => new Response('{}', { status: FETCH_SIGNAL_ABORT_STATUS, headers: { 'x-should-retry': 'false' } });
    // A function: the signal changes between the two reads.
    const callerAborted = (): boolean => caller?.aborted === true;
    if (callerAborted()) return aborted();
    const own = init?.signal ?? undefined;
    const signals = [own, caller].filter((signal): signal is AbortSignal => signal !== undefined);
    try {
      return await globalThis.fetch(input, { ...init, signal: AbortSignal.any(signals) });
    } catch (error) {
      if (callerAborted()) return aborted();
      throw error;
    }
  };
  return Object.assign(fetch, { [FETCH_SIGNAL]: true as const });
}

const messages = [{ role: 'user' as const, content: 'Hi' }];

describe('a fetch that reads FETCH_SIGNAL', () => {
  it("gets the request's signal in init[FETCH_SIGNAL], the SDK's own signal in init.signal", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion({ content: 'Hello.' })));
    });
    const seen: RequestInit[] = [];
    const controller = new AbortController();
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', fetch: signalFetch(seen) }).chat('gpt-4.1-mini');
    expect((await model.generate({ messages, signal: controller.signal })).text).toBe('Hello.');
    expect(seen).toHaveLength(1);
    expect((seen[0] as { [FETCH_SIGNAL]?: AbortSignal })[FETCH_SIGNAL]).toBe(controller.signal);
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(seen[0]?.signal).not.toBe(controller.signal);
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
    // Past the SDK's first retry delay (at most 0.5 s): the SDK took the 499's word and tried no second time.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(seen).toHaveLength(1);
    expect(server.received).toBe(1);
  });

  it('cuts a streamed body when aborted mid-stream', async () => {
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

  it('ends the call at once when aborted while the SDK waits to retry (the SDK cannot see this signal)', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '30' });
      res.end('{"error":{"message":"busy","type":"server_error"}}');
    });
    const controller = new AbortController();
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 2, fetch: signalFetch([]) }).chat('gpt-4.1-mini');
    const pending = model.generate({ messages, signal: controller.signal });
    await server.reached(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    controller.abort(new Error('the client left'));
    await expect(pending).rejects.toThrow('the client left');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.received).toBe(1);
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

describe('a fetch that does not read FETCH_SIGNAL', () => {
  it("gets the signal through the SDK as before, and an abort still cuts the request", async () => {
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
