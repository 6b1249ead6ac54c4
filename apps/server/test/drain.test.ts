import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent } from '@toolwire/core';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when `signal` aborts (never otherwise), rejecting with its reason as a provider would. */
function aborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal?.aborted === true) reject(signal.reason as Error);
    signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

/**
 * A model driven by the user message: `gate:<name>` streams `before `, waits for that gate,
 * then `after` and finishes; `endless` streams a delta every 50 ms until aborted; `silent`
 * yields nothing until aborted. Non-streamed: `gate:<name>` answers once the gate opens, else
 * it waits until aborted.
 */
function scriptedModel(gates: Gates): ChatModel {
  const prompt = (request: ChatRequest): string => {
    const first = request.messages[0];
    return first?.role === 'user' && typeof first.content === 'string' ? first.content : '';
  };
  return {
    provider: 'test',
    modelId: 'x',
    async generate(request: ChatRequest): Promise<ChatResponse> {
      const text = prompt(request);
      gates.started(text);
      if (text.startsWith('gate:')) await Promise.race([gates.wait(text), aborted(request.signal)]);
      else await aborted(request.signal);
      return { text: 'done', toolCalls: [], toolResults: [], finishReason: 'stop', message: { role: 'assistant', content: 'done' }, warnings: [] } as unknown as ChatResponse;
    },
    async *stream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
      const text = prompt(request);
      gates.started(text);
      if (text === 'silent') await aborted(request.signal);
      if (text === 'endless') {
        for (let i = 0; ; i++) {
          yield { type: 'text-delta', delta: `${i} ` };
          await Promise.race([sleep(50), aborted(request.signal)]);
        }
      }
      yield { type: 'text-delta', delta: 'before ' };
      await Promise.race([gates.wait(text), aborted(request.signal)]);
      yield { type: 'text-delta', delta: 'after' };
      yield { type: 'finish', finishReason: 'stop' };
    },
  };
}

/** Named gates a model waits on, and a way to know that a request reached the model. */
class Gates {
  readonly #gates = new Map<string, { promise: Promise<void>; open: () => void }>();
  readonly #started = new Map<string, { promise: Promise<void>; open: () => void }>();

  wait(name: string): Promise<void> {
    return this.#gate(this.#gates, name).promise;
  }

  open(name: string): void {
    this.#gate(this.#gates, name).open();
  }

  started(name: string): void {
    this.#gate(this.#started, name).open();
  }

  whenStarted(name: string): Promise<void> {
    return this.#gate(this.#started, name).promise;
  }

  #gate(map: Map<string, { promise: Promise<void>; open: () => void }>, name: string): { promise: Promise<void>; open: () => void } {
    let gate = map.get(name);
    if (gate === undefined) {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      gate = { promise, open };
      map.set(name, gate);
    }
    return gate;
  }
}

const chatBody = (content: string, stream: boolean): string => JSON.stringify({ model: 'test/x', stream, messages: [{ role: 'user', content }] });

/** One HTTP/1.1 connection of its own; `send` writes raw requests (pipelined), `text` is all it received once the server ended it. */
async function rawConnection(origin: string): Promise<{ send: (request: string) => void; firstData: Promise<void>; text: Promise<string> }> {
  const url = new URL(origin);
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  socket.setEncoding('utf8');
  let received = '';
  socket.on('data', (chunk: string) => (received += chunk));
  const firstData = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  const text = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  return { send: (request) => socket.write(request), firstData, text };
}

const postChat = (body: string): string =>
  `POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const get = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: gw\r\n\r\n`;

/** The responses in a raw HTTP/1.1 exchange: status, headers (lower case) and body (chunked bodies joined). */
function parseResponses(text: string): { status: number; headers: Record<string, string>; body: string }[] {
  const responses: { status: number; headers: Record<string, string>; body: string }[] = [];
  let at = 0;
  while (at < text.length) {
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (headEnd === -1) break;
    const [statusLine = '', ...lines] = text.slice(at, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    at = headEnd + 4;
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const sizeEnd = text.indexOf('\r\n', at);
        const size = parseInt(text.slice(at, sizeEnd), 16);
        at = sizeEnd + 2;
        if (Number.isNaN(size) || size === 0) {
          at += 2;
          break;
        }
        body += text.slice(at, at + size);
        at += size + 2;
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = text.slice(at, at + length);
      at += length;
    }
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body });
  }
  return responses;
}

