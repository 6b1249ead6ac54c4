import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/index.ts';
import type { ToolwireServer } from '../../src/index.ts';
import { startAuthServer } from '../../../../packages/provider-chatgpt-oauth/test/helpers/auth-server.ts';
import { writeChatGPTSignIn } from './chatgpt-sign-in.ts';
import { FUZZ_UPSTREAM_MODELS, startFuzzUpstream } from './fuzz-upstream.ts';
import type { FuzzUpstream } from './fuzz-upstream.ts';
import { exchange, watchProcess } from './raw-exchange.ts';
import type { RawAnswer } from './raw-exchange.ts';
import type { UpstreamAnswer } from './upstream-traffic.ts';

// What the fuzzers found, each written out as its smallest counterexample: the upstream's
// exact answer (or the client's exact request) and what the gateway must answer instead.

let upstream: FuzzUpstream;
let server: ToolwireServer;
let origin: string;
let dir: string;
let auth: Awaited<ReturnType<typeof startAuthServer>>;
const watcher = watchProcess();

beforeAll(async () => {
  upstream = await startFuzzUpstream();
  auth = await startAuthServer();
  dir = await mkdtemp(join(tmpdir(), 'toolwire-fuzz-findings-'));
  const authFile = await writeChatGPTSignIn(dir, auth);
  server = createServer({
    logger: pino({ level: 'silent' }),
    providers: {
      openai: { baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream' },
      ollama: { host: upstream.url },
      chatgpt: { authFile, baseURL: upstream.url, issuer: auth.url, models: [FUZZ_UPSTREAM_MODELS.chatgpt] },
    },
    limits: { upstreamIdleTimeoutMs: 3000 },
  });
  origin = (await server.listen({ port: 0, host: '127.0.0.1' })).slice(0, -'/v1'.length);
}, 30_000);

afterAll(async () => {
  await server.close();
  await upstream.close();
  await auth.close();
  await rm(dir, { recursive: true, force: true });
  watcher.stop();
});

/** Sends a plain chat request for `model` (with one client tool) while the upstream answers `answer`. */
async function chat(model: string, answer: UpstreamAnswer, options: { stream?: boolean } = {}): Promise<RawAnswer> {
  upstream.answer = () => answer;
  const body = {
    model,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    stream: options.stream ?? false,
  };
  return exchange(origin, { method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) }, 20_000);
}

const errorOf = (answer: RawAnswer): { message: string; type: string; code: string | null } => (JSON.parse(answer.body.toString('utf8')) as { error: { message: string; type: string; code: string | null } }).error;

describe('fuzz findings, upstream side', () => {
  it('a Codex backend that answers 200 text/html and resets the connection before any byte is a 502 upstream error, not a 500', async () => {
    const answer = await chat(`chatgpt/${FUZZ_UPSTREAM_MODELS.chatgpt}`, { status: 200, headers: { 'content-type': 'text/html' }, pieces: [], reset: true });
    expect(answer.status).toBe(502);
    expect(errorOf(answer)).toMatchObject({ type: 'upstream_error', code: 'not_event_stream' });
    expect(errorOf(answer).message).toContain('instead of an event stream');
    expect(watcher.failures).toEqual([]);
  });

  it('a Codex backend error status whose body is cut by a reset is reported with its status, not as a 500', async () => {
    const answer = await chat(`chatgpt/${FUZZ_UPSTREAM_MODELS.chatgpt}`, { status: 400, headers: { 'content-type': 'application/json' }, pieces: [Buffer.from('{"error":{"mess')], reset: true });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).type).toBe('invalid_request_error');
    expect(errorOf(answer).message).toMatch(/ChatGPT|chatgpt/);
  });
});

/** Sends `body` as JSON to `path`. */
function post(path: string, body: unknown): Promise<RawAnswer> {
  return exchange(origin, { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) }, 20_000);
}

describe('fuzz findings, upstream side (Ollama)', () => {
  it('an Ollama host that answers 404 with garbled bytes gives an error saying who answered what, not the bytes alone', async () => {
    const garbled = Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xf0, 0x28, 0x8c, 0xbc, 0xff]);
    const answer = await chat(`ollama/${FUZZ_UPSTREAM_MODELS.ollamaNative}`, { status: 404, headers: { 'content-type': 'text/html' }, pieces: [garbled], reset: false });
    expect(answer.status).toBe(404);
    const error = errorOf(answer);
    expect(error.message).toContain(`The server at ${upstream.url} answered HTTP 404 (text/html)`);
    expect(error.message).toContain('check OLLAMA_HOST');
  });

  it('an Ollama error body that says it is JSON and is cut short prints nothing to the console and is the message', async () => {
    const answer = await chat(`ollama/${FUZZ_UPSTREAM_MODELS.ollamaNative}`, { status: 500, headers: { 'content-type': 'application/json' }, pieces: [Buffer.from('{"error":"model runner has unexp')], reset: false });
    expect(answer.status).toBe(502);
    expect(errorOf(answer).message).toContain('model runner has unexp');
    expect(watcher.failures).toEqual([]);
  });
});

