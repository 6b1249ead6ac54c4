import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayBin } from './helpers/gateway-bin.ts';
import type { GatewayBin } from './helpers/gateway-bin.ts';
import { OPENAI_MODEL, startPacedUpstream } from './helpers/paced-upstream.ts';
import type { PacedUpstream, ScriptedTurn } from './helpers/paced-upstream.ts';

// The gateway runs as its own process (the real bin): an exception outside a request's
// error path would kill it, and every later request would fail to connect.
let upstream: PacedUpstream;
let gateway: GatewayBin;
let openai: OpenAI;

const HELLO = 'Hello there.';

/** How the upstream answers, picked by the user message of the request (so concurrent requests can differ). */
const BEHAVIOURS = {
  /** Text, the finish chunk, a separate `choices: []` usage chunk, `[DONE]`. */
  'usage-chunk': { text: HELLO },
  /** Text, the finish chunk, `[DONE]`: no usage at all. */
  'no-usage': { text: HELLO, usage: 'none' },
  /** Text, then `usage` on the finish chunk itself (several compatible servers), `[DONE]`. */
  'usage-on-finish': { text: HELLO, usage: 'finish' },
  /** A tool call (header then argument fragments), finish `tool_calls`, usage, `[DONE]`. */
  'tool-call': { toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] },
  /** A few text events, then the TCP connection is reset. */
  reset: { text: HELLO, ending: 'reset' },
  /** The TCP connection is reset before any response. */
  'reset-at-once': { text: HELLO, ending: 'reset-at-once' },
  /** Text and the finish chunk, then the body ends without `[DONE]`. */
  'no-done': { text: HELLO, ending: 'no-done' },
  /** A few text events, then the body ends: no finish chunk, no `[DONE]` (not streamed: half a JSON body). */
  cut: { text: HELLO, ending: 'cut' },
  /** Comment lines, lines without a colon, bare `id:` and `retry:` fields and stray bytes between valid events. */
  garbage: { text: HELLO, noise: 'junk' },
  /** A data event whose JSON is broken, mid-stream (not streamed: a body that is not JSON). */
  'invalid-json': { text: HELLO, ending: 'garbage' },
  /** Not streamed: a 200 whose JSON is not a chat completion (`choices` is not an array). */
  'wrong-shape': { text: HELLO, ending: 'wrong-shape' },
  /** The whole answer written one byte at a time. */
  trickle: { text: HELLO, trickle: 'bytes' },
  /** A few events, then silence (the gateway's idle timeout must cut it). */
  stall: { text: HELLO, ending: 'stall' },
  /** A few events, then an error object mid-stream (`data: {"error": …}`), as OpenAI sends one. */
  'error-payload': { text: HELLO, ending: 'error' },
  /** A long pause (400 ms) mid-answer, then the rest. */
  pause: { text: HELLO, midPauseMs: 400 },
} satisfies Record<string, ScriptedTurn>;

type UpstreamBehaviour = keyof typeof BEHAVIOURS;

beforeAll(async () => {
  upstream = await startPacedUpstream({
    pauseMs: 30,
    script: (request) => {
      const behaviour = request.messages.at(-1)?.content ?? '';
      if (!Object.hasOwn(BEHAVIOURS, behaviour)) throw new Error(`no upstream behaviour named "${behaviour}"`);
      return BEHAVIOURS[behaviour as UpstreamBehaviour];
    },
  });
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
      model: MODEL,
      messages: [{ role: 'user', content: behaviour }],
      stream: true,
      ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
    });
    for await (const chunk of stream) chunks.push(chunk);
    return { chunks };
  } catch (error) {
    return { chunks, error: error as Error };
  }
}

const MODEL = `openai/${OPENAI_MODEL}`;

const textOf = (chunks: ChatCompletionChunk[]): string => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');

/** The gateway is alive, answers the next request normally, and logged no uncaught error. */
async function expectGatewayServes(): Promise<void> {
  expect(gateway.child.exitCode).toBeNull();
  const { chunks, error } = await streamOf('usage-chunk');
  expect(error).toBeUndefined();
  expect(textOf(chunks)).toBe('Hello there.');
  const completion = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'usage-chunk' }] });
  expect(completion.choices[0]?.message.content).toBe('Hello there.');
  expect(gateway.logs.filter((entry) => entry.msg?.includes('uncaught') === true)).toEqual([]);
}