const running: ToolwireServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

async function start(gates: Gates, limits: { shutdownGraceMs?: number; drainDelayMs?: number } = {}): Promise<{ server: ToolwireServer; baseURL: string; origin: string }> {
  const started = await startGateway(scriptedModel(gates), { limits: { listenSockets: 1, shutdownGraceMs: 5000, ...limits } });
  running.push(started.server);
  return started;
}

describe('draining on close', () => {
  it('keeps serving for drainDelayMs with /readyz answering 503 draining and /livez 200, every response with Connection: close, then refuses connections', async () => {
    const gates = new Gates();
    const { server, origin } = await start(gates, { drainDelayMs: 3000 });
    const open = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody('gate:open', true) });
    const openBody = open.text();
    const closing = server.close();

    const ready = await fetch(`${origin}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('connection')).toBe('close');
    expect(await ready.json()).toEqual({ status: 'not_ready', reasons: ['draining'] });
    const live = await fetch(`${origin}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    // A client the load balancer still sends here is served, and told to reconnect.
    gates.open('gate:late');
    const late = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody('gate:late', false) });
    expect(late.status, await late.clone().text()).toBe(200);
    expect(late.headers.get('connection')).toBe('close');

    gates.open('gate:open');
    expect((await openBody).endsWith('data: [DONE]\n\n')).toBe(true);
    await closing;
    const refused = await fetch(`${origin}/readyz`).then(
      () => 'answered',
      (error: unknown) => String(((error as Error).cause as { code?: string } | undefined)?.code),
    );
    expect(refused).toBe('ECONNREFUSED');
  }, 30_000);

  it('answers probes on a connection still open after it stopped accepting, and API requests with the shutting_down 503', async () => {
    const gates = new Gates();
    const { server, origin } = await start(gates);
    // Each connection has a stream open (its headers said keep-alive); the next request is pipelined behind it once the gateway closes.
    const connections = await Promise.all(['readyz', 'livez', 'api'].map(async (name) => {
      const connection = await rawConnection(origin);
      connection.send(postChat(chatBody(`gate:${name}`, true)));
      // The stream's headers (keep-alive) are out before the gateway closes.
      await connection.firstData;
      return { name, ...connection };
    }));
    const closing = server.close();
    // The streams end once the gateway has the pipelined requests (Node publishes each request it receives).
    let pipelined = 0;
    let allPipelined!: () => void;
    const received = new Promise<void>((resolve) => (allPipelined = resolve));
    const onRequest = (message: unknown): void => {
      const { url } = (message as { request: IncomingMessage }).request;
      if ((url === '/readyz' || url === '/livez' || url === '/v1/chat/completions') && ++pipelined === 3) allPipelined();
    };
    subscribe('http.server.request.start', onRequest);
    const [readyz, livez, api] = connections;
    readyz?.send(get('/readyz'));
    livez?.send(get('/livez'));
    api?.send(postChat(chatBody('hello', false)));
    await received.finally(() => unsubscribe('http.server.request.start', onRequest));
    for (const { name } of connections) gates.open(`gate:${name}`);
    const [readyzText, livezText, apiText] = await Promise.all(connections.map((c) => c.text));
    await closing;

    const [stream, probe] = parseResponses(readyzText ?? '');
    expect(stream?.body).toContain('data: [DONE]');
    expect(probe).toMatchObject({ status: 503, headers: { connection: 'close' } });
    expect(JSON.parse(probe?.body ?? '')).toEqual({ status: 'not_ready', reasons: ['draining'] });
    const live = parseResponses(livezText ?? '')[1];
    expect(live?.status).toBe(200);
    expect(JSON.parse(live?.body ?? '')).toEqual({ status: 'ok' });
    const refused = parseResponses(apiText ?? '')[1];
    expect(refused).toMatchObject({ status: 503, headers: { connection: 'close', 'x-should-retry': 'true' } });
    expect(JSON.parse(refused?.body ?? '').error).toMatchObject({ code: 'shutting_down', type: 'server_error' });
  }, 30_000);

  it('closes each connection after its last response, so close() waits for no keep-alive timeout', async () => {
    const gates = new Gates();
    const { server, origin } = await start(gates, { shutdownGraceMs: 60_000 });
    // Keep-alive clients (fetch keeps its connections): streams under way, one non-streamed answer not started yet, and an idle connection.
    await (await fetch(`${origin}/livez`)).text();
    const streams = await Promise.all(Array.from({ length: 8 }, async (_, i) => {
      const res = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody(`gate:s${i}`, true) });
      return { body: res.text() };
    }));
    const pending = fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody('gate:once', false) });
    await gates.whenStarted('gate:once');
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    for (let i = 0; i < 8; i++) gates.open(`gate:s${i}`);
    gates.open('gate:once');
    const answer = await pending;
    // Its headers were not sent yet when the drain began: it says so.
    expect(answer.headers.get('connection')).toBe('close');
    await answer.text();
    for (const stream of streams) expect(await stream.body).toContain('data: [DONE]');
    // Node keeps an idle keep-alive connection for 5 s or more; the drain ends long before that.
    await Promise.race([closing, sleep(3000)]);
    expect(closed).toBe(true);
  }, 30_000);
});

