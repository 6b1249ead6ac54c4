import {
  AuthenticationError,
  collectStream,
  ModelNotFoundError,
  StreamError,
  UsageLimitError,
} from '@toolwire/core';
import type { ChatStreamEvent, FunctionToolSpec, JsonSchema } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';

import { createChatGPT } from '../src/index.ts';
import { startAuthServer } from './helpers/auth-server.ts';
import { startBackend, textEvents, toolCallEvents } from './helpers/backend-server.ts';
import { makeTokenSet } from './helpers/jwt.ts';
import { recordingLogger } from './helpers/temp-dir.ts';
import { runToolLoop } from './helpers/tool-loop.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const BASE_INSTRUCTIONS = 'You are Codex, based on GPT-5.4. (catalog copy)';

async function setup(options: { backendAccepts?: 'all' | 'refreshed' | 'none'; catalogTtlMs?: number; maxRetries?: number } = {}) {
  const auth = await startAuthServer({ tokens: { accountId: 'acct-1234' } });
  const tokens = makeTokenSet();
  const accepts = options.backendAccepts ?? 'all';
  const backend = await startBackend({
    models: [
      { slug: 'gpt-5.4', base_instructions: BASE_INSTRUCTIONS },
      { slug: 'gpt-5.5', base_instructions: 'other' },
    ],
    // 'refreshed': only tokens handed out by a refresh, not the one we start with.
    acceptsToken: (token) => accepts === 'all' || (accepts === 'refreshed' && token !== tokens.access_token && auth.issued.includes(token)),
  });
  closers.push(auth.close, backend.close);
  auth.adopt(tokens);
  const { logger, lines } = recordingLogger();
  const chatgpt = createChatGPT({
    auth: { tokens: { accessToken: tokens.access_token, idToken: tokens.id_token, refreshToken: tokens.refresh_token }, issuer: auth.url },
    baseURL: backend.url,
    logger,
    maxRetries: options.maxRetries ?? 0,
    ...(options.catalogTtlMs !== undefined ? { catalogTtlMs: options.catalogTtlMs } : {}),
  });
  return { auth, backend, chatgpt, tokens, lines };
}

const tool = (name: string, properties: Record<string, JsonSchema> = { city: { type: 'string' } }): FunctionToolSpec => ({
  type: 'function',
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: 'object', properties, required: Object.keys(properties) },
});

