import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, hashApiKey } from '../src/index.ts';
import type { ServerConfig, ToolAuditEvent } from '../src/index.ts';
import { startFakeOllama, startFakeOpenAI } from './helpers/fake-upstreams.ts';
import type { FakeUpstream, UpstreamReply } from './helpers/fake-upstreams.ts';
import { OPENAI_MODEL, startPacedUpstream } from './helpers/paced-upstream.ts';
import type { PacedUpstream, ScriptedDelta } from './helpers/paced-upstream.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

async function fakeOpenAI(reply: (body: Record<string, unknown>) => UpstreamReply): Promise<FakeUpstream> {
  const fake = await startFakeOpenAI(reply);
  closers.push(() => fake.close());
  return fake;
}

/** The gateway in front of an `openai/` upstream, with all three built-ins loaded and audits collected. */
async function gateway(upstreamURL: string, config: ServerConfig = {}, apiKey = 'unused') {
  const audits: ToolAuditEvent[] = [];
  const server = createServer({
    logger: pino({ level: 'silent' }),
    providers: { openai: { apiKey: 'sk-upstream', baseURL: `${upstreamURL}/v1` } },
    tools: { allowedDomains: ['example.com'] },
    onToolAudit: (event) => audits.push(event),
    ...config,
  });
  const baseURL = await server.listen({ port: 0 });
  closers.push(() => server.close());
  return { openai: new OpenAI({ apiKey, baseURL, maxRetries: 0 }), audits };
}

/** A client's own function, written as tutorials write them. */
function ownTool(name: string) {
  return {
    type: 'function' as const,
    function: {
      name,
      description: `The client's own ${name}`,
      parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'], additionalProperties: false },
      strict: true,
    },
  };
}

const question = [{ role: 'user' as const, content: 'go' }];

