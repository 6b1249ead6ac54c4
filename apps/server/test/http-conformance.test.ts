import { request as httpRequest } from 'node:http';
import type { ChatRequest } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

let server: ToolwireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function gateway(model: Parameters<typeof startGateway>[0], config: Parameters<typeof startGateway>[1] = {}) {
  const started = await startGateway(model, config);
  server = started.server;
  return started;
}

const chat = (origin: string, body: unknown, init: RequestInit = {}) =>
  fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });

/** The `data:` payloads of an SSE body, in order. */
function frames(text: string): string[] {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .split('\n\n')
    .filter((f) => f !== '')
    .map((f) => {
      expect(f.startsWith('data: ')).toBe(true);
      return f.slice('data: '.length);
    });
}

describe('HTTP conformance', () => {
  it('answers malformed JSON with a 400 in the OpenAI envelope, as application/json', async () => {
    const { origin } = await gateway(createScriptedModel([]));
    const res = await chat(origin, '{"model": "test/x", ');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toEqual({ error: { message: expect.stringContaining('could not parse the JSON body'), type: 'invalid_request_error', param: null, code: 'invalid_json' } });
  });

  it('answers a body over the limit with a 413 in the envelope', async () => {
    const { origin } = await gateway(createScriptedModel([]), { limits: { bodyLimitBytes: 1024 } });
    const res = await chat(origin, { model: 'test/x', messages: [{ role: 'user', content: 'x'.repeat(2000) }] });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'request_too_large' } });
  });

  it('stops reading a chunked body once it passes the limit', async () => {
    const { origin } = await gateway(createScriptedModel([]), { limits: { bodyLimitBytes: 1024 } });
    const url = new URL(`${origin}/v1/chat/completions`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      // No content-length: the server only learns the size while reading.
      for (let i = 0; i < 64; i++) req.write('x'.repeat(512));
      req.end();
    });
    expect(status).toBe(413);
  });

  it('reads a JSON body sent without a content type', async () => {
    const { origin } = await gateway(createScriptedModel([{ text: 'ok' }]));
    const res = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'test/x', messages: [{ role: 'user', content: 'x' }] }) });
    expect(res.status).toBe(200);
  });

  it('answers every validation failure with a 4xx, never a 500, and x-should-retry: false', async () => {
    const { origin } = await gateway(createScriptedModel([]));
    const res = await chat(origin, { model: 'test/x', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'a b' } }] });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('answers an unknown URL with a 404 in the envelope', async () => {
    const { origin } = await gateway(createScriptedModel([]));
    const res = await fetch(`${origin}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'unknown_url', type: 'invalid_request_error' } });
  });

  it('answers a URL with broken percent-encoding with a 400 in the envelope', async () => {
    const { origin } = await gateway(createScriptedModel([]));
    const res = await fetch(`${origin}/v1/responses/%E0%A4%A`);
    expect(res.status).toBe(400);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(await res.json()).toEqual({ error: { message: expect.stringContaining('percent-encoding'), type: 'invalid_request_error', param: null, code: 'invalid_url' } });
  });

  it('serves /healthz and /v1/models', async () => {
    const { origin } = await gateway(createScriptedModel([]));
    expect(await (await fetch(`${origin}/healthz`)).json()).toEqual({ status: 'ok' });
    const models = await (await fetch(`${origin}/v1/models`)).json();
    expect(models).toEqual({ object: 'list', data: [{ id: 'test/scripted', object: 'model', created: expect.any(Number), owned_by: 'test' }] });
  });

  it('streams exact data frames: role first, shared id/created/model, one finish, usage chunk, then [DONE]', async () => {
    const { origin } = await gateway(
      createScriptedModel([{ text: 'Hello there', toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }], usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }], { chunkSize: 4 }),
    );
    const res = await chat(origin, {
      model: 'test/x',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const data = frames(await res.text());
    expect(data.at(-1)).toBe('[DONE]');
    type Chunk = { id: string; created: number; choices: { delta: { content?: string }; finish_reason: string | null }[] };
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Chunk);
    const first = chunks[0]!;
    expect(first.choices[0]!.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    for (const c of chunks) expect(c).toMatchObject({ id: first.id, created: first.created, model: 'test/x', object: 'chat.completion.chunk' });
    const finishes = chunks.flatMap((c) => c.choices.filter((ch) => ch.finish_reason !== null));
    expect(finishes).toHaveLength(1);
    expect(finishes[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Hello there');
  });

  it('turns an upstream failure mid-stream into an error frame and ends the stream without [DONE]', async () => {
    const { origin } = await gateway(createScriptedModel([{ events: [{ type: 'text-delta', delta: 'par' }, { type: 'error', error: new Error('upstream hung up') }] }]));
    const res = await chat(origin, { model: 'test/x', messages: [{ role: 'user', content: 'x' }], stream: true });
    const data = frames(await res.text());
    expect(data).not.toContain('[DONE]');
    expect(JSON.parse(data.at(-1)!)).toMatchObject({ error: { type: 'server_error' } });
  });

  it('answers an upstream failure before the first event as an HTTP error, even for a stream', async () => {
    const { origin } = await gateway(createScriptedModel([{ events: [{ type: 'error', error: new Error('refused') }] }]));
    const res = await chat(origin, { model: 'test/x', messages: [{ role: 'user', content: 'x' }], stream: true });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('aborts the upstream request when the client disconnects mid-stream', async () => {
    let upstreamSignal: AbortSignal | undefined;
    let sawAbort!: () => void;
    const aborted = new Promise<void>((resolve) => (sawAbort = resolve));
    const model = createScriptedModel([
      (request: ChatRequest) => {
        upstreamSignal = request.signal;
        request.signal?.addEventListener('abort', () => sawAbort());
        return { events: [{ type: 'text-delta', delta: 'first' }] };
      },
    ]);
    // The scripted stream ends after one event; keep it open with a model that waits.
    const waiting = {
      ...model,
      provider: 'test',
      modelId: 'x',
      generate: model.generate.bind(model),
      async *stream(request: ChatRequest) {
        yield* model.stream(request);
        await new Promise((_, reject) => request.signal?.addEventListener('abort', () => reject(request.signal?.reason as Error)));
      },
    };
    const { origin } = await gateway(waiting);
    const controller = new AbortController();
    const res = await chat(origin, { model: 'test/x', messages: [{ role: 'user', content: 'x' }], stream: true }, { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await aborted;
    expect(upstreamSignal?.aborted).toBe(true);
  });

  it('aborts the upstream request when the client of a non-streaming request disconnects', async () => {
    let sawAbort!: () => void;
    const aborted = new Promise<void>((resolve) => (sawAbort = resolve));
    let started!: () => void;
    const upstreamStarted = new Promise<void>((resolve) => (started = resolve));
    const model = {
      provider: 'test',
      modelId: 'x',
      stream: () => {
        throw new Error('unused');
      },
      generate: (request: ChatRequest) =>
        new Promise<never>((_, reject) => {
          started();
          request.signal?.addEventListener('abort', () => {
            sawAbort();
            reject(request.signal?.reason as Error);
          });
        }),
    };
    const { origin } = await gateway(model);
    const controller = new AbortController();
    const pending = chat(origin, { model: 'test/x', messages: [{ role: 'user', content: 'x' }] }, { signal: controller.signal }).catch(() => 'aborted');
    await upstreamStarted;
    controller.abort();
    await aborted;
    expect(await pending).toBe('aborted');
  });

  it('lets an open stream finish when the server closes', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const model = {
      provider: 'test',
      modelId: 'x',
      generate: () => Promise.reject(new Error('unused')),
      async *stream() {
        yield { type: 'text-delta' as const, delta: 'before ' };
        await gate;
        yield { type: 'text-delta' as const, delta: 'after' };
        yield { type: 'finish' as const, finishReason: 'stop' as const };
      },
    };
    const started = await startGateway(model);
    const res = await chat(started.origin, { model: 'test/x', messages: [{ role: 'user', content: 'x' }], stream: true });
    const body = res.text();
    await new Promise((r) => setTimeout(r, 20));
    const closed = started.server.close();
    release();
    const text = await body;
    await closed;
    expect(text).toContain('after');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('refuses to listen beyond loopback without API keys', async () => {
    const open = createServer({ modelProviders: [] });
    await expect(open.listen({ host: '0.0.0.0', port: 0 })).rejects.toThrow(/without API keys/);
  });
});
