// The body of a non-streamed completion, read by the provider after the SDK made the call:
// slow, broken, cut, aborted or not JSON at all, from a real node:http server on 127.0.0.1.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderError, StreamError } from '@toolwire/core';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { OpenAIChatModel } from '../src/openai-chat-model.ts';
import { OpenAIResponsesModel } from '../src/openai-responses-model.ts';
import { completion, textStream } from './chat-wire.ts';
import { weatherTool } from './tools.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
  server = undefined;
});

async function serve(handler: RequestListener): Promise<string> {
  server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const request = { messages: [{ role: 'user' as const, content: 'Hi' }] };
const chat = (baseURL: string) => createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0 }).chat('gpt-4.1-mini');

/** A client that records the request options the SDK keeps (its `buildRequest`, a public method, receives them). */
function watchedClient(baseURL: string): { client: OpenAI; kept: { body?: unknown }[]; sentBodies: string[] } {
  const kept: { body?: unknown }[] = [];
  const sentBodies: string[] = [];
  class WatchedOpenAI extends OpenAI {
    override buildRequest(...args: Parameters<OpenAI['buildRequest']>): ReturnType<OpenAI['buildRequest']> {
      kept.push(args[0]);
      return super.buildRequest(...args);
    }
  }
  const client = new WatchedOpenAI({
    baseURL,
    apiKey: 'sk-test',
    maxRetries: 0,
    fetch: async (input, init) => {
      sentBodies.push(typeof init?.body === 'string' ? init.body : '');
      return fetch(input, init);
    },
  });
  return { client, kept, sentBodies };
}

describe('generate reads the completion body itself', () => {
  it('reads a body that arrives slowly, a few bytes at a time', async () => {
    const body = JSON.stringify(completion({ content: 'Hello there, slowly.' }));
    const baseURL = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_1' });
      let i = 0;
      const timer = setInterval(() => {
        if (i >= body.length) {
          clearInterval(timer);
          res.end();
          return;
        }
        res.write(body.slice(i, (i += 9)));
      }, 1);
    });
    const response = await chat(baseURL).generate(request);
    expect(response.text).toBe('Hello there, slowly.');
    expect(response.finishReason).toBe('stop');
  });

  it('answers a 200 that is not JSON (a login page behind a proxy) with a ProviderError naming what came back', async () => {
    const baseURL = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Sign in</body></html>');
    });
    const error = await chat(baseURL).generate(request).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('text/html');
  });

  it('maps JSON that breaks off to the same StreamError as before', async () => {
    const baseURL = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"chatcmpl-1","choices":[{"index":0,');
    });
    const error = await chat(baseURL).generate(request).catch((e: unknown) => e);
    expect(StreamError.isInstance(error)).toBe(true);
  });

  it('fails, rather than hangs, when the connection is cut mid-body', async () => {
    const baseURL = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"id":"chatcmpl-1",');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const error = await chat(baseURL).generate(request).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
  });

  it('stops reading and rejects with the abort reason when the caller aborts mid-body', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    const baseURL = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"chatcmpl-1",');
      req.socket.on('close', () => upstreamClosed());
    });
    const controller = new AbortController();
    const pending = chat(baseURL).generate({ ...request, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('the client left')), 50);
    await expect(pending).rejects.toThrow('the client left');
    await closed;
  });
});

describe('generate and the body it handed the SDK', () => {
  it('takes the conversation and the tool schemas back out of it once the call is over (the SDK keeps its request options until a full collection)', async () => {
    const baseURL = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion({ content: 'Done.' })));
    });
    const { client, kept, sentBodies } = watchedClient(baseURL);
    const model = new OpenAIChatModel({ modelId: 'gpt-4.1-mini', context: { client: () => client, baseURL, isOpenAI: false } });
    const response = await model.generate({ messages: [{ role: 'user', content: 'A long conversation.' }], tools: [weatherTool] });
    expect(response.text).toBe('Done.');
    // What went on the wire had everything...
    const wire = JSON.parse(sentBodies[0] ?? '{}') as { messages: unknown[]; tools?: unknown[] };
    expect(wire.messages).toHaveLength(1);
    expect(wire.tools).toHaveLength(1);
    // ...and what the SDK still holds no longer reaches it.
    expect(kept).toHaveLength(1);
    const body = kept[0]?.body as { model: string; messages: unknown[]; tools?: unknown };
    expect(body.model).toBe('gpt-4.1-mini');
    expect(body.messages).toEqual([]);
    expect(body.tools).toBeUndefined();
  });
});