describe('fuzz findings, error messages a user can act on', () => {
  it('a whole Ollama answer cut short says that Ollama sent an answer that is not JSON, not only the parser\'s words', async () => {
    const answer = await chat(`ollama/${FUZZ_UPSTREAM_MODELS.ollamaNative}`, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, pieces: [Buffer.from('{"model":"qwen3:0.6b","created_at":"2026-01-')], reset: false });
    expect(answer.status).toBe(502);
    expect(errorOf(answer).message).toContain(`Ollama at ${upstream.url} sent an answer that is not JSON`);
  });

  it('an Ollama stream that ends without its done line says the answer may be incomplete', async () => {
    const line = `${JSON.stringify({ model: 'qwen3:0.6b', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: 'Hel' }, done: false })}\n`;
    const answer = await chat(`ollama/${FUZZ_UPSTREAM_MODELS.ollamaNative}`, { status: 200, headers: { 'content-type': 'application/x-ndjson' }, pieces: [Buffer.from(line)], reset: false }, { stream: true });
    expect(answer.status).toBe(200);
    const text = answer.body.toString('utf8');
    expect(text).toContain(`The stream from Ollama at ${upstream.url} ended before its final line`);
    expect(text.trimEnd().endsWith('[DONE]') || text.includes('"error"')).toBe(true);
  });

  it('an Ollama stream whose error line carries an object quotes it, not "[object Object]"', async () => {
    const lines = [{ model: 'qwen3:0.6b', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: 'Hel' }, done: false }, { error: { message: 'overloaded', type: 'server_error' } }];
    const answer = await chat(`ollama/${FUZZ_UPSTREAM_MODELS.ollamaNative}`, { status: 200, headers: { 'content-type': 'application/x-ndjson' }, pieces: [Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(''))], reset: false }, { stream: true });
    expect(answer.status).toBe(200);
    expect(answer.body.toString('utf8')).toContain('reported an error in its streamed answer: {\\"message\\":\\"overloaded\\",\\"type\\":\\"server_error\\"}');
  });

  it('an OpenAI-compatible answer whose connection resets mid-body is a retryable 503 saying the connection was lost, not "failed: aborted"', async () => {
    const answer = await chat(`openai/${FUZZ_UPSTREAM_MODELS.openai}`, { status: 200, headers: { 'content-type': 'application/json' }, pieces: [Buffer.from('{"id":"chatcmpl-1","object":"chat.com')], reset: true });
    expect(answer.status).toBe(503);
    expect(errorOf(answer)).toMatchObject({ type: 'upstream_error', code: 'upstream_unavailable' });
    expect(errorOf(answer).message).toContain('was lost while the answer was read');
  });
});

describe('fuzz findings, objects with their own toString key (parsed JSON)', () => {
  it('a Codex backend reasoning delta whose item_id is {"toString": …} is read, not a 500', async () => {
    const events = [
      { type: 'response.created', response: { id: 'resp_1', model: 'gpt-5.4', status: 'in_progress' } },
      { type: 'response.reasoning_summary_text.delta', item_id: { toString: { polluted: true } }, summary_index: 0, delta: 'Hmm.' },
      { type: 'response.output_item.added', output_index: 1, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } },
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Hello.' },
      { type: 'response.completed', response: { id: 'resp_1', status: 'completed', usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } },
    ];
    const sse = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
    const answer = await chat(`chatgpt/${FUZZ_UPSTREAM_MODELS.chatgpt}`, { status: 200, headers: { 'content-type': 'text/event-stream' }, pieces: [Buffer.from(sse)], reset: false });
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.body.toString('utf8')) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('Hello.');
  });

  it('an upstream model list with an id of {"toString": 1} lists the other models, not a 500', async () => {
    upstream.listAnswer = (api) =>
      api === 'openai'
        ? { status: 200, headers: { 'content-type': 'application/json' }, pieces: [Buffer.from('{"object":"list","data":[{"id":{"toString":1},"object":"model"},{"id":"gpt-4o-mini","object":"model"}]}')], reset: false }
        : { status: 200, headers: { 'content-type': 'application/json' }, pieces: [Buffer.from('{"models":[{"name":"qwen3:0.6b","model":"qwen3:0.6b","modified_at":{"toString":1}}]}')], reset: false };
    try {
      const answer = await exchange(origin, { method: 'GET', path: '/v1/models', headers: {} }, 20_000);
      expect(answer.status).toBe(200);
      const ids = (JSON.parse(answer.body.toString('utf8')) as { data: { id: string }[] }).data.map((m) => m.id);
      expect(ids).toContain('openai/gpt-4o-mini');
      expect(ids).toContain('ollama/qwen3:0.6b');
    } finally {
      upstream.listAnswer = undefined;
    }
  });

  it('a Responses input part whose type is {"toString": 1} is a 400 naming it, not a 500', async () => {
    const answer = await post('/v1/responses', {
      model: `openai/${FUZZ_UPSTREAM_MODELS.openai}`,
      input: [{ role: 'assistant', content: [{ type: { toString: 1 }, text: 'Earlier answer.' }] }, { role: 'user', content: 'Go on.' }],
    });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).message).toContain('Content parts of type {"toString":1}');
  });
});

describe('fuzz findings, client side', () => {
  it('a tool schema with a property schema that is null is a 400 naming it, not a 500 from the text-tool prompt', async () => {
    const parameters = { type: 'object', properties: { city: null }, required: ['city'] };
    upstream.answer = () => ({ status: 200, headers: { 'content-type': 'application/x-ndjson' }, pieces: [], reset: false });
    const chat = await post('/v1/chat/completions', {
      model: `ollama/${FUZZ_UPSTREAM_MODELS.ollamaText}`,
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters } }],
      stream: true,
    });
    expect(chat.status).toBe(400);
    expect(errorOf(chat)).toMatchObject({ code: 'invalid_function_parameters' });
    expect(errorOf(chat).message).toContain("'tools[0].function.parameters.properties.city' is not a schema");
    const responses = await post('/v1/responses', { model: `ollama/${FUZZ_UPSTREAM_MODELS.ollamaText}`, input: 'Weather?', tools: [{ type: 'function', name: 'get_weather', parameters }] });
    expect(responses.status).toBe(400);
    expect(errorOf(responses).message).toContain("'tools[0].parameters.properties.city' is not a schema");
  });
});