describe('connections with nothing under way', () => {
  it('are ended when the gateway stops accepting, on every listening socket: a spare connection that never sent a request does not hold up close()', async () => {
    const gates = new Gates();
    // The default sockets (8 on Linux): the spare connections land on several of them.
    const { server, origin } = await startGateway(scriptedModel(gates), { limits: { shutdownGraceMs: 60_000 } });
    running.push(server);
    const url = new URL(origin);
    const spare = await Promise.all(Array.from({ length: 8 }, async () => {
      const socket = connect(Number(url.port), url.hostname);
      await once(socket, 'connect');
      return { closed: once(socket, 'close') };
    }));
    // And keep-alive connections between two requests.
    const idle = await Promise.all(Array.from({ length: 8 }, async () => {
      const connection = await rawConnection(origin);
      connection.send(get('/livez'));
      await connection.firstData;
      return { text: connection.text };
    }));
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    // Far sooner than any timeout of Node's would end them (5 s keep-alive, 15 min connection timeout).
    await Promise.race([closing, sleep(3000)]);
    expect(closed).toBe(true);
    await Promise.all(spare.map((s) => s.closed));
    for (const text of await Promise.all(idle.map((c) => c.text))) expect(parseResponses(text)[0]?.status).toBe(200);
  }, 30_000);
});

describe('the end of the shutdown grace period', () => {
  it('tells each open answer shutting_down (an error frame in a stream, a 503 otherwise), as the OpenAI SDK sees it', async () => {
    const gates = new Gates();
    const { server, baseURL } = await start(gates, { shutdownGraceMs: 500 });
    const openai = new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0 });

    const stream = await openai.chat.completions.create({ model: 'test/x', stream: true, messages: [{ role: 'user', content: 'endless' }] });
    let text = '';
    const streamed = (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().then(() => undefined, (error: unknown) => error);
    const once = openai.chat.completions.create({ model: 'test/x', messages: [{ role: 'user', content: 'waits' }] }).then(() => undefined, (error: unknown) => error);
    const notStarted = openai.chat.completions.create({ model: 'test/x', stream: true, messages: [{ role: 'user', content: 'silent' }] }).then(() => undefined, (error: unknown) => error);
    await Promise.all([gates.whenStarted('endless'), gates.whenStarted('waits'), gates.whenStarted('silent')]);

    await server.close();

    // Mid-stream: the SDK throws the error frame's content, not a network error.
    const streamError = await streamed;
    expect(text).toMatch(/^0 1 /);
    expect(streamError).toBeInstanceOf(OpenAI.APIError);
    expect(streamError).not.toBeInstanceOf(OpenAI.APIConnectionError);
    expect(streamError).toMatchObject({ code: 'shutting_down', type: 'server_error' });
    expect((streamError as Error).message).toMatch(/shut down before this answer was complete/);
    // Nothing sent yet: the 503 in OpenAI's envelope, which SDKs retry (x-should-retry: true).
    for (const error of [await once, await notStarted]) {
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(error).toMatchObject({ status: 503, code: 'shutting_down', type: 'server_error' });
      expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('x-should-retry')).toBe('true');
    }
  }, 30_000);

  it('ends a Responses stream with its failure events', async () => {
    const gates = new Gates();
    const { server, origin } = await start(gates, { shutdownGraceMs: 300 });
    const res = await fetch(`${origin}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'test/x', stream: true, input: 'endless' }) });
    const body = res.text();
    await gates.whenStarted('endless');
    await server.close();
    const text = await body;
    expect(text).toContain('shutting_down');
  }, 30_000);
});
