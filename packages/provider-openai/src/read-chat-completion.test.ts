import { ProviderError } from '@toolwire/core';
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

  it("throws the parser's SyntaxError for broken JSON, as the SDK's parse did", async () => {
    await expect(readChatCompletion(new Response('{"id": "chatcmpl-1", "choices": [', { headers: { 'content-type': 'application/json' } }))).rejects.toThrow(SyntaxError);
  });
});