describe('createChatGPT().chat()', () => {
  it('sends the backend contract: headers, store false, stream true, catalog instructions, developer input', async () => {
    const { backend, chatgpt, tokens } = await setup();
    backend.reply({
      sse: textEvents('Hi Ada!', { reasoning: 'Say hello.' }),
      headers: { 'x-codex-primary-used-percent': '25', 'x-codex-primary-window-minutes': '300', 'x-codex-plan-type': 'plus' },
    });
    const response = await chatgpt.chat('gpt-5.4').generate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
      temperature: 0.2,
      maxOutputTokens: 100,
    });

    expect(response.text).toBe('Hi Ada!');
    expect(response.reasoning).toBe('Say hello.');
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toMatchObject({ inputTokens: 120, outputTokens: 12, cachedInputTokens: 100 });
    expect(response.warnings.map((w) => (w.type === 'unsupported-setting' ? w.setting : w.type))).toEqual(['maxOutputTokens', 'temperature']);
    expect(response.providerMetadata?.chatgpt).toMatchObject({
      requestId: 'req_1',
      rateLimits: { primary: { usedPercent: 25, windowMinutes: 300 }, planType: 'plus' },
    });

    const [request] = backend.requests;
    expect(request!.headers).toMatchObject({
      authorization: `Bearer ${tokens.access_token}`,
      'chatgpt-account-id': 'acct-1234',
      originator: 'codex_cli_rs',
      'openai-beta': 'responses=experimental',
      accept: 'text/event-stream',
    });
    expect(request!.headers['user-agent']).toMatch(/^codex_cli_rs\/\d+\.\d+\.\d+ \(/);
    const body = request!.body;
    expect(body).toMatchObject({
      model: 'gpt-5.4',
      instructions: BASE_INSTRUCTIONS,
      store: false,
      stream: true,
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'medium', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
    expect(request!.headers.session_id).toBe(body.prompt_cache_key);
    expect(body).not.toHaveProperty('max_output_tokens');
    expect(body).not.toHaveProperty('temperature');
    expect(body.input).toEqual([
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello' }] },
    ]);
    expect(backend.modelRequests[0]!.url).toMatch(/^\/codex\/models\?client_version=\d+\.\d+\.\d+$/);
  });

  it("sends the caller's extra headers but never lets them replace the sign-in", async () => {
    const { backend, chatgpt, tokens } = await setup();
    backend.reply({ sse: textEvents('ok') });
    await chatgpt.chat('gpt-5.4').generate({ messages: [{ role: 'user', content: 'x' }], headers: { 'X-Trace': 't-1', Authorization: 'Bearer other' } });
    expect(backend.requests[0]!.headers['x-trace']).toBe('t-1');
    expect(backend.requests[0]!.headers.authorization).toBe(`Bearer ${tokens.access_token}`);
  });

  it('revalidates the model catalog by ETag and falls back to bundled instructions for unlisted models', async () => {
    const { backend, chatgpt } = await setup({ catalogTtlMs: 0 });
    backend.reply({ sse: textEvents('a') }, { sse: textEvents('b') }, { sse: textEvents('c') });
    const model = chatgpt.chat('gpt-5.4');
    await model.generate({ messages: [{ role: 'user', content: 'one' }] });
    await model.generate({ messages: [{ role: 'user', content: 'two' }] });
    await chatgpt.chat('gpt-6-unlisted').generate({ messages: [{ role: 'user', content: 'three' }] });
    expect(backend.modelRequests.map((r) => r.status)).toEqual([200, 304, 304]);
    expect(backend.modelRequests[1]!.headers['if-none-match']).toBe('"catalog-v1"');
    expect(backend.requests[1]!.body.instructions).toBe(BASE_INSTRUCTIONS);
    expect(backend.requests[2]!.body.instructions).not.toBe(BASE_INSTRUCTIONS);
    expect(backend.requests[2]!.body.instructions.length).toBeGreaterThan(20);
  });

  it('runs a tool loop over several turns with function_call_output paired by call_id', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply(
      { sse: [...toolCallEvents([{ callId: 'call_A', name: 'get_weather', arguments: '{"city":"Oslo"}' }])] },
      { sse: toolCallEvents([{ callId: 'call_B', name: 'get_time', arguments: '{"city":"Oslo"}' }]) },
      { sse: textEvents('3°C at noon in Oslo.', { reasoning: 'Combine.' }) },
    );
    const { responses, messages } = await runToolLoop({
      model: chatgpt.chat('gpt-5.4'),
      request: { tools: [tool('get_weather'), tool('get_time')] },
      messages: [{ role: 'user', content: 'Weather and time in Oslo?' }],
      tools: { get_weather: () => ({ temp: 3 }), get_time: () => '12:00' },
    });
    expect(responses.map((r) => r.finishReason)).toEqual(['tool-calls', 'tool-calls', 'stop']);
    expect(responses[0]!.toolCalls).toEqual([{ id: 'call_A', name: 'get_weather', arguments: { city: 'Oslo' } }]);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: '3°C at noon in Oslo.' });

    const third = backend.requests[2]!.body;
    expect(third.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather and time in Oslo?' }] },
      { type: 'function_call', call_id: 'call_A', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_A', output: '{"temp":3}' },
      { type: 'function_call', call_id: 'call_B', name: 'get_time', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_B', output: '"12:00"' },
    ]);
    expect(third.tools.map((t: { name: string }) => t.name)).toEqual(['get_weather', 'get_time']);
    const keys = backend.requests.map((r): unknown => r.body.prompt_cache_key);
    expect(new Set(keys).size).toBe(1);
  });

  it('replays reasoning items with encrypted_content on the next turn, without item ids', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({ sse: textEvents('First.', { reasoning: 'Plan.' }) }, { sse: textEvents('Second.') });
    const model = chatgpt.chat('gpt-5.4');
    const first = await model.generate({ messages: [{ role: 'user', content: 'Go' }] });
    await model.generate({ messages: [{ role: 'user', content: 'Go' }, first.message, { role: 'user', content: 'More' }] });
    const input = backend.requests[1]!.body.input as Record<string, unknown>[];
    expect(input[1]).toMatchObject({ type: 'reasoning', encrypted_content: expect.stringMatching(/^enc_/) });
    expect(input[2]).toEqual({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'First.' }] });
    expect(input.some((item) => 'id' in item)).toBe(false);
  });

  it('streams tool-call deltas before the complete call', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({ sse: toolCallEvents([{ callId: 'call_S', name: 'get_weather', arguments: '{"city":"Lima"}' }]), chunkSize: 5 });
    const events: ChatStreamEvent[] = [];
    for await (const event of chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'x' }], tools: [tool('get_weather')] })) events.push(event);
    const types = events.map((e) => e.type);
    expect(types.indexOf('tool-call-start')).toBeLessThan(types.indexOf('tool-call-delta'));
    expect(types.lastIndexOf('tool-call-delta')).toBeLessThan(types.indexOf('tool-call'));
    expect(types.at(-1)).toBe('finish');
  });

  it('reads a stream paced one byte at a time: multi-byte text and reasoning, and a call', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({ sse: textEvents('Grüße — 日本語 ✓ 😀', { reasoning: 'dénk 🤔' }), chunkSize: 1 });
    const text = await collectStream(chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'x' }] }));
    expect({ text: text.text, reasoning: text.reasoning }).toEqual({ text: 'Grüße — 日本語 ✓ 😀', reasoning: 'dénk 🤔' });
    backend.reply({ sse: toolCallEvents([{ callId: 'call_B', name: 'get_weather', arguments: '{"city":"Zürich 🏔"}' }]), chunkSize: 1 });
    const called = await collectStream(chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'x' }], tools: [tool('get_weather')] }));
    expect(called.toolCalls).toEqual([{ id: 'call_B', name: 'get_weather', arguments: { city: 'Zürich 🏔' } }]);
  });
});

