import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { completion } from './chat-wire.ts';
import { useOpenAITestServer } from './openai-test-server.ts';

const server = useOpenAITestServer();
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('createOpenAI', () => {
  it('reads OPENAI_API_KEY and OPENAI_BASE_URL when no options are given', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    vi.stubEnv('OPENAI_BASE_URL', server().baseURL);
    const openai = createOpenAI({ maxRetries: 0 });
    expect(openai.baseURL).toBe(server().baseURL);
    server().reply({ kind: 'json', body: completion({ content: 'ok' }) });
    await openai.chat('m').generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(server().requests[0]?.headers.authorization).toBe('Bearer sk-from-env');
  });

  it('sends organization, provider headers and request headers', async () => {
    const openai = createOpenAI({ baseURL: `${server().baseURL}/`, apiKey: 'sk-test', organization: 'org-123', headers: { 'x-team': 'tools' }, maxRetries: 0 });
    expect(openai.baseURL).toBe(server().baseURL);
    server().reply({ kind: 'json', body: completion({ content: 'ok' }) });
    await openai.chat('m').generate({ messages: [{ role: 'user', content: 'x' }], headers: { 'x-request-tag': 'abc' } });
    const headers = server().requests[0]?.headers;
    expect(headers?.['openai-organization']).toBe('org-123');
    expect(headers?.['x-team']).toBe('tools');
    expect(headers?.['x-request-tag']).toBe('abc');
  });

  it('needs no key for a compatible server', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    server().reply({ kind: 'json', body: completion({ content: 'ok' }) });
    const response = await createOpenAI({ baseURL: server().baseURL, maxRetries: 0 }).chat('llama3.2').generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.text).toBe('ok');
  });

  it('uses max_tokens against compatible servers and the setting when given', async () => {
    const openai = createOpenAI({ baseURL: server().baseURL, apiKey: 'k', maxRetries: 0 });
    server().reply({ kind: 'json', body: completion({ content: 'ok' }) }, { kind: 'json', body: completion({ content: 'ok' }) });
    await openai.chat('m').generate({ messages: [], maxOutputTokens: 10 });
    await openai.chat('m', { maxTokensParameter: 'max_completion_tokens', systemMessageMode: 'developer' }).generate({
      messages: [{ role: 'system', content: 's' }],
      maxOutputTokens: 10,
    });
    expect(server().requests[0]?.body).toMatchObject({ max_tokens: 10 });
    expect(server().requests[1]?.body).toMatchObject({ max_completion_tokens: 10, messages: [{ role: 'developer', content: 's' }] });
  });

  it('lists models through the SDK', async () => {
    server().reply({
      kind: 'json',
      body: {
        object: 'list',
        data: [
          { id: 'gpt-4.1-mini', object: 'model', created: 1_744_318_173, owned_by: 'system' },
          { id: 'gpt-5-nano', object: 'model', created: 1_754_426_303, owned_by: 'system' },
        ],
      },
    });
    const models = await createOpenAI({ baseURL: server().baseURL, apiKey: 'k', maxRetries: 0 }).listModels();
    expect(models).toEqual([
      { id: 'gpt-4.1-mini', ownedBy: 'system', created: 1_744_318_173 },
      { id: 'gpt-5-nano', ownedBy: 'system', created: 1_754_426_303 },
    ]);
    expect(server().requests[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
  });
});