describe('stream and the body it handed the SDK', () => {
  it('takes the conversation and the tool schemas back out of it once the headers are in, while the stream is still open', async () => {
    let finish: (() => void) | undefined;
    const baseURL = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Up to the first text (the role chunk, then 'Hel').
      const [role, first, ...rest] = textStream(['Hel', 'lo.']);
      res.write(`data: ${JSON.stringify(role)}\n\ndata: ${JSON.stringify(first)}\n\n`);
      // The rest only when the test has looked: the stream is open meanwhile.
      finish = () => {
        for (const chunk of rest) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        res.end('data: [DONE]\n\n');
      };
    });
    const { client, kept, sentBodies } = watchedClient(baseURL);
    const model = new OpenAIChatModel({ modelId: 'gpt-4.1-mini', context: { client: () => client, baseURL, isOpenAI: false } });
    const stream = model.stream({ messages: [{ role: 'user', content: 'A long conversation.' }], tools: [weatherTool] });
    const events = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'text-delta' && finish !== undefined) {
        const body = kept[0]?.body as { model: string; stream: boolean; messages: unknown[]; tools?: unknown };
        expect(body.model).toBe('gpt-4.1-mini');
        expect(body.stream).toBe(true);
        expect(body.messages).toEqual([]);
        expect(body.tools).toBeUndefined();
        finish();
        finish = undefined;
      }
    }
    expect(finish).toBeUndefined();
    expect(events.filter((event) => event.type === 'text-delta').map((event) => event.delta).join('')).toBe('Hello.');
    const wire = JSON.parse(sentBodies[0] ?? '{}') as { messages: unknown[]; tools?: unknown[] };
    expect(wire.messages).toHaveLength(1);
    expect(wire.tools).toHaveLength(1);
  });

  it('takes them out when the call fails too', async () => {
    const baseURL = await serve((req, res) => {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Bad request.', type: 'invalid_request_error' } }));
    });
    const { client, kept } = watchedClient(baseURL);
    const model = new OpenAIChatModel({ modelId: 'gpt-4.1-mini', context: { client: () => client, baseURL, isOpenAI: false } });
    await expect(model.stream({ messages: [{ role: 'user', content: 'Hi' }], tools: [weatherTool] }).next()).rejects.toThrow('Bad request.');
    const body = kept[0]?.body as { messages: unknown[]; tools?: unknown };
    expect(body.messages).toEqual([]);
    expect(body.tools).toBeUndefined();
  });
});

describe('the Responses API model and the body it handed the SDK', () => {
  const answer = {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status: 'completed',
    model: 'gpt-5-nano',
    output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] }],
    usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
  };
  const conversation = { messages: [{ role: 'system' as const, content: 'Be brief.' }, { role: 'user' as const, content: 'A long conversation.' }], tools: [weatherTool] };

  it('generate: takes the input, instructions and tool schemas back out once the call is over', async () => {
    const baseURL = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
    const { client, kept, sentBodies } = watchedClient(baseURL);
    const model = new OpenAIResponsesModel({ modelId: 'gpt-5-nano', context: { client: () => client, baseURL, isOpenAI: true } });
    const response = await model.generate(conversation);
    expect(response.text).toBe('Done.');
    const wire = JSON.parse(sentBodies[0] ?? '{}') as { input: unknown[]; instructions?: string; tools?: unknown[] };
    expect(wire.input).toHaveLength(1);
    expect(wire.instructions).toBe('Be brief.');
    expect(wire.tools).toHaveLength(1);
    const body = kept[0]?.body as Record<string, unknown>;
    expect(body['model']).toBe('gpt-5-nano');
    expect(body).not.toHaveProperty('input');
    expect(body).not.toHaveProperty('instructions');
    expect(body).not.toHaveProperty('tools');
  });

  it('stream: takes them out once the headers are in', async () => {
    const baseURL = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const events = [
        { type: 'response.created', sequence_number: 0, response: { ...answer, status: 'in_progress', output: [] } },
        { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Done.' },
        { type: 'response.completed', sequence_number: 2, response: answer },
      ];
      for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      res.end();
    });
    const { client, kept } = watchedClient(baseURL);
    const model = new OpenAIResponsesModel({ modelId: 'gpt-5-nano', context: { client: () => client, baseURL, isOpenAI: true } });
    const events = [];
    for await (const event of model.stream(conversation)) events.push(event);
    expect(events.filter((event) => event.type === 'text-delta').map((event) => event.delta).join('')).toBe('Done.');
    const body = kept[0]?.body as Record<string, unknown>;
    expect(body['stream']).toBe(true);
    expect(body).not.toHaveProperty('input');
    expect(body).not.toHaveProperty('tools');
  });
});