describe('codex tool mode', () => {
  it('sends only shell and update_plan, returns calls under the user tool names, and warns once for the rest', async () => {
    const { backend, chatgpt, lines } = await setup();
    const args = JSON.stringify({ command: ['ls', '-la'], workdir: '/srv', timeout: 1000 });
    backend.reply(
      { sse: toolCallEvents([{ callId: 'call_sh', name: 'shell', arguments: args }]) },
      { sse: toolCallEvents([{ callId: 'call_pl', name: 'update_plan', arguments: '{"plan":[{"step":"list","status":"completed"}]}' }]) },
    );
    const model = chatgpt.chat('gpt-5.4', { toolMode: 'codex' });
    const tools = [tool('bash', { command: { type: 'array' } }), tool('TodoWrite', { plan: { type: 'array' } }), tool('get_weather'), tool('search')];
    const first = await model.generate({ messages: [{ role: 'user', content: 'list files' }], tools });
    const second = await model.generate({ messages: [{ role: 'user', content: 'plan' }], tools });

    expect(backend.requests[0]!.body.tools.map((t: { name: string }) => t.name)).toEqual(['shell', 'update_plan']);
    expect(first.toolCalls).toEqual([{ id: 'call_sh', name: 'bash', arguments: { command: ['ls', '-la'], workdir: '/srv', timeout_ms: 1000 } }]);
    expect(second.toolCalls[0]).toMatchObject({ name: 'TodoWrite', arguments: { plan: [{ step: 'list', status: 'completed' }] } });
    expect(first.warnings).toEqual([
      expect.objectContaining({ type: 'unsupported-tool', toolName: 'get_weather' }),
      expect.objectContaining({ type: 'unsupported-tool', toolName: 'search' }),
    ]);
    expect(second.warnings).toHaveLength(2);
    const consoleWarnings = lines.filter((line) => line.startsWith('warn'));
    expect(consoleWarnings).toHaveLength(1);
    expect(consoleWarnings[0]).toContain('"get_weather", "search"');
  });

  it('dispatches ["toolwire-tool", name, json] shell calls to the user tool and answers the shell call', async () => {
    const { backend, chatgpt } = await setup();
    const argv = JSON.stringify({ command: ['toolwire-tool', 'get_weather', '{"city":"Quito"}'] });
    backend.reply({ sse: toolCallEvents([{ callId: 'call_cli', name: 'shell', arguments: argv }]) }, { sse: textEvents('Sunny in Quito.') });
    const executed: unknown[] = [];
    const { responses } = await runToolLoop({
      model: chatgpt.chat('gpt-5.4', { toolMode: 'codex', cliTools: true }),
      request: { tools: [tool('get_weather')] },
      messages: [{ role: 'user', content: 'Weather in Quito?' }],
      tools: { get_weather: (args) => (executed.push(args), { sky: 'sunny' }) },
    });
    expect(executed).toEqual([{ city: 'Quito' }]);
    expect(responses[0]!.toolCalls).toEqual([{ id: 'call_cli', name: 'get_weather', arguments: { city: 'Quito' } }]);
    expect(responses[0]!.warnings).toEqual([]);

    const [first, second] = backend.requests.map((r) => r.body);
    expect(first!.tools.map((t: { name: string }) => t.name)).toEqual(['shell']);
    expect(first!.input[0].role).toBe('developer');
    expect(first!.input[0].content[0].text).toContain('["toolwire-tool", "<tool name>", "<arguments as one JSON object>"]');
    expect(second!.input.slice(-2)).toEqual([
      { type: 'function_call', call_id: 'call_cli', name: 'shell', arguments: argv },
      { type: 'function_call_output', call_id: 'call_cli', output: '{"sky":"sunny"}' },
    ]);
  });
});

