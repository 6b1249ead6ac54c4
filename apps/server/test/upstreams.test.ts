import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startFakeOllama, startFakeOpenAI } from './helpers/fake-upstreams.ts';
import type { FakeUpstream, UpstreamReply } from './helpers/fake-upstreams.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

/** Answers with calls on the first turn and with text once a tool result is in the history. */
function twoTurns(calls: { name: string; arguments: Record<string, unknown> }[], final: string) {
  return (body: Record<string, unknown>): UpstreamReply => {
    const messages = body.messages as { role: string; content?: unknown }[];
    return messages.at(-1)?.role === 'tool' ? { text: `${final} (${String(messages.at(-1)?.content)})` } : { toolCalls: calls };
  };
}

async function gateway(upstreams: { openai?: FakeUpstream; ollama?: FakeUpstream }): Promise<{ openai: OpenAI; baseURL: string; server: ToolwireServer }> {
  const server = createServer({
    logger: pino({ level: 'silent' }),
    providers: {
      ...(upstreams.openai ? { openai: { apiKey: 'sk-upstream', baseURL: `${upstreams.openai.url}/v1` } } : {}),
      ...(upstreams.ollama ? { ollama: { host: upstreams.ollama.url } } : {}),
    },
  });
  const baseURL = await server.listen({ port: 0 });
  closers.push(() => server.close());
  return { openai: new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0 }), baseURL, server };
}

async function upstream(kind: 'openai' | 'ollama', reply: (body: Record<string, unknown>) => UpstreamReply): Promise<FakeUpstream> {
  const fake = kind === 'openai' ? await startFakeOpenAI(reply) : await startFakeOllama(reply);
  closers.push(() => fake.close());
  return fake;
}

const lookup = { type: 'function' as const, function: { name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } };

/** Reads two chunks of a slow stream, disconnects, and checks the upstream request was aborted. */
async function expectDisconnectAbortsUpstream(kind: 'openai' | 'ollama', model: string): Promise<void> {
  const fake = await upstream(kind, () => ({ slowText: 'x'.repeat(200), delayMs: 10 }));
  const { baseURL } = await gateway({ [kind]: fake });
  const controller = new AbortController();
  const res = await fetch(`${baseURL}/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'talk' }], stream: true }),
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  await reader.read();
  await reader.read();
  controller.abort();
  for (let i = 0; i < 100 && fake.open > 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(fake.open).toBe(0);
  expect(fake.abortedRequests).toBe(1);
}

describe('the gateway against a local OpenAI-format upstream', () => {
  it('passes client tool calls through, non-streaming', async () => {
    const fake = await upstream('openai', () => ({ toolCalls: [{ name: 'lookup', arguments: { q: 'toolwire' } }] }));
    const { openai } = await gateway({ openai: fake });
    const completion = await openai.chat.completions.create({ model: 'openai/gpt-fake', messages: [{ role: 'user', content: 'find it' }], tools: [lookup] });
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'lookup', arguments: '{"q":"toolwire"}' } });
    expect(fake.requests[0]).toMatchObject({ model: 'gpt-fake', tools: [{ type: 'function', function: { name: 'lookup' } }] });
  });

  it('runs a server tool in the loop and streams the final answer', async () => {
    const fake = await upstream('openai', twoTurns([{ name: 'calculate', arguments: { expression: '2^10' } }], 'It is 1024'));
    const { openai } = await gateway({ openai: fake });
    const stream = openai.chat.completions.stream({ model: 'openai/gpt-fake', messages: [{ role: 'user', content: '2^10?' }], tools: [{ type: 'function', function: { name: 'calculate' } }] });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.content).toContain('It is 1024');
    expect(final.choices[0]?.message.content).toContain('"result":"1024"');
    expect(final.choices[0]?.message.tool_calls ?? []).toEqual([]);
    expect(fake.requests).toHaveLength(2);
  });

  it('lists the upstream models with the prefix', async () => {
    const fake = await upstream('openai', () => ({ text: 'x' }));
    const ollama = await upstream('ollama', () => ({ text: 'x' }));
    const { openai } = await gateway({ openai: fake, ollama });
    const ids = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids.sort()).toEqual(['ollama/native', 'ollama/text', 'openai/gpt-fake']);
  });

  it('aborts the upstream request when the client disconnects mid-stream', async () => {
    await expectDisconnectAbortsUpstream('openai', 'openai/gpt-fake');
  });

  for (const stream of [false, true]) {
    it(`aborts the upstream request, with no retry, when the client leaves before the upstream answers (${stream ? 'streaming' : 'non-streaming'})`, async () => {
      // An upstream that takes the request and never answers.
      let received = 0;
      let cut!: () => void;
      const closed = new Promise<void>((resolve) => (cut = resolve));
      const held = createHttpServer((req, res) => {
        received++;
        req.resume();
        res.on('close', () => {
          if (!res.writableFinished) cut();
        });
      });
      await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
      closers.push(() => {
        held.closeAllConnections();
        return new Promise((resolve) => held.close(() => resolve()));
      });
      const { baseURL } = await gateway({ openai: { url: `http://127.0.0.1:${(held.address() as AddressInfo).port}` } as FakeUpstream });
      const controller = new AbortController();
      const pending = fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'openai/gpt-fake', messages: [{ role: 'user', content: 'talk' }], stream }),
        signal: controller.signal,
      }).catch(() => 'left');
      while (received === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort();
      expect(await pending).toBe('left');
      await closed;
      // Past the SDK's first retry delay (at most 0.5 s): the upstream saw no second request.
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(received).toBe(1);
    });
  }
});