describe("a client's own tool is the client's, whatever its name (openai/ path, the openai client)", () => {
  for (const name of ['calculate', 'get_current_time', 'fetch_url']) {
    for (const stream of [false, true]) {
      it(`returns the call of a client function named '${name}' to the client and never runs the built-in (${stream ? 'stream' : 'create'})`, async () => {
        const upstream = await fakeOpenAI(() => ({ toolCalls: [{ name, arguments: { input: 'x' } }] }));
        const { openai, audits } = await gateway(upstream.url);
        const request = { model: 'openai/gpt-fake', messages: question, tools: [ownTool(name)] };
        const completion = stream ? await openai.chat.completions.stream(request).finalChatCompletion() : await openai.chat.completions.create(request);
        const choice = completion.choices[0];
        expect(choice?.finish_reason).toBe('tool_calls');
        // (`stream()` adds `parsed_arguments` for strict tools.)
        expect(choice?.message.tool_calls).toEqual([
          expect.objectContaining({ id: expect.stringMatching(/^call_/), type: 'function', function: expect.objectContaining({ name, arguments: '{"input":"x"}' }) }),
        ]);
        // The upstream saw the client's definition as written: schema, description and strict.
        expect(upstream.requests[0]?.tools).toEqual([ownTool(name)]);
        expect(upstream.requests).toHaveLength(1);
        expect(audits).toEqual([]);
      });
    }
  }

  it('runs the server tool for a name-only entry and returns only the answer', async () => {
    const upstream = await fakeOpenAI((body) => {
      const messages = body.messages as { role: string; content?: unknown }[];
      return messages.at(-1)?.role === 'tool' ? { text: `It is ${String(messages.at(-1)?.content)}.` } : { toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] };
    });
    const { openai, audits } = await gateway(upstream.url);
    const completion = await openai.chat.completions.create({ model: 'openai/gpt-fake', messages: question, tools: [{ type: 'function', function: { name: 'calculate' } }] });
    expect(completion.choices[0]?.message.content).toBe('It is {"expression":"6 * 7","result":"42"}.');
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    const offered = upstream.requests[0]?.tools as { function: { name: string; description: string } }[];
    expect(offered[0]?.function.description).toMatch(/math expression/);
    expect(audits).toEqual([expect.objectContaining({ tool: 'calculate', outcome: 'success' })]);
  });

  it('never runs a server tool the request did not ask for, even when the model calls it', async () => {
    const upstream = await fakeOpenAI((body) => {
      const messages = body.messages as { role: string; content?: unknown }[];
      return messages.at(-1)?.role === 'tool' ? { text: String(messages.at(-1)?.content) } : { toolCalls: [{ name: 'calculate', arguments: { expression: '1 + 1' } }] };
    });
    const { openai, audits } = await gateway(upstream.url);
    const completion = await openai.chat.completions.create({ model: 'openai/gpt-fake', messages: question, tools: [ownTool('lookup')] });
    expect(completion.choices[0]?.message.content).toMatch(/Unknown tool "calculate"/);
    // Audited as the unknown name it is for this request: refused, never run.
    expect(audits).toEqual([expect.objectContaining({ tool: 'calculate', outcome: 'error', errorType: 'unknown_tool', durationMs: 0 })]);
  });

  it("answers a server tool's bad arguments with a validation_error the model can correct", async () => {
    const upstream = await fakeOpenAI((body) => {
      const messages = body.messages as { role: string; content?: unknown }[];
      return messages.at(-1)?.role === 'tool' ? { text: String(messages.at(-1)?.content) } : { toolCalls: [{ name: 'get_current_time', arguments: { timezone: 42 } }] };
    });
    const { openai, audits } = await gateway(upstream.url);
    const completion = await openai.chat.completions.create({ model: 'openai/gpt-fake', messages: question, tools: [{ type: 'function', function: { name: 'get_current_time' } }] });
    expect(completion.choices[0]?.message.content).toMatch(/Invalid arguments for "get_current_time"/);
    expect(audits).toEqual([expect.objectContaining({ tool: 'get_current_time', outcome: 'error', errorType: 'validation_error' })]);
  });

  it("refuses a client function that clashes with the key's alwaysTools with a 400 naming the tool", async () => {
    const upstream = await fakeOpenAI(() => ({ text: 'unused' }));
    const keys = [{ id: 'team-a', keyHash: hashApiKey('sk-team-a'), alwaysTools: ['calculate'] }];
    const { openai } = await gateway(upstream.url, { keys }, 'sk-team-a');
    const error = await openai.chat.completions.create({ model: 'openai/gpt-fake', messages: question, tools: [ownTool('calculate')] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'tool_conflict', param: 'tools[0].function' });
    expect((error as Error).message).toMatch(/'calculate'.*Rename your function/);
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses a described function without parameters that names a server tool (400), and a server tool the key may not use (403)', async () => {
    const upstream = await fakeOpenAI(() => ({ text: 'unused' }));
    const keys = [{ id: 'team-b', keyHash: hashApiKey('sk-team-b'), tools: ['get_current_time'] }];
    const { openai } = await gateway(upstream.url, { keys }, 'sk-team-b');
    const ambiguous = await openai.chat.completions
      .create({ model: 'openai/gpt-fake', messages: question, tools: [{ type: 'function', function: { name: 'calculate', description: 'mine' } }] })
      .then(() => undefined, (e: unknown) => e);
    expect(ambiguous).toBeInstanceOf(OpenAI.BadRequestError);
    expect(ambiguous).toMatchObject({ code: 'ambiguous_tool' });
    const forbidden = await openai.chat.completions
      .create({ model: 'openai/gpt-fake', messages: question, tools: [{ type: 'function', function: { name: 'calculate' } }] })
      .then(() => undefined, (e: unknown) => e);
    expect(forbidden).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(forbidden).toMatchObject({ code: 'tool_not_allowed' });
  });
});

describe("a client's own tool is the client's on the Ollama paths too", () => {
  for (const model of ['ollama/native', 'ollama/text']) {
    for (const name of ['calculate', 'get_current_time']) {
      it(`returns the call of a client function named '${name}' on ${model}, streamed and not`, async () => {
        // The text-only model writes the call as text; the native one sends it as a tool call.
        const ollama = await startFakeOllama(() => (model === 'ollama/text' ? { text: `${name}(input="x")` } : { toolCalls: [{ name, arguments: { input: 'x' } }] }));
        closers.push(() => ollama.close());
        const { openai, audits } = await gateway('http://127.0.0.1:1', { providers: { ollama: { host: ollama.url } } });
        const request = { model, messages: question, tools: [ownTool(name)] };
        for (const completion of [await openai.chat.completions.create(request), await openai.chat.completions.stream(request).finalChatCompletion()]) {
          expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
          expect(completion.choices[0]?.message.tool_calls).toEqual([
            expect.objectContaining({ type: 'function', function: expect.objectContaining({ name, arguments: '{"input":"x"}' }) }),
          ]);
        }
        expect(audits).toEqual([]);
      });
    }
  }
});

