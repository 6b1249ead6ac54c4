import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
// The provider package's own stand-ins for the Codex backend and the sign-in server (the
// CLI's login tests use them too), so the wire format lives in one place.
import { startAuthServer } from '../../../packages/provider-chatgpt-oauth/test/helpers/auth-server.ts';
import { startBackend, textEvents, toolCallEvents } from '../../../packages/provider-chatgpt-oauth/test/helpers/backend-server.ts';
import { makeAuthFile, makeTokenSet } from '../../../packages/provider-chatgpt-oauth/test/helpers/jwt.ts';

type TokenSet = ReturnType<typeof makeTokenSet>;

const MODELS = ['gpt-5.4', 'gpt-5.4-mini'];

let dir: string;
let authFile: string;
let backend: Awaited<ReturnType<typeof startBackend>>;
let auth: Awaited<ReturnType<typeof startAuthServer>>;
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolwire-server-chatgpt-'));
  authFile = join(dir, 'chatgpt-auth.json');
  backend = await startBackend({ models: MODELS.map((slug) => ({ slug, base_instructions: `You are ${slug}, a coding agent.` })) });
  auth = await startAuthServer();
  closers.push(() => backend.close(), () => auth.close());
});
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
  await rm(dir, { recursive: true, force: true });
});

/** Saves a sign-in the fake sign-in server knows as current; `expiresIn` seconds (negative: expired). */
async function signIn(expiresIn = 3600): Promise<TokenSet> {
  const tokens = makeTokenSet({ expiresIn });
  auth.adopt(tokens);
  await writeFile(authFile, JSON.stringify(makeAuthFile(tokens)), { mode: 0o600 });
  return tokens;
}

/** The gateway with only `providers.chatgpt`, pointed at the fake backend and sign-in server. */
async function gateway(limits?: { upstreamIdleTimeoutMs: number }): Promise<{ openai: OpenAI; baseURL: string }> {
  const server = createServer({
    logger: pino({ level: 'silent' }),
    providers: { chatgpt: { authFile, models: MODELS, baseURL: backend.url, issuer: auth.url } },
    ...(limits === undefined ? {} : { limits }),
  });
  const baseURL = await server.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => server.close());
  return { openai: new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0 }), baseURL };
}

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

/** The Responses input items of the backend's `index`th request. */
function inputOf(index: number): Record<string, unknown>[] {
  return backend.requests[index]?.body.input as Record<string, unknown>[];
}