describe('the model catalog', () => {
  it('is not given up for every caller when the caller whose request started loading it leaves', async () => {
    let openCatalog = (): void => undefined;
    const catalogGate = new Promise<void>((resolve) => (openCatalog = resolve));
    const auth = await startAuthServer({ tokens: { accountId: 'acct-1234' } });
    const tokens = makeTokenSet();
    const backend = await startBackend({ models: [{ slug: 'gpt-5.4', base_instructions: BASE_INSTRUCTIONS }], catalogGate });
    closers.push(auth.close, backend.close);
    auth.adopt(tokens);
    const chatgpt = createChatGPT({ auth: { tokens: { accessToken: tokens.access_token, idToken: tokens.id_token, refreshToken: tokens.refresh_token }, issuer: auth.url }, baseURL: backend.url, maxRetries: 0 });
    backend.reply({ sse: textEvents('for the one who stayed') });
    const leaving = new AbortController();
    const first = chatgpt.chat('gpt-5.4').generate({ messages: [{ role: 'user', content: 'x' }], signal: leaving.signal }).catch((e: unknown) => e);
    await expect.poll(() => backend.modelRequests.length).toBe(1);
    const second = chatgpt.chat('gpt-5.4').generate({ messages: [{ role: 'user', content: 'y' }] });
    leaving.abort(new Error('the first caller left'));
    expect(((await first) as Error).message).toBe('the first caller left');
    openCatalog();
    const answer = await second;
    expect(answer.text).toBe('for the one who stayed');
    // One catalog read, its instructions used.
    expect(backend.modelRequests).toHaveLength(1);
    expect(backend.requests[0]?.body.instructions).toBe(BASE_INSTRUCTIONS);
  });
});

