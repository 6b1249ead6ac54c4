import {
  AuthenticationError,
  ContextLengthExceededError,
  InvalidRequestError,
  ModelNotFoundError,
  PermissionDeniedError,
  ProviderServerError,
  ProviderUnavailableError,
  RateLimitError,
} from '@toolwire/core';
import type { ChatStreamEvent } from '@toolwire/core';
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { completion, roleChunk, textStream } from './chat-wire.ts';
import { useOpenAITestServer } from './openai-test-server.ts';

const server = useOpenAITestServer();

// retry-after-ms keeps the SDK's backoff short in these tests.
const FAST_RETRY = { 'retry-after-ms': '5' };

function chat(maxRetries = 0) {
  return createOpenAI({ baseURL: server().baseURL, apiKey: 'sk-test', maxRetries }).chat('gpt-4.1-mini');
}

const request = { messages: [{ role: 'user' as const, content: 'Hi' }] };

describe('errors from the API', () => {
  it('401 becomes AuthenticationError with the provider message and status', async () => {
    server().reply({ kind: 'error', status: 401, message: 'Incorrect API key provided: sk-test.', code: 'invalid_api_key' });
    const error = await chat().generate(request).catch((e: unknown) => e);
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key', provider: 'openai' });
    expect((error as Error).message).toContain('Incorrect API key provided');
  });

  it('403 becomes PermissionDeniedError', async () => {
    server().reply({ kind: 'error', status: 403, message: 'Project does not have access to model gpt-4.1-mini', code: 'model_not_found' });
    const error = await chat().generate(request).catch((e: unknown) => e);
    expect(PermissionDeniedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 403 });
  });

  it('404 becomes ModelNotFoundError naming the model', async () => {
    server().reply({ kind: 'error', status: 404, message: 'The model `gpt-9` does not exist or you do not have access to it.', code: 'model_not_found' });
    const error = await chat().generate(request).catch((e: unknown) => e);
    expect(ModelNotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 404, modelId: 'gpt-4.1-mini', code: 'model_not_found' });
    expect((error as Error).message).toMatch(/^The model `gpt-9` does not exist/);
  });

  it('429 becomes RateLimitError with retryAfterMs once retries are spent', async () => {
    server().reply(
      { kind: 'error', status: 429, message: 'Rate limit reached for gpt-4.1-mini.', type: 'requests', code: 'rate_limit_exceeded', headers: { 'retry-after': '0' } },
      { kind: 'error', status: 429, message: 'Rate limit reached for gpt-4.1-mini.', type: 'requests', code: 'rate_limit_exceeded', headers: { 'retry-after': '2' } },
    );
    const error = await chat(1).generate(request).catch((e: unknown) => e);
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 2000, retryable: true, code: 'rate_limit_exceeded' });
    expect(server().requests).toHaveLength(2);
  });

  it('retries a 429 and a 500, then succeeds', async () => {
    server().reply(
      { kind: 'error', status: 429, message: 'Rate limit reached.', headers: FAST_RETRY },
      { kind: 'error', status: 500, message: 'The server had an error while processing your request.', type: 'server_error', headers: FAST_RETRY },
      { kind: 'json', body: completion({ content: 'Finally.' }) },
    );
    const response = await chat(2).generate(request);
    expect(response.text).toBe('Finally.');
    expect(server().requests).toHaveLength(3);
  });

  it('a context overflow becomes ContextLengthExceededError', async () => {
    server().reply({
      kind: 'error',
      status: 400,
      message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens.",
      code: 'context_length_exceeded',
    });
    const error = await chat().generate(request).catch((e: unknown) => e);
    expect(ContextLengthExceededError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, code: 'context_length_exceeded' });
  });

  it('other 400s become InvalidRequestError keeping message and code', async () => {
    server().reply({ kind: 'error', status: 400, message: 'Container is expired.', code: 'container_expired' });
    const error = await chat().generate(request).catch((e: unknown) => e);
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, code: 'container_expired', message: 'Container is expired.' });
  });

  it('422 becomes InvalidRequestError', async () => {
    server().reply({ kind: 'error', status: 422, message: 'Unprocessable request.' });
    expect(InvalidRequestError.isInstance(await chat().generate(request).catch((e: unknown) => e))).toBe(true);
  });

  it('5xx becomes ProviderServerError after the retries', async () => {
    server().reply(
      { kind: 'error', status: 503, message: 'The engine is currently overloaded.', type: 'server_error', headers: FAST_RETRY },
      { kind: 'error', status: 503, message: 'The engine is currently overloaded.', type: 'server_error', headers: FAST_RETRY },
    );
    const error = await chat(1).generate(request).catch((e: unknown) => e);
    expect(ProviderServerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect(server().requests).toHaveLength(2);
  });

  it('a stream that cannot start throws from the first next()', async () => {
    server().reply({ kind: 'error', status: 401, message: 'Invalid token.' });
    const iterator = chat().stream(request)[Symbol.asyncIterator]();
    const error = await iterator.next().catch((e: unknown) => e);
    expect(AuthenticationError.isInstance(error)).toBe(true);
  });

  it('a streamed request answered with a page or a JSON document throws what the server said from the first next()', async () => {
    const first = async () => chat().stream(request)[Symbol.asyncIterator]().next().catch((e: unknown) => e);
    server().reply({ kind: 'json', body: { error: { message: 'Model is overloaded.', type: 'server_error', code: 503 } } });
    const overloaded = await first();
    expect(ProviderServerError.isInstance(overloaded)).toBe(true);
    expect((overloaded as Error).message).toBe('Model is overloaded.');

    server().reply({ kind: 'json', body: '<html>Sign in</html>', headers: { 'content-type': 'text/html; charset=utf-8' } });
    expect(((await first()) as Error).message).toContain('with a body of type text/html; charset=utf-8 (HTTP 200), not an event stream');

    server().reply({ kind: 'json', body: completion({ role: 'assistant', content: 'Hello' }) });
    expect(((await first()) as Error).message).toContain('with one JSON completion: it ignores `stream: true`');
  });

  it('an error frame mid-stream becomes a final error event', async () => {
    server().reply({
      kind: 'sse',
      frames: [{ data: roleChunk() }, { data: textStream(['Hi'])[1] }, { data: { error: { message: 'The server had an error.', type: 'server_error', code: 'server_error' } } }],
    });
    const events: ChatStreamEvent[] = [];
    for await (const event of chat().stream(request)) events.push(event);
    expect(events[0]).toEqual({ type: 'text-delta', delta: 'Hi' });
    const last = events.at(-1);
    expect(last?.type === 'error' && ProviderServerError.isInstance(last.error)).toBe(true);
    expect(last?.type === 'error' && last.error.message).toBe('The server had an error.');
  });
});

describe('an unreachable server', () => {
  it('gives ProviderUnavailableError naming the base URL', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const error = await createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0 })
      .chat('local-model')
      .generate(request)
      .catch((e: unknown) => e);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ baseURL });
    expect((error as Error).message).toContain(baseURL);
  });

  it('gives ProviderUnavailableError saying to raise timeoutMs when the server accepts but never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      // Holds the connection open and never writes a byte.
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const baseURL = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
    try {
      const error = await createOpenAI({ baseURL, apiKey: 'sk-test', maxRetries: 0, timeoutMs: 150 })
        .chat('local-model')
        .generate(request)
        .catch((e: unknown) => e);
      expect(ProviderUnavailableError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ baseURL });
      expect((error as Error).message).toMatch(/timed out\. Raise timeoutMs/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