const lookup = { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } };
const weather = { type: 'function' as const, function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

function header(index: number, id: string, name: string): ScriptedDelta {
  return { delta: { tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] } };
}
function args(index: number, text: string): ScriptedDelta {
  return { delta: { tool_calls: [{ index, function: { arguments: text } }] } };
}

/** A paced upstream that streams exactly these deltas, `pauseMs` apart, to every request. */
async function pacedDeltas(pauseMs: number, deltas: ScriptedDelta[]): Promise<PacedUpstream> {
  const upstream = await startPacedUpstream({ pauseMs, script: () => ({ deltas }) });
  closers.push(() => upstream.close());
  return upstream;
}

/** When the upstream wrote each event of its first answer, then `[DONE]`. */
const sentAt = (upstream: PacedUpstream): number[] => upstream.requests[0]?.sentAt ?? [];

describe('streamed client tool calls arrive as the upstream sends them (openai/ path)', () => {
  it('forwards the header and each argument delta long before the upstream turn ends (events 300 ms apart)', async () => {
    const upstream = await pacedDeltas(300, [
      { delta: { role: 'assistant', content: null } },
      header(0, 'call_up0', 'lookup'),
      args(0, '{"q": '),
      args(0, '"Par'),
      args(0, 'is"}'),
      { delta: {}, finish: 'tool_calls' },
    ]);
    const { openai } = await gateway(upstream.url);
    const stream = await openai.chat.completions.create({ model: `openai/${OPENAI_MODEL}`, messages: question, tools: [lookup], stream: true });
    let headerAt: number | undefined;
    let firstArgumentsAt: number | undefined;
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      for (const call of choice?.delta.tool_calls ?? []) {
        if (call.function?.name !== undefined) headerAt ??= performance.now();
        if (call.function?.arguments !== undefined && call.function.arguments !== '') {
          firstArgumentsAt ??= performance.now();
          text += call.function.arguments;
        }
      }
      finish = choice?.finish_reason ?? finish;
    }
    const sent = sentAt(upstream);
    // The header before the upstream wrote its second argument fragment, the first fragment before its finish.
    expect(headerAt).toBeLessThan(sent[3] ?? 0);
    expect(firstArgumentsAt).toBeLessThan(sent[5] ?? 0);
    expect(text).toBe('{"q": "Paris"}');
    expect(finish).toBe('tool_calls');
  });

  it('never interleaves two calls that the upstream interleaves, holding only the second until the first is complete', async () => {
    const upstream = await pacedDeltas(60, [
      { delta: { role: 'assistant', content: null } },
      header(0, 'call_a', 'lookup'),
      header(1, 'call_b', 'weather'),
      args(0, '{"q":'),
      args(1, '{"city":'),
      args(0, '"tides"}'),
      args(1, '"Oslo"}'),
      { delta: {}, finish: 'tool_calls' },
    ]);
    const { openai } = await gateway(upstream.url);
    const request = { model: `openai/${OPENAI_MODEL}`, messages: question, tools: [lookup, weather] };
    const stream = await openai.chat.completions.create({ ...request, stream: true });
    const order: number[] = [];
    let firstArgumentsAt: number | undefined;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        order.push(call.index);
        if (call.function?.arguments) firstArgumentsAt ??= performance.now();
      }
    }
    // All of call 0, then all of call 1.
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order[0]).toBe(0);
    expect(firstArgumentsAt).toBeLessThan(sentAt(upstream)[7] ?? 0);
    const final = await openai.chat.completions.stream(request).finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls?.map((c) => (c.type === 'function' ? [c.function.name, c.function.arguments] : []))).toEqual([
      ['lookup', '{"q":"tides"}'],
      ['weather', '{"city":"Oslo"}'],
    ]);
  });
});