describe('the gateway against a local Ollama upstream', () => {
  it('returns native tool calls with JSON string arguments and call_ ids', async () => {
    const fake = await upstream('ollama', () => ({ toolCalls: [{ name: 'lookup', arguments: { q: 'llamas' } }] }));
    const { openai } = await gateway({ ollama: fake });
    const completion = await openai.chat.completions.create({ model: 'ollama/native', messages: [{ role: 'user', content: 'find' }], tools: [lookup] });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.id).toMatch(/^call_/);
    expect(call).toMatchObject({ function: { name: 'lookup', arguments: '{"q":"llamas"}' } });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('enforces parallel_tool_calls: false although Ollama ignores it', async () => {
    const fake = await upstream('ollama', () => ({
      toolCalls: [
        { name: 'lookup', arguments: { q: 'a' } },
        { name: 'lookup', arguments: { q: 'b' } },
      ],
    }));
    const { openai } = await gateway({ ollama: fake });
    const stream = openai.chat.completions.stream({ model: 'ollama/native', messages: [{ role: 'user', content: 'find' }], tools: [lookup], parallel_tool_calls: false });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls).toHaveLength(1);
  });

  it('enforces tool_choice none although Ollama ignores it', async () => {
    const fake = await upstream('ollama', (body) => (body.tools === undefined ? { text: 'no tools offered' } : { toolCalls: [{ name: 'lookup', arguments: { q: 'a' } }] }));
    const { openai } = await gateway({ ollama: fake });
    const completion = await openai.chat.completions.create({ model: 'ollama/native', messages: [{ role: 'user', content: 'find' }], tools: [lookup], tool_choice: 'none' });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(completion.choices[0]?.message.content).toBe('no tools offered');
  });

  it('gives a model without native tools tool calling from its text', async () => {
    const fake = await upstream('ollama', () => ({ text: 'lookup(q="text tools")' }));
    const { openai } = await gateway({ ollama: fake });
    const stream = openai.chat.completions.stream({ model: 'ollama/text', messages: [{ role: 'user', content: 'find' }], tools: [lookup] });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'lookup', arguments: '{"q":"text tools"}' } });
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('aborts the upstream request when the client disconnects mid-stream', async () => {
    await expectDisconnectAbortsUpstream('ollama', 'ollama/native');
  });
});

describe('an unreachable upstream', () => {
  for (const kind of ['openai', 'ollama'] as const) {
    it(`answers 503 in the envelope when the ${kind} upstream refuses connections`, async () => {
      // A port that was just free: nothing listens there.
      const fake = await (kind === 'openai' ? startFakeOpenAI : startFakeOllama)(() => ({ text: 'x' }));
      await fake.close();
      const server = createServer({
        logger: pino({ level: 'silent' }),
        providers: kind === 'openai' ? { openai: { apiKey: 'sk-x', baseURL: `${fake.url}/v1` } } : { ollama: { host: fake.url } },
      });
      const baseURL = await server.listen({ port: 0 });
      closers.push(() => server.close());
      const res = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: `${kind}/${kind === 'openai' ? 'gpt-fake' : 'native'}`, messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { code: 'upstream_unavailable' } });
    });
  }
});