describe('the gateway routing chatgpt/<id> to a ChatGPT sign-in (Codex backend)', () => {
  it('returns a backend function call as OpenAI tool_calls (call_ id, JSON string arguments, finish reason tool_calls) and sends the result back paired', async () => {
    const tokens = await signIn();
    const { openai } = await gateway();
    backend.reply({ sse: toolCallEvents([{ callId: 'call_Wx1', name: 'get_weather', arguments: '{"city":"Paris"}' }]) });

    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const completion = await openai.chat.completions.create({ model: 'chatgpt/gpt-5.4', messages, tools: [weatherTool] });
    const choice = completion.choices[0]!;
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('chatgpt/gpt-5.4');
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls![0]!;
    expect(call.id).toMatch(/^call_/);
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(typeof (call as OpenAI.ChatCompletionMessageFunctionToolCall).function.arguments).toBe('string');
    expect(JSON.parse((call as OpenAI.ChatCompletionMessageFunctionToolCall).function.arguments)).toEqual({ city: 'Paris' });

    // The backend got the model id without the prefix, the client's tool, and the sign-in's token and account.
    const first = backend.requests[0]!;
    expect(first.body).toMatchObject({ model: 'gpt-5.4', stream: true, tools: [{ type: 'function', name: 'get_weather' }] });
    expect(first.headers.authorization).toBe(`Bearer ${tokens.access_token}`);
    expect(first.headers['chatgpt-account-id']).toBe('acct-1234');

    // The client answers its call: the backend sees the call and its output under one call_id.
    backend.reply({ sse: textEvents('Sunny, 21°C.') });
    const followUp = await openai.chat.completions.create({
      model: 'chatgpt/gpt-5.4',
      messages: [...messages, choice.message, { role: 'tool', tool_call_id: call.id, content: '{"temp":21,"sky":"sunny"}' }],
      tools: [weatherTool],
    });
    expect(followUp.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Sunny, 21°C.' }, finish_reason: 'stop' });
    const input = inputOf(1);
    const sent = input.find((item) => item.type === 'function_call');
    const output = input.find((item) => item.type === 'function_call_output');
    expect(sent).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(output).toMatchObject({ call_id: sent?.call_id, output: '{"temp":21,"sky":"sunny"}' });
  });

  it('streams text as chat.completion.chunk frames ending with data: [DONE]', async () => {
    await signIn();
    const { openai, baseURL } = await gateway();
    backend.reply({ sse: textEvents('Hello from Codex') }, { sse: textEvents('Hello again') });

    const stream = await openai.chat.completions.create({ model: 'chatgpt/gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]?.id).toMatch(/^chatcmpl-/);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'chatgpt/gpt-5.4-mini')).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hello from Codex');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');
    const usage = chunks.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 });
    expect(backend.requests[0]?.body.model).toBe('gpt-5.4-mini');

    // The SDK hides the terminator; read the raw stream once.
    const raw = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'chatgpt/gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    const text = await raw.text();
    expect(text).toContain('"content":"Hello');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('runs a server tool (get_current_time) itself and sends its result to the backend in a second request', async () => {
    await signIn();
    const { openai } = await gateway();
    backend.reply({ sse: toolCallEvents([{ callId: 'call_time1', name: 'get_current_time', arguments: '{"timezone":"Europe/Paris"}' }]) }, { sse: textEvents('It is evening in Paris.') });

    const completion = await openai.chat.completions.create({
      model: 'chatgpt/gpt-5.4',
      messages: [{ role: 'user', content: 'What time is it in Paris?' }],
      tools: [{ type: 'function', function: { name: 'get_current_time' } }, weatherTool],
    });
    expect(completion.choices[0]).toMatchObject({ message: { content: 'It is evening in Paris.' }, finish_reason: 'stop' });
    expect(completion.choices[0]?.message.tool_calls ?? []).toEqual([]);

    expect(backend.requests).toHaveLength(2);
    // The gateway offered the backend its definition of the server tool, and the client's tool.
    const offered = (backend.requests[0]?.body.tools as { name: string; parameters?: unknown }[]).map((t) => t.name).sort();
    expect(offered).toEqual(['get_current_time', 'get_weather']);
    const input = inputOf(1);
    expect(input.find((item) => item.type === 'function_call')).toMatchObject({ call_id: 'call_time1', name: 'get_current_time' });
    const output = input.find((item) => item.type === 'function_call_output');
    expect(output).toMatchObject({ call_id: 'call_time1' });
    expect(JSON.parse(output?.output as string)).toMatchObject({ timezone: 'Europe/Paris', iso: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown });
  });

  it('refreshes an expired access token at the sign-in server before calling the backend, and saves the new tokens', async () => {
    const old = await signIn(-30);
    const { openai } = await gateway();
    backend.reply({ sse: textEvents('Fresh.') });

    const completion = await openai.chat.completions.create({ model: 'chatgpt/gpt-5.4', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]?.message.content).toBe('Fresh.');
    expect(auth.refreshCount).toBe(1);
    // `issued` lists id, access and refresh token of each set, the refreshed set last.
    const [, freshAccess, freshRefresh] = auth.issued.slice(-3);
    expect(backend.requests[0]?.headers.authorization).toBe(`Bearer ${freshAccess}`);
    expect(backend.requests[0]?.headers.authorization).not.toBe(`Bearer ${old.access_token}`);
    const file = JSON.parse(await readFile(authFile, 'utf8')) as { tokens: { access_token: string; refresh_token: string } };
    expect(file.tokens).toMatchObject({ access_token: freshAccess, refresh_token: freshRefresh });
  });

  it('answers a sign-in whose refresh token was revoked with a non-retryable error in OpenAI envelope, calling no backend and leaking no token', async () => {
    const old = await signIn(-30);
    auth.retire(old.refresh_token);
    const { openai, baseURL } = await gateway();

    const error = await openai.chat.completions.create({ model: 'chatgpt/gpt-5.4', messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(502);
    expect(apiError.code).toBe('upstream_sign_in_required');
    expect(apiError.message).toContain('toolwire login chatgpt');
    expect(apiError.headers?.get('x-should-retry')).toBe('false');
    expect(apiError.error).toMatchObject({ message: expect.any(String) as unknown, type: expect.any(String) as unknown });
    expect(apiError.message).not.toContain(old.refresh_token);
    expect(apiError.message).not.toContain(old.access_token);
    expect(backend.requests).toHaveLength(0);

    // A second request does not hammer the sign-in server with the dead refresh token.
    const raw = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'chatgpt/gpt-5.4', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(raw.headers.get('content-type')).toContain('application/json');
    const body = (await raw.json()) as { error: { message: string; type: string; param: unknown; code: unknown } };
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(raw.status).toBe(apiError.status);
    expect(auth.refreshCount).toBe(1);
  });

  it('answers a backend that never sends its response headers with 503 upstream_timeout after one request, not after its retries', async () => {
    await signIn();
    const { openai } = await gateway({ upstreamIdleTimeoutMs: 500 });
    backend.reply({ silent: true }, { silent: true }, { silent: true });
    const error = await openai.chat.completions.create({ model: 'chatgpt/gpt-5.4', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 503, code: 'upstream_timeout', message: expect.stringMatching(/answered nothing within 500 ms/) as unknown });
    expect(backend.requests).toHaveLength(1);
  });

  it('lists the configured chatgpt/ models on GET /v1/models', async () => {
    const { openai } = await gateway();
    const ids: string[] = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['chatgpt/gpt-5.4', 'chatgpt/gpt-5.4-mini']));
    expect(ids.filter((id) => id.startsWith('chatgpt/'))).toHaveLength(2);
  });

  it('answers a model the config does not list with a 404 naming the configured ones', async () => {
    await signIn();
    const { openai } = await gateway();
    const error = await openai.chat.completions.create({ model: 'chatgpt/gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).message).toContain('chatgpt/gpt-5.4-mini');
    expect(backend.requests).toHaveLength(0);
  });

  it('serves POST /v1/responses on chatgpt/: a streamed function_call, then the round trip with function_call_output', async () => {
    await signIn();
    const { openai } = await gateway();
    backend.reply({ sse: toolCallEvents([{ callId: 'call_Rs1', name: 'get_weather', arguments: '{"city":"Oslo"}' }]) }, { sse: textEvents('Cold, -3°C.') });
    const weather = { type: 'function' as const, name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: false };
    const first = await openai.responses.stream({ model: 'chatgpt/gpt-5.4', input: 'Weather in Oslo?', tools: [weather], store: false }).finalResponse();
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function_call');
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Oslo' });
    const second = await openai.responses.create({
      model: 'chatgpt/gpt-5.4',
      input: [{ role: 'user', content: 'Weather in Oslo?' }, { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments }, { type: 'function_call_output', call_id: call.call_id, output: '-3 C' }],
      tools: [weather],
      store: false,
    });
    expect(second.output_text).toBe('Cold, -3°C.');
    expect(inputOf(1).find((item) => item.type === 'function_call_output')).toMatchObject({ output: '-3 C' });
  });
});