describe('a stream holds nothing of the request it sent', () => {
  const gc =
    globalThis.gc ??
    ((): never => {
      throw new Error('globalThis.gc is missing: run the tests with --expose-gc (vitest.shared.ts passes it)');
    });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  for (const api of ['chat', 'responses'] as const) {
    it(`${api}: the conversation and tool schemas it sent are collectable while the stream is still open`, async () => {
      let finish: (() => void) | undefined;
      const baseURL = await serve((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (api === 'chat') {
          const [role, first, ...rest] = textStream(['Hel', 'lo.']);
          res.write(`data: ${JSON.stringify(role)}\n\ndata: ${JSON.stringify(first)}\n\n`);
          finish = () => {
            for (const chunk of rest) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
            res.end('data: [DONE]\n\n');
          };
          return;
        }
        const answer = { id: 'resp_1', object: 'response', created_at: 1, status: 'completed', model: 'gpt-5-nano', output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello.', annotations: [] }] }], usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 } };
        res.write(`event: response.created\ndata: ${JSON.stringify({ type: 'response.created', sequence_number: 0, response: { ...answer, status: 'in_progress', output: [] } })}\n\n`);
        res.write(`event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hello.' })}\n\n`);
        finish = () => res.end(`event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', sequence_number: 2, response: answer })}\n\n`);
      });
      // Weak references to what the model mapped and sent (its own arrays, not the caller's).
      let conversation: WeakRef<object> | undefined;
      let schemas: WeakRef<object> | undefined;
      class WatchedOpenAI extends OpenAI {
        override buildRequest(...args: Parameters<OpenAI['buildRequest']>): ReturnType<OpenAI['buildRequest']> {
          const body = args[0].body as { messages?: object; input?: object; tools?: object };
          const sentConversation = body.messages ?? body.input;
          if (sentConversation !== undefined) conversation = new WeakRef(sentConversation);
          if (body.tools !== undefined) schemas = new WeakRef(body.tools);
          return super.buildRequest(...args);
        }
      }
      const client = new WatchedOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0 });
      const context = { client: () => client, baseURL, isOpenAI: false };
      const model = api === 'chat' ? new OpenAIChatModel({ modelId: 'gpt-4.1-mini', context }) : new OpenAIResponsesModel({ modelId: 'gpt-5-nano', context });
      let text = '';
      let checked = false;
      for await (const event of model.stream({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'A long conversation.' }], tools: [weatherTool] })) {
        if (event.type !== 'text-delta') continue;
        text += event.delta;
        if (finish === undefined) continue;
        expect(conversation).toBeDefined();
        expect(schemas).toBeDefined();
        await pause(10);
        gc();
        await pause(0);
        gc();
        expect(conversation?.deref()).toBeUndefined();
        expect(schemas?.deref()).toBeUndefined();
        checked = true;
        finish();
        finish = undefined;
      }
      expect(checked).toBe(true);
      expect(text).toBe('Hello.');
    });
  }
});
