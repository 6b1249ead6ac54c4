import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ScriptedTurn } from '../helpers/paced-upstream.ts';
import { MODEL_PATHS, useClientSuite, weatherParameters } from './client-suite.ts';
import type { ModelPathKind } from './client-suite.ts';

// Nothing an upstream sends or does may take the gateway down: after each of these
// streams the gateway process is alive, answers /healthz (checked after every test by the
// suite) and serves the next request.
const suite = useClientSuite();

/** How a client stream must end: a whole answer, an error frame, or either (the upstream's answer is cut but may be usable). */
type Outcome = 'complete' | 'error' | 'either';

interface Behaviour {
  name: string;
  turn: Omit<ScriptedTurn, 'text' | 'toolCalls'>;
  outcome: Record<'openai' | 'ollama', Outcome>;
}

const BEHAVIOURS: Behaviour[] = [
  { name: 'paced events with a usage chunk', turn: { usage: 'chunk' }, outcome: { openai: 'complete', ollama: 'complete' } },
  { name: 'paced events without any usage', turn: { usage: 'none' }, outcome: { openai: 'complete', ollama: 'complete' } },
  { name: 'usage on the finish chunk', turn: { usage: 'finish' }, outcome: { openai: 'complete', ollama: 'complete' } },
  { name: 'SSE comments between the events', turn: { noise: true }, outcome: { openai: 'complete', ollama: 'complete' } },
  { name: 'events trickling in pieces split mid-line', turn: { trickle: true }, outcome: { openai: 'complete', ollama: 'complete' } },
  { name: 'paced events gzip-compressed unasked (a proxy), without usage', turn: { compress: 'gzip', usage: 'none' }, outcome: { openai: 'complete', ollama: 'complete' } },
  { name: 'gzip-compressed unasked, trickling mid-line, reset halfway', turn: { compress: 'gzip', trickle: true, ending: 'reset' }, outcome: { openai: 'error', ollama: 'error' } },
  { name: 'a body that ends without [DONE] / the done line', turn: { ending: 'no-done' }, outcome: { openai: 'either', ollama: 'either' } },
  { name: 'a body that ends cleanly halfway', turn: { ending: 'cut' }, outcome: { openai: 'either', ollama: 'either' } },
  { name: 'a connection reset mid-stream', turn: { ending: 'reset' }, outcome: { openai: 'error', ollama: 'error' } },
  { name: 'a line that is not JSON mid-stream', turn: { ending: 'garbage' }, outcome: { openai: 'either', ollama: 'either' } },
];

const weatherTool = { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: weatherParameters } };

interface ReadStream {
  frames: Record<string, unknown>[];
  content: string;
  callName: string;
  callArguments: string;
  finishReason: string | undefined;
  usage: Record<string, number> | undefined;
  error: { message: string } | undefined;
  endedWithDone: boolean;
  /** When the first tool-call delta arrived (ms since the epoch). */
  firstCallDeltaAt: number | undefined;
  /** Chunks that carried argument text. */
  argumentChunks: number;
}

/** Reads a chat.completion.chunk SSE stream frame by frame, noting when tool-call deltas arrive. */
async function readStream(res: Response): Promise<ReadStream> {
  const out: ReadStream = { frames: [], content: '', callName: '', callArguments: '', finishReason: undefined, usage: undefined, error: undefined, endedWithDone: false, firstCallDeltaAt: undefined, argumentChunks: 0 };
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!frame.startsWith('data: ')) continue;
      const data = frame.slice('data: '.length);
      if (data === '[DONE]') {
        out.endedWithDone = true;
        continue;
      }
      const chunk = JSON.parse(data) as { error?: { message: string }; usage?: Record<string, number>; choices?: { delta?: { content?: string | null; tool_calls?: { function?: { name?: string; arguments?: string } }[] }; finish_reason?: string | null }[] };
      out.frames.push(chunk);
      if (chunk.error) out.error = chunk.error;
      if (chunk.usage) out.usage = chunk.usage;
      const choice = chunk.choices?.[0];
      out.content += choice?.delta?.content ?? '';
      for (const call of choice?.delta?.tool_calls ?? []) {
        out.firstCallDeltaAt ??= Date.now();
        out.callName += call.function?.name ?? '';
        if ((call.function?.arguments ?? '') !== '') out.argumentChunks++;
        out.callArguments += call.function?.arguments ?? '';
      }
      if (choice?.finish_reason) out.finishReason = choice.finish_reason;
    }
  }
  return out;
}

