import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOllama } from '../src/index.ts';
import { startFakeOllama } from './fake-ollama.ts';
import type { FakeOllama } from './fake-ollama.ts';

let server: FakeOllama;
beforeAll(async () => {
  server = await startFakeOllama({
    'qwen3:0.6b': { capabilities: ['completion', 'tools', 'thinking'], reply: () => ({ content: '' }) },
    'smollm2:360m': { capabilities: ['completion'], reply: () => ({ content: '' }) },
    'llava:7b': { capabilities: ['completion', 'vision'], reply: () => ({ content: '' }) },
  });
});
afterAll(() => server.close());

const shows = () => server.requests.filter((r) => r.path === '/api/show').length;

describe('listModels', () => {
  it('lists installed models marked native or text tools from /api/tags and /api/show', async () => {
    const models = await createOllama({ host: server.host }).listModels();
    expect(models.map((m) => [m.name, m.nativeTools, m.thinking, m.vision])).toEqual([
      ['qwen3:0.6b', true, true, false],
      ['smollm2:360m', false, false, false],
      ['llava:7b', false, false, true],
    ]);
    expect(models[0]).toMatchObject({
      capabilities: ['completion', 'tools', 'thinking'],
      size: 522_653_767,
      digest: 'digest-of-qwen3:0.6b',
      family: 'qwen3',
      parameterSize: '751.63M',
      quantization: 'Q4_K_M',
    });
  });

  it('caches capabilities, shares them with chat(), and refreshes a model whose digest changed', async () => {
    const ollama = createOllama({ host: server.host });
    await ollama.listModels();
    const before = shows();
    await ollama.listModels();
    await ollama.chat('smollm2:360m', { textTools: 'auto' }).generate({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', name: 't', inputSchema: { type: 'object' } }],
    }).catch(() => undefined); // text tools are extract's; only the lookup count matters here
    expect(shows()).toBe(before);

    server.models.set('smollm2:360m', { capabilities: ['completion', 'tools'], digest: 'new-digest', reply: () => ({ content: '' }) });
    const models = await ollama.listModels();
    expect(shows()).toBe(before + 1);
    expect(models.find((m) => m.name === 'smollm2:360m')?.nativeTools).toBe(true);
  });

  it('stops with the abort when the signal fires', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await createOllama({ host: server.host }).listModels({ signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
  });
});
