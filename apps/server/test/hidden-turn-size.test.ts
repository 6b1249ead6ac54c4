// A mixed turn whose server half returns a large `value` (an MCP screenshot tool's image, a
// custom tool's structured data): the turn store keeps only what the model reads of it, and
// counts everything it keeps, in memory and in Redis.
import { randomBytes } from 'node:crypto';
import { defineTool, toolOutput } from '@toolwire/core';
import type { ChatModel, Message } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import type { ScriptedModel } from '@toolwire/core/testing';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ServerConfig } from '../src/index.ts';
import { startStatelessMcpServer } from './helpers/mcp-test-servers.ts';
import { startRedis } from './helpers/redis-server.ts';
import { startGateway } from './helpers/start-gateway.ts';

const started = await startRedis();
if ('skip' in started) console.warn(`[hidden-turn-size.test] Redis cases skipped: ${started.skip}`);
const redis = 'skip' in started ? undefined : started;

// 768 KiB of PNG bytes: 1 MiB of base64.
const IMAGE_BYTES = 768 * 1024;
const IMAGE_PLACEHOLDER = '[image: image/png, 768.0 KiB]';
const PAGE = 'https://example.com/checkout?step=2';

/** A custom tool whose model-facing text is short and whose value is 1 MiB. */
const snap = defineTool({
  name: 'snap',
  description: 'Takes a screenshot',
  parameters: z.object({ page: z.string() }),
  execute: () => toolOutput({ message: '[image/png]', value: { data: randomBytes(IMAGE_BYTES).toString('base64'), mimeType: 'image/png' } }),
});

let mcp: Awaited<ReturnType<typeof startStatelessMcpServer>>;
let inspector: Redis | undefined;
let prefixCount = 0;

beforeAll(async () => {
  mcp = await startStatelessMcpServer((server) => {
    server.registerTool('screenshot', { description: 'Takes a screenshot', inputSchema: { page: z.string() } }, () => ({
      content: [{ type: 'image', data: randomBytes(IMAGE_BYTES).toString('base64'), mimeType: 'image/png' }],
    }));
  });
  if (redis !== undefined) inspector = new Redis(redis.url);
});

afterAll(async () => {
  await mcp.close();
  inspector?.disconnect();
  await redis?.stop();
});

/** One mixed turn (server tool + `client_fn`), then the client's answer, through the official client; returns what the model read the second time. */
async function mixedTurn(options: { serverTool: string; state: 'memory' | 'redis'; prefix: string }): Promise<{ restored: Message[] }> {
  let script: ScriptedModel = createScriptedModel([]);
  const model: ChatModel = { provider: 'scripted', modelId: 'scripted', generate: (request) => script.generate(request), stream: (request) => script.stream(request) };
  const config: ServerConfig = {
    tools: { builtins: [] },
    extraTools: [snap],
    mcpServers: { shots: { url: mcp.url, allowPrivateNetwork: true } },
    ...(options.state === 'redis' && redis !== undefined ? { state: { redis: { url: redis.url, keyPrefix: options.prefix } } } : {}),
  };
  const { server, baseURL, origin } = await startGateway(model, config);
  try {
    // Redis connects in the background: wait until the gateway is ready.
    for (let i = 0; i < 200 && (await fetch(`${origin}/readyz`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
    script = createScriptedModel([
      { toolCalls: [{ name: options.serverTool, arguments: { page: PAGE } }, { name: 'client_fn', arguments: { x: 1 } }] },
      { text: 'done' },
    ]);
    const openai = new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0 });
    const tools: ChatCompletionTool[] = [
      { type: 'function', function: { name: options.serverTool } },
      { type: 'function', function: { name: 'client_fn', parameters: { type: 'object', properties: { x: { type: 'number' } } } } },
    ];
    const question: ChatCompletionMessageParam = { role: 'user', content: 'look at the page' };
    const first = await openai.chat.completions.create({ model: 'test/scripted', messages: [question], tools });
    const calls = first.choices[0]?.message.tool_calls ?? [];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(calls.map((call) => (call.type === 'function' ? call.function.name : call.type))).toEqual(['client_fn']);

    const second = await openai.chat.completions.create({
      model: 'test/scripted',
      tools,
      messages: [question, { role: 'assistant', content: null, tool_calls: calls }, { role: 'tool', tool_call_id: calls[0]?.id ?? '', content: 'x is done' }],
    });
    expect(second.choices[0]?.message.content).toBe('done');
    return { restored: script.requests[1]?.messages ?? [] };
  } finally {
    await server.close();
  }
}

const cases = [
  { serverTool: 'shots_screenshot', what: 'an MCP tool returning an image', content: IMAGE_PLACEHOLDER },
  { serverTool: 'snap', what: 'a custom tool returning a 1 MiB value', content: '[image/png]' },
];

for (const { serverTool, what, content } of cases) {
  describe(`a mixed turn with ${what}`, () => {
    it('keeps only what the model reads of the result in memory, and the model sees the whole turn', async () => {
      const { restored } = await mixedTurn({ serverTool, state: 'memory', prefix: '' });
      expect(restored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
      expect(restored[1]).toMatchObject({ toolCalls: [{ name: serverTool, arguments: { page: PAGE } }, { name: 'client_fn', arguments: { x: 1 } }] });
      // What came back from the store: the text, not the result with its megabyte of value.
      expect(restored[2]).toEqual({ role: 'tool', toolCallId: expect.any(String) as string, toolName: serverTool, content });
    }, 30_000);

    it.runIf(redis !== undefined)('stores only what the model reads in Redis, and counts every byte it stores', async () => {
      prefixCount++;
      const prefix = `size${prefixCount}:`;
      const { restored } = await mixedTurn({ serverTool, state: 'redis', prefix });
      expect(restored[2]).toEqual({ role: 'tool', toolCallId: expect.any(String) as string, toolName: serverTool, content });
      const redisClient = inspector as Redis;
      const [turnKey] = (await redisClient.keys(`${prefix}{turns}:*`)).filter((key) => !/:(index|sizes|total)$/.test(key));
      expect(turnKey).toBeDefined();
      const stored = (await redisClient.get(turnKey ?? '')) ?? '';
      expect(stored).toContain(content);
      expect(stored).toContain(PAGE);
      const bytes = await redisClient.strlen(turnKey ?? '');
      expect(bytes).toBeLessThan(1000);
      expect(Number(await redisClient.get(`${prefix}{turns}:total`))).toBe(bytes);
    }, 30_000);
  });
}