describe('backend errors', () => {
  it('throws UsageLimitError with the reset time for usage_limit_reached and does not retry', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({
      status: 429,
      json: { error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: 1777936568, resets_in_seconds: 13872 } },
    });
    const error = await chatgpt
      .chat('gpt-5.4')
      .generate({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(UsageLimitError.isInstance(error)).toBe(true);
    expect((error as UsageLimitError).resetsAt?.getTime()).toBe(1777936568 * 1000);
    expect(backend.requests).toHaveLength(1);
  });

  it('fails at once, saying what came, when a 200 is a page or a JSON document rather than the stream', async () => {
    for (const reply of [
      { status: 200, text: '<html><body>Just a moment...</body></html>' },
      { status: 200, json: { error: { message: 'model overloaded' } } },
    ]) {
      const { backend, chatgpt } = await setup();
      backend.reply(reply);
      const error = await chatgpt
        .chat('gpt-5.4')
        .generate({ messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'ProviderError', code: 'not_event_stream' });
      expect((error as Error).message).toContain(`answered with ${reply.json === undefined ? 'text/html' : 'application/json'} instead of an event stream`);
      if (reply.json !== undefined) expect((error as Error).message).toContain('model overloaded');
      // Not sent again as a dropped stream would be.
      expect(backend.requests).toHaveLength(1);
    }
  });

  it('refreshes after a 401 and retries once', async () => {
    const { backend, chatgpt, auth, tokens } = await setup({ backendAccepts: 'refreshed' });
    backend.reply({ sse: textEvents('after refresh') });
    const response = await chatgpt.chat('gpt-5.4').generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.text).toBe('after refresh');
    expect(auth.refreshCount).toBe(1);
    expect(backend.requests).toHaveLength(2);
    expect(backend.requests[0]!.headers.authorization).toBe(`Bearer ${tokens.access_token}`);
    expect(backend.requests[1]!.headers.authorization).not.toBe(`Bearer ${tokens.access_token}`);
  });

  it('gives up with AuthenticationError after the retry is also rejected, without the token in the message', async () => {
    const { backend, chatgpt, auth, lines } = await setup({ backendAccepts: 'none' });
    const error = await chatgpt
      .chat('gpt-5.4')
      .generate({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('toolwire login chatgpt');
    expect(backend.requests).toHaveLength(2);
    const text = [String(error), JSON.stringify(error), ...lines].join('\n');
    for (const secret of auth.issued) expect(text).not.toContain(secret);
  });

  it('names the account models when the backend does not serve the model', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({ status: 400, json: { detail: "The 'gpt-5' model is not supported when using Codex with a ChatGPT account." } });
    const error = await chatgpt
      .chat('gpt-5')
      .generate({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(ModelNotFoundError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('not supported when using Codex');
    expect((error as Error).message).toContain('gpt-5.4, gpt-5.5');
  });

  it('retries with the base instructions when custom ones are "not valid", with a warning', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({ status: 400, json: { detail: 'Instructions are not valid' } }, { sse: textEvents('ok') });
    const response = await chatgpt.chat('gpt-5.4', { instructions: 'Be a pirate.' }).generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.text).toBe('ok');
    expect(backend.requests.map((r): unknown => r.body.instructions)).toEqual(['Be a pirate.', BASE_INSTRUCTIONS]);
    expect(response.warnings).toContainEqual(expect.objectContaining({ type: 'unsupported-setting', setting: 'instructions' }));
  });

  it('says what a 200 answer that is no event stream is (a proxy page, JSON), without sending it again', async () => {
    const { backend, chatgpt, tokens } = await setup();
    backend.reply(
      { status: 200, text: `<html><body>Sign in to the Wi-Fi ${tokens.access_token}</body></html>` },
      { status: 200, json: { detail: 'Something went wrong' } },
    );
    const html = await collectStream(chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'x' }] })).catch((e: unknown) => e);
    expect(html).toMatchObject({ name: 'ProviderError', status: 200, code: 'not_event_stream', retryable: false });
    expect((html as Error).message).toMatch(/answered with text\/html instead of an event stream \(<html><body>Sign in to the Wi-Fi \[redacted\]/);
    const json = await collectStream(chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'x' }] })).catch((e: unknown) => e);
    expect((json as Error).message).toContain('answered with application/json instead of an event stream ({"detail":"Something went wrong"})');
    expect(backend.requests).toHaveLength(2);
  });

  it('reports a stream that closes before response.completed', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({ sse: textEvents('partial answer').slice(0, -1) });
    const events: ChatStreamEvent[] = [];
    for await (const event of chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'x' }] })) events.push(event);
    expect(events.some((e) => e.type === 'text-delta')).toBe(true);
    const last = events.at(-1);
    expect(last?.type === 'error' && StreamError.isInstance(last.error)).toBe(true);

    backend.reply({ sse: textEvents('partial answer').slice(0, -1) });
    await expect(collectStream(chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'x' }] }))).rejects.toThrow(/closed before response.completed/);
  });

  it('retries a 503 before any event was delivered', async () => {
    const { backend, chatgpt } = await setup({ maxRetries: 1 });
    backend.reply({ status: 503, json: { error: { code: 'server_is_overloaded', message: 'busy' } } }, { sse: textEvents('second try') });
    const response = await chatgpt.chat('gpt-5.4').generate({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.text).toBe('second try');
    expect(backend.requests).toHaveLength(2);
  });

  it('stops reading when the caller aborts mid-stream', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({ sse: textEvents('a long answer that is cut off by the caller'), chunkSize: 3 });
    const controller = new AbortController();
    const seen: string[] = [];
    let last: ChatStreamEvent | undefined;
    for await (const event of chatgpt.chat('gpt-5.4').stream({ messages: [{ role: 'user', content: 'x' }], signal: controller.signal })) {
      seen.push(event.type);
      last = event;
      if (event.type === 'text-delta') controller.abort();
    }
    // After the first event a failure is the stream's last event (core's stream contract).
    expect(last?.type === 'error' && last.error.name).toBe('AbortError');
    expect(seen).not.toContain('finish');
  });
});