async function streamChat(model: string): Promise<ReadStream & { status: number }> {
  const res = await fetch(`${suite.gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'weather in Paris?' }], tools: [weatherTool], stream: true, stream_options: { include_usage: true } }),
  });
  return { ...(await readAnswer(res)), status: res.status };
}

/**
 * Reads a stream, or the error envelope the gateway answers with before the first byte. A
 * reset "halfway" is one of the two depending on when the gateway got to read: Linux drops
 * the bytes a socket has not read yet when the reset arrives, so on a loaded machine the
 * gateway may see the reset before any event, and answers with an envelope.
 */
async function readAnswer(res: Response): Promise<ReadStream> {
  if (res.status === 200) return readStream(res);
  const body = (await res.json()) as { error?: { message: string } };
  return { frames: [], content: '', callName: '', callArguments: '', finishReason: undefined, usage: undefined, error: body.error, endedWithDone: false, firstCallDeltaAt: undefined, argumentChunks: 0 };
}

const apiOf = (kind: ModelPathKind): 'openai' | 'ollama' => (kind === 'openai' ? 'openai' : 'ollama');

function expectComplete(read: ReadStream & { status: number }, text = 'Let me check.', args: unknown = { city: 'Paris' }): void {
  expect(read.status).toBe(200);
  expect(read.error).toBeUndefined();
  expect(read.content).toContain(text);
  expect(read.callName).toBe('get_weather');
  expect(JSON.parse(read.callArguments)).toEqual(args);
  expect(read.finishReason).toBe('tool_calls');
  expect(read.endedWithDone).toBe(true);
}

/** An error frame in a stream, or (the upstream failed before the gateway read an event) a 5xx error envelope. */
function expectErrorFrame(read: ReadStream & { status: number }): void {
  expect(read.status === 200 || read.status >= 500, `status ${read.status}`).toBe(true);
  expect(read.error?.message).toEqual(expect.any(String));
  expect(read.endedWithDone).toBe(false);
}

describe.each(MODEL_PATHS)('upstream behaviours on $model', ({ kind, model }) => {
  it.each(BEHAVIOURS)('$name: the stream ends cleanly and the gateway serves the next request', async ({ turn, outcome }) => {
    suite.upstream.script = (request) => (request.toolResults.length > 0 ? { text: 'Sunny.' } : { ...turn, text: 'Let me check.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const read = await streamChat(model);
    const expected = outcome[apiOf(kind)];
    if (expected === 'complete') expectComplete(read);
    else if (expected === 'error') expectErrorFrame(read);
    else if (read.error === undefined) expect(read.endedWithDone).toBe(true);
    else expectErrorFrame(read);
    if (turn.usage === 'none') {
      // No usage from the upstream: none invented (a zero usage chunk would be a lie).
      expect(read.usage === undefined || read.usage.total_tokens !== 0).toBe(true);
    }
    if (expected === 'complete' && turn.usage !== 'none') expect(read.usage).toMatchObject({ prompt_tokens: 57, completion_tokens: 17, total_tokens: 74 });

    suite.upstream.script = () => ({ text: 'Still here.' });
    const next = await new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0 }).chat.completions.create({ model, messages: [{ role: 'user', content: 'are you there?' }] });
    expect(next.choices[0]!.message.content).toBe('Still here.');
  });

  it('a connection reset mid-answer is reported as a lost connection, not as an unreachable upstream', async () => {
    suite.upstream.script = () => ({ text: 'A long answer that never finishes because the connection drops.', ending: 'reset' });
    const res = await fetch(`${suite.gateway.baseURL}/chat/completions`, { method: 'POST', body: JSON.stringify({ model, messages: [{ role: 'user', content: 'talk' }], stream: true }) });
    const read = { ...(await readAnswer(res)), status: res.status };
    expectErrorFrame(read);
    expect(read.error?.message).not.toMatch(/not reachable|ollama serve/i);
  });

  it('a reset that comes before the gateway read any of the answer (a loaded machine) is a 5xx envelope saying so, and the next request is served', async () => {
    // The gateway stands still (SIGSTOP) while the upstream writes half its events and resets:
    // the kernel drops the bytes it had not read, as it does when a busy gateway reads late.
    const pid = suite.gateway.child.pid!;
    suite.upstream.script = () => {
      process.kill(pid, 'SIGSTOP');
      return { compress: 'gzip', trickle: true, ending: 'reset', text: 'Let me check.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };
    };
    const answering = streamChat(model);
    try {
      for (let i = 0; i < 500 && !(suite.chatRequests().length === 1 && suite.upstream.inFlight === 0); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const read = await answering;
    expect(read.status).toBeGreaterThanOrEqual(500);
    expect(read.error?.message).toMatch(/was lost/);
    suite.upstream.script = () => ({ text: 'Still here.' });
    const next = await new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0 }).chat.completions.create({ model, messages: [{ role: 'user', content: 'are you there?' }] });
    expect(next.choices[0]!.message.content).toBe('Still here.');
  });

  it('the first delta of a turn that only calls tools has content null, as OpenAI sends it', async () => {
    suite.upstream.script = () => ({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const read = await streamChat(model);
    expectComplete(read, '');
    const first = (read.frames[0]!.choices as { delta: Record<string, unknown> }[])[0]!.delta;
    expect(first).toMatchObject({ role: 'assistant', content: null });
  });

  it('a non-streamed request whose upstream resets gets an error envelope, then the next request is served', async () => {
    suite.upstream.script = () => ({ text: 'cut short by a reset', ending: 'reset' });
    const openai = new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0 });
    const error = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(500);
    suite.upstream.script = () => ({ text: 'Still here.' });
    const next = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'are you there?' }] });
    expect(next.choices[0]!.message.content).toBe('Still here.');
  });
});

describe('streamed tool calls with 300 ms between upstream events (openai/ path)', () => {
  const openai = MODEL_PATHS.find((path) => path.kind === 'openai')!;
  it('forwards the call header and its argument deltas as they arrive, before the upstream turn ends', async () => {
    suite.upstream.script = () => ({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris, France' } }], pauseMs: 300 });
    const read = await streamChat(openai.model);
    expectComplete(read, '', { city: 'Paris, France' });
    const upstreamFinish = suite.chatRequests()[0]!.finishWrittenAt!;
    expect(upstreamFinish).toEqual(expect.any(Number));
    // The header went out one pause after the role chunk, the finish chunk four pauses later.
    expect(read.firstCallDeltaAt!).toBeLessThan(upstreamFinish - 300);
    expect(read.argumentChunks).toBeGreaterThan(1);
  }, 20_000);
});
