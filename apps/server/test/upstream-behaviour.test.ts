import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayBin } from './helpers/gateway-bin.ts';
import type { GatewayBin } from './helpers/gateway-bin.ts';
import { startPacedUpstream } from './helpers/misbehaving-upstream.ts';
import type { PacedUpstream, UpstreamBehaviour } from './helpers/misbehaving-upstream.ts';

// The gateway runs as its own process (the real bin): an exception outside a request's
// error path would kill it, and every later request would fail to connect.
let upstream: PacedUpstream;
let gateway: GatewayBin;
let openai: OpenAI;

beforeAll(async () => {
  upstream = await startPacedUpstream({ pauseMs: 30 });
  gateway = await startGatewayBin({
    config: { providers: { openai: { baseURL: `${upstream.url}/v1` } }, limits: { upstreamIdleTimeoutMs: 1500 }, logLevel: 'info' },
    env: { OPENAI_API_KEY: 'sk-upstream' },
  });
  openai = new OpenAI({ apiKey: 'unused', baseURL: gateway.baseURL, maxRetries: 0 });
}, 30_000);

afterAll(async () => {
  await gateway.stop();
  await upstream.close();
});

async function streamOf(behaviour: UpstreamBehaviour, includeUsage = true): Promise<{ chunks: ChatCompletionChunk[]; error?: Error }> {
  const chunks: ChatCompletionChunk[] = [];
  try {
    const stream = await openai.chat.completions.create({
      model: `openai/${behaviour}`,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
    });
    for await (const chunk of stream) chunks.push(chunk);
    return { chunks };
  } catch (error) {
    return { chunks, error: error as Error };
  }
}

const textOf = (chunks: ChatCompletionChunk[]): string => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');

/** The gateway is alive, answers the next request normally, and logged no uncaught error. */
async function expectGatewayServes(): Promise<void> {
  expect(gateway.child.exitCode).toBeNull();
  const { chunks, error } = await streamOf('usage-chunk');
  expect(error).toBeUndefined();
  expect(textOf(chunks)).toBe('Hello there.');
  const completion = await openai.chat.completions.create({ model: 'openai/usage-chunk', messages: [{ role: 'user', content: 'hi' }] });
  expect(completion.choices[0]?.message.content).toBe('Hello there.');
  expect(gateway.logs.filter((entry) => entry.msg?.includes('uncaught') === true)).toEqual([]);
}

describe('an upstream that paces its events', () => {
  it('passes a separate usage chunk through', async () => {
    const { chunks, error } = await streamOf('usage-chunk');
    expect(error).toBeUndefined();
    expect(textOf(chunks)).toBe('Hello there.');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
    await expectGatewayServes();
  });

  it('sends no invented usage chunk when the upstream sends no usage (and survives the SDK cancelling at [DONE])', async () => {
    for (let i = 0; i < 3; i++) {
      const { chunks, error } = await streamOf('no-usage');
      expect(error).toBeUndefined();
      expect(textOf(chunks)).toBe('Hello there.');
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
      expect(chunks.filter((c) => c.usage !== null && c.usage !== undefined)).toEqual([]);
    }
    const completion = await openai.chat.completions.create({ model: 'openai/no-usage', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.usage).toBeUndefined();
    await expectGatewayServes();
  });

  it('passes usage sent on the finish chunk through', async () => {
    const { chunks, error } = await streamOf('usage-on-finish');
    expect(error).toBeUndefined();
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
    const plain = await streamOf('usage-on-finish', false);
    expect(plain.chunks.some((c) => c.usage !== undefined && c.usage !== null)).toBe(false);
    await expectGatewayServes();
  });

  it('survives a long pause mid-answer', async () => {
    const { chunks, error } = await streamOf('pause');
    expect(error).toBeUndefined();
    expect(textOf(chunks)).toBe('Hello there.');
    await expectGatewayServes();
  });

  it('reads an answer trickled one byte at a time', async () => {
    const { chunks, error } = await streamOf('trickle');
    expect(error).toBeUndefined();
    expect(textOf(chunks)).toBe('Hello there.');
    await expectGatewayServes();
  });

  it('skips comments, unknown fields and stray bytes between events', async () => {
    const { chunks, error } = await streamOf('garbage');
    expect(error).toBeUndefined();
    expect(textOf(chunks)).toBe('Hello there.');
    await expectGatewayServes();
  });

  it('treats a body that ends after the finish chunk without [DONE] as complete', async () => {
    const { chunks, error } = await streamOf('no-done');
    expect(error).toBeUndefined();
    expect(textOf(chunks)).toBe('Hello there.');
    await expectGatewayServes();
  });
});

describe('an upstream that fails mid-stream', () => {
  const failures: [UpstreamBehaviour, string][] = [
    ['reset', 'a connection reset'],
    ['cut', 'a body that ends without a finish chunk or [DONE]'],
    ['invalid-json', 'an event whose JSON is broken'],
    ['stall', 'silence past the idle timeout'],
  ];
  for (const [behaviour, what] of failures) {
    it(`ends only that request with an error frame after ${what}`, async () => {
      const { chunks, error } = await streamOf(behaviour);
      // The text before the failure arrived; then the SDK raised the error frame.
      expect(textOf(chunks).startsWith('Hello')).toBe(true);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error?.message.length).toBeGreaterThan(0);
      await expectGatewayServes();
    });
  }

  const envelopes: [UpstreamBehaviour, string][] = [
    ['reset', 'a reset before any response'],
    ['invalid-json', 'a body that is not JSON'],
    ['stall', 'no response within the idle timeout'],
  ];
  for (const [behaviour, what] of envelopes) {
    it(`answers a non-streamed request with an error envelope after ${what}`, async () => {
      const failure = await openai.chat.completions.create({ model: `openai/${behaviour}`, messages: [{ role: 'user', content: 'hi' }] }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(OpenAI.APIError);
      expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(500);
      await expectGatewayServes();
    });
  }

  it('survives a client that leaves mid-stream while the upstream is still pacing', async () => {
    const stream = await openai.chat.completions.create({ model: 'openai/pause', messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content === 'Hello') break;
    }
    await expectGatewayServes();
  });

  it('survives every behaviour at once, several times over', async () => {
    const behaviours: UpstreamBehaviour[] = ['usage-chunk', 'no-usage', 'usage-on-finish', 'tool-call', 'reset', 'no-done', 'cut', 'garbage', 'invalid-json', 'trickle', 'pause'];
    const outcomes = await Promise.all([...behaviours, ...behaviours, ...behaviours].map((b) => streamOf(b)));
    const failed = outcomes.filter((o) => o.error !== undefined).length;
    // reset, cut and invalid-json fail, three times each; everything else answers.
    expect(failed).toBe(9);
    await expectGatewayServes();
  });

  it('leaves no upstream request open', async () => {
    for (let i = 0; i < 100 && upstream.open > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(upstream.open).toBe(0);
  });
});

describe('a tool-call turn', () => {
  it('starts with content null, as OpenAI sends it', async () => {
    const stream = await openai.chat.completions.create({
      model: 'openai/tool-call',
      messages: [{ role: 'user', content: 'find x' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }],
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const first = chunks[0]?.choices[0]?.delta;
    expect(first?.role).toBe('assistant');
    expect(first?.content).toBeNull();
    expect(chunks.some((c) => c.choices[0]?.delta.content === '')).toBe(false);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
    await expectGatewayServes();
  });
});
