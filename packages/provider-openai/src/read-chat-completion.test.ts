import { ProviderError } from '@toolwire/core';
import { APIError, RateLimitError } from 'openai';
import { describe, expect, it } from 'vitest';
import { readChatCompletion } from './read-chat-completion.ts';

const completion = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [] };

describe('readChatCompletion', () => {
  it('parses a JSON body, whatever the media type parameters', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/vnd.example+json']) {
      const response = new Response(JSON.stringify(completion), { headers: { 'content-type': type } });
      expect(await readChatCompletion(response)).toEqual(completion);
    }
  });

  it('refuses a body that is not JSON with a ProviderError that says what came back', async () => {
    const error = await readChatCompletion(new Response('<html>login</html>', { headers: { 'content-type': 'text/html' } })).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('text/html');
    expect((error as Error).message).toContain('baseURL');
  });

  it('refuses an empty body', async () => {
    const error = await readChatCompletion(new Response('', { headers: { 'content-type': 'application/json' } })).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('an empty body');
  });

  it('refuses JSON that is not a chat completion with a ProviderError naming the field, and takes the shapes compatible servers send', async () => {
    const read = (body: unknown) => readChatCompletion(new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }));
    const refused: [unknown, string][] = [
      [{ hello: 'world' }, 'no `choices` array'],
      [[completion], 'not a JSON object'],
      ['text', 'not a JSON object'],
      [null, 'not a JSON object'],
      [{ ...completion, choices: [7] }, '`choices[0]` is not an object'],
      [{ ...completion, choices: [{ message: 'hi' }] }, '`choices[0].message` is not an object'],
      [{ ...completion, choices: [{ message: { content: 7 } }] }, '`choices[0].message.content`'],
      [{ ...completion, choices: [{ message: { refusal: 1 } }] }, '`choices[0].message.refusal`'],
      [{ ...completion, choices: [{ message: { tool_calls: {} } }] }, '`choices[0].message.tool_calls` is not an array'],
      [{ ...completion, choices: [{ message: { tool_calls: [{ type: 'function', function: { arguments: '{}' } }] } }] }, '`choices[0].message.tool_calls[0]`'],
      [{ ...completion, choices: [{ message: { tool_calls: [{ type: 'custom' }] } }] }, '`choices[0].message.tool_calls[0]`'],
      [{ ...completion, choices: [{ message: { tool_calls: [null] } }] }, '`choices[0].message.tool_calls[0]`'],
    ];
    for (const [body, problem] of refused) {
      const error = await read(body).catch((e: unknown) => e);
      expect(ProviderError.isInstance(error), JSON.stringify(body)).toBe(true);
      expect((error as Error).message).toContain(problem);
      expect((error as Error).message).toContain('baseURL');
    }
    const taken = [
      completion,
      { ...completion, choices: [{ index: 0, finish_reason: 'stop' }] },
      { ...completion, choices: [{ message: null }] },
      { ...completion, choices: [{ message: { content: null, tool_calls: null } }] },
      // llama.cpp once sent `arguments` as an object; some servers leave out `type` and `id`.
      { ...completion, choices: [{ message: { tool_calls: [{ function: { name: 'f', arguments: { a: 1 } } }] } }] },
      { ...completion, choices: [{ message: { tool_calls: [{ type: 'custom', custom: { name: 'c', input: 'x' } }] } }] },
      // Mistral's reasoning models: content as a list of parts; an id that is not a string is replaced later.
      { ...completion, choices: [{ message: { content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hmm' }] }, { type: 'text', text: '4' }] } }] },
      { ...completion, choices: [{ message: { tool_calls: [{ id: 7, type: 'function', function: { name: 'f', arguments: '{}' } }] } }] },
    ];
    for (const body of taken) expect(await read(body)).toEqual(body);
  });

  it("throws the SDK's error for an error sent in a 200, with the status its code gives (OpenRouter)", async () => {
    const read = (body: unknown) => readChatCompletion(new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'x-request-id': 'req_1' } })).catch((e: unknown) => e);
    const limited = await read({ error: { message: 'Rate limit exceeded: free-models-per-day', code: 429, metadata: { provider_name: 'x' } } });
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).status).toBe(429);
    expect((limited as Error).message).toContain('free-models-per-day');
    // With choices beside it (finish_reason "error"): still the error, not an empty answer.
    const failed = await read({ error: { message: 'Upstream provider failed', code: 'provider_error' }, choices: [{ finish_reason: 'error', message: { content: null } }] });
    expect(failed).toBeInstanceOf(APIError);
    expect((failed as APIError).status).toBeUndefined();
    expect((failed as Error).message).toContain('Upstream provider failed');
    expect(await read({ ...completion, error: null })).toEqual({ ...completion, error: null });
  });

  it("throws the parser's SyntaxError for broken JSON, as the SDK's parse did", async () => {
    await expect(readChatCompletion(new Response('{"id": "chatcmpl-1", "choices": [', { headers: { 'content-type': 'application/json' } }))).rejects.toThrow(SyntaxError);
  });
});
