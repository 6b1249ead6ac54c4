// Regression tests for what the fuzzer (hostile-upstream.fuzz.test.ts) found, each with its
// shrunk counterexample: fields of the wrong type in Chat Completions chunks and bodies, and
// an upstream that echoes the API key in its error.
import { AuthenticationError, collectStream, ProviderError } from '@toolwire/core';
import type { ChatStreamEvent } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { chunk, completion, finishChunk, roleChunk } from './chat-wire.ts';
import { useOpenAITestServer } from './openai-test-server.ts';

const server = useOpenAITestServer();
const API_KEY = 'sk-fuzz-0123456789abcdefSECRET';
const provider = () => createOpenAI({ baseURL: server().baseURL, apiKey: API_KEY, maxRetries: 0 });
const request = { messages: [{ role: 'user' as const, content: 'Hi' }], tools: [{ type: 'function' as const, name: 'f', inputSchema: { type: 'object' as const } }] };

async function events(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

describe('Chat Completions chunks with fields of the wrong type', () => {
  it('skips `tool_calls` that is not a list (was: TypeError "delta.tool_calls is not iterable")', async () => {
    server().reply({ kind: 'sse', frames: [{ data: roleChunk() }, { data: chunk({ tool_calls: { a: 1 } as never }) }, { data: chunk({ content: 'Hi' }) }, { data: finishChunk('stop') }] });
    const out = await events(provider().chat('gpt-4.1-mini').stream(request));
    expect(out.filter((event) => event.type === 'error')).toEqual([]);
    expect(out.filter((event) => event.type === 'text-delta')).toEqual([{ type: 'text-delta', delta: 'Hi' }]);
  });

  it('gives a call whose id is not a string an id of its own, and reads a negative index as none', async () => {
    server().reply({
      kind: 'sse',
      frames: [
        { data: roleChunk() },
        { data: chunk({ tool_calls: [{ index: -1, id: { a: 1 } as never, type: 'function', function: { name: 'f', arguments: '{"a":' } }] }) },
        { data: chunk({ tool_calls: [{ index: -1, function: { arguments: '1}' } }] }) },
        { data: finishChunk('tool_calls') },
      ],
    });
    const out = await events(provider().chat('gpt-4.1-mini').stream(request));
    const start = out.find((event) => event.type === 'tool-call-start');
    expect(start?.type === 'tool-call-start' && typeof start.id).toBe('string');
    const calls = out.flatMap((event) => (event.type === 'tool-call' ? [event.toolCall] : []));
    expect(calls).toEqual([{ id: start?.type === 'tool-call-start' ? start.id : '', name: 'f', arguments: { a: 1 } }]);
  });

  it('ignores `choices` that is not a list and a finish reason that is not a string', async () => {
    server().reply({ kind: 'sse', frames: [{ data: { ...roleChunk(), choices: { 0: 1 } } }, { data: { ...finishChunk('stop'), choices: [{ index: 0, delta: {}, finish_reason: 7 }] } }, { data: finishChunk('stop') }] });
    const out = await events(provider().chat('gpt-4.1-mini').stream(request));
    expect(out.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('leaves out a response id that is not a string (was: `responseId: []`)', async () => {
    server().reply({ kind: 'json', body: { ...completion({ content: 'Hello.' }), id: [], model: 5 } });
    const response = await provider().chat('gpt-4.1-mini').generate(request);
    expect(response.text).toBe('Hello.');
    expect(response).not.toHaveProperty('responseId');
    expect(response).not.toHaveProperty('modelId');
  });
});

describe('an upstream that echoes the API key', () => {
  it('redacts the key from the error and its cause (was: "300 <p>Bad token sk-…</p>")', async () => {
    server().reply({ kind: 'json', status: 401, body: { error: { message: `Incorrect API key provided: ${API_KEY}.`, type: 'invalid_request_error', code: 'invalid_api_key' } } });
    const error = await provider().chat('gpt-4.1-mini').generate(request).catch((e: unknown) => e);
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('Incorrect API key provided: [redacted].');
    for (let current: unknown = error; current instanceof Error; current = current.cause) {
      expect(current.message).not.toContain(API_KEY);
      expect(current.stack ?? '').not.toContain(API_KEY);
    }
  });

  it('redacts it from a Responses stream error, and from headers given as credentials', async () => {
    server().reply({ kind: 'json', status: 300, body: { error: { message: `Bad token ${API_KEY} and Bearer azure-key-0123456789` } } });
    const azure = createOpenAI({ baseURL: server().baseURL, apiKey: API_KEY, maxRetries: 0, headers: { 'api-key': 'azure-key-0123456789' } });
    const error = await collectStream(azure.responses('gpt-4.1-mini').stream(request)).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('Bad token [redacted] and Bearer [redacted]');
  });
});