describe('an upstream that paces its events', () => {
  it('passes a separate usage chunk through', async () => {
    const { chunks, error } = await streamOf('usage-chunk');
    expect(error).toBeUndefined();
    expect(textOf(chunks)).toBe('Hello there.');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 57, completion_tokens: 17, total_tokens: 74 } });
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
    const completion = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'no-usage' }] });
    expect(completion.usage).toBeUndefined();
    await expectGatewayServes();
  });

  it('passes usage sent on the finish chunk through', async () => {
    const { chunks, error } = await streamOf('usage-on-finish');
    expect(error).toBeUndefined();
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 57, completion_tokens: 17, total_tokens: 74 } });
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
    ['error-payload', 'an error object in the stream'],
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

  it("passes the upstream's message of an error object in the stream on in the error frame", async () => {
    const { error } = await streamOf('error-payload');
    expect(error?.message).toContain('The server had an error while processing your request.');
  });

  const envelopes: [UpstreamBehaviour, string][] = [
    ['reset-at-once', 'a reset before any response'],
    ['reset', 'a reset halfway through the body'],
    ['invalid-json', 'a body that is not JSON'],
    ['stall', 'no response within the idle timeout'],
    ['wrong-shape', 'JSON that is not a chat completion'],
  ];
  for (const [behaviour, what] of envelopes) {
    it(`answers a non-streamed request with an error envelope after ${what}`, async () => {
      const failure = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: behaviour }] }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(OpenAI.APIError);
      expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(500);
      await expectGatewayServes();
    });
  }

  it('answers JSON that is not a chat completion with a 502 that says so, not a 500', async () => {
    const failure = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'wrong-shape' }] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    const error = failure as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(502);
    expect(error.type).toBe('upstream_error');
    expect(error.message).toContain('not a chat completion');
    expect(error.message).toContain('`choices` array');
  });

  it('survives a client that leaves mid-stream while the upstream is still pacing', async () => {
    const stream = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'pause' }], stream: true });
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (text.startsWith('Hello')) break;
    }
    expect(text).not.toBe(HELLO);
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
    for (let i = 0; i < 100 && upstream.inFlight > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(upstream.inFlight).toBe(0);
  });
});

describe('a tool-call turn', () => {
  it('starts with content null, as OpenAI sends it', async () => {
    const stream = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'tool-call' }],
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

describe('the same upstreams behind POST /v1/responses', () => {
  async function responsesStreamOf(behaviour: UpstreamBehaviour): Promise<{ text: string; types: string[]; response?: OpenAI.Responses.Response; error?: Error }> {
    let text = '';
    const types: string[] = [];
    const stream = openai.responses.stream({ model: MODEL, input: behaviour, store: false });
    stream.on('event', (event) => types.push(event.type));
    stream.on('response.output_text.delta', (event) => (text += event.delta));
    try {
      const response = await stream.finalResponse();
      return { text, types, response };
    } catch (error) {
      return { text, types, error: error as Error };
    }
  }

  for (const behaviour of ['usage-chunk', 'no-usage', 'usage-on-finish', 'no-done', 'garbage', 'trickle', 'pause'] as const) {
    it(`completes a stream from an upstream with '${behaviour}', parsed by openai-node's stream helper`, async () => {
      const { text, response, error } = await responsesStreamOf(behaviour);
      expect(error).toBeUndefined();
      expect(text).toBe('Hello there.');
      expect(response).toMatchObject({ status: 'completed', output_text: 'Hello there.' });
      // No usage is invented when the upstream sent none.
      if (behaviour === 'no-usage') expect(response?.usage ?? null).toBeNull();
      else if (behaviour !== 'no-done' && behaviour !== 'garbage' && behaviour !== 'pause') expect(response?.usage).toMatchObject({ input_tokens: 57, output_tokens: 17, total_tokens: 74 });
      await expectGatewayServes();
    });
  }

  for (const behaviour of ['reset', 'cut', 'invalid-json', 'stall'] as const) {
    it(`ends only that response with an error event and response.failed after '${behaviour}'`, async () => {
      const { text, error } = await responsesStreamOf(behaviour);
      expect(text.startsWith('Hello')).toBe(true);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      // The raw stream: the error event, then response.failed, then the end.
      const raw = await fetch(`${gateway.baseURL}/responses`, { method: 'POST', body: JSON.stringify({ model: MODEL, input: behaviour, stream: true }) });
      const events = (await raw.text()).split('\n').filter((line) => line.startsWith('event: ')).map((line) => line.slice(7));
      expect(events.slice(-2)).toEqual(['error', 'response.failed']);
      await expectGatewayServes();
    });
  }

  it('answers a non-streamed request with an error envelope after a reset', async () => {
    const failure = await openai.responses.create({ model: MODEL, input: 'reset-at-once' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(500);
    await expectGatewayServes();
  });

  it('streams a tool call as a function_call item', async () => {
    const stream = openai.responses.stream({
      model: MODEL,
      input: 'tool-call',
      tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }],
    });
    const response = await stream.finalResponse();
    expect(response.output.find((item) => item.type === 'function_call')).toMatchObject({ name: 'lookup', status: 'completed' });
    await expectGatewayServes();
  });

  it('leaves no upstream request open', async () => {
    for (let i = 0; i < 100 && upstream.inFlight > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(upstream.inFlight).toBe(0);
  });
});
