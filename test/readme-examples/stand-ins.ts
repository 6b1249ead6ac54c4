// Stand-ins on 127.0.0.1 that README examples run against: an Ollama server, an OpenAI
// server (Chat Completions, Responses, container files) and the Codex backend (with a
// ChatGPT sign-in in a home of its own), answering as a scripted model would, and the real
// gateway routing `ollama/…` to the Ollama stand-in.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { functionCallEvents } from '@toolwire/openai-responses/testing';
import { createServer as createGateway } from '@toolwire/server';
import type { StandIn } from './readme-blocks.ts';

/** What a running example needs from its stand-in. */
export interface RunningStandIn {
  /** Environment variables the example reads (base URLs, keys). */
  env: Record<string, string>;
  /** Text replacements in the block before it runs (the gateway's documented address). */
  replace: [from: string, to: string][];
  /** Requests the stand-in answered (so a test can tell the example really talked to it). */
  readonly requests: number;
  close(): Promise<void>;
}

interface WireMessage {
  role: string;
  content?: unknown;
}

interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

const cities = ['Paris', 'Rome', 'Lima', 'Tokyo'];

/**
 * The scripted model behind every stand-in: on a user's first question it calls the tools
 * it knows (one `get_weather` per city named, `calculate` for a product, `get_current_time`
 * for Tokyo); once the conversation holds an answer of its own it replies with text that
 * quotes the last message, so an example prints what its tools returned.
 */
function plan(messages: WireMessage[], toolNames: string[]): { calls: PlannedCall[] } | { text: string } {
  const text = (m: WireMessage | undefined): string => (typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? ''));
  const answered = messages.some((m) => m.role === 'assistant');
  const question = text(messages.findLast((m) => m.role === 'user'));
  if (!answered) {
    const calls: PlannedCall[] = [];
    if (toolNames.includes('get_weather')) {
      for (const city of cities) if (question.includes(city)) calls.push({ name: 'get_weather', arguments: { city } });
    }
    const product = /(\d+) \* (\d+)/.exec(question);
    if (toolNames.includes('calculate') && product !== null) calls.push({ name: 'calculate', arguments: { expression: product[0] } });
    if (toolNames.includes('get_current_time') && question.includes('Tokyo')) calls.push({ name: 'get_current_time', arguments: { timezone: 'Asia/Tokyo' } });
    if (calls.length > 0) return { calls };
    return { text: 'Hello from the stand-in.' };
  }
  return { text: `Done: ${text(messages.at(-1))}` };
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no address'));
      else resolve(`http://127.0.0.1:${address.port}`);
    });
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function serve(handle: (req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) => void): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    readBody(req).then(
      (body) => handle(req, res, body),
      (error: unknown) => json(res, 400, { error: String(error) }),
    );
  });
  const url = await listen(server);
  return {
    url,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Models with native tools; any other model is text-only (`/api/show` lists no `tools`). */
const nativeToolModels = new Set(['qwen3:0.6b']);

/** Ollama's `/api/tags`, `/api/show` and `/api/chat` (NDJSON when streamed). */
function startOllama() {
  return serve((req, res, body) => {
    const model = String(body.model);
    if (req.url === '/api/tags') {
      json(res, 200, {
        models: ['qwen3:0.6b', 'qwen2.5:0.5b'].map((name) => ({ name, model: name, digest: `sha-${name}`, size: 1, modified_at: '2026-01-01T00:00:00Z', details: {} })),
      });
    } else if (req.url === '/api/show') {
      json(res, 200, { capabilities: nativeToolModels.has(model) ? ['completion', 'tools'] : ['completion'], details: {}, model_info: {} });
    } else if (req.url === '/api/chat') {
      const messages = (body.messages ?? []) as WireMessage[];
      const native = ((body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
      // A text-only model sees its tools in the system prompt and writes calls as text.
      const prompt = messages.filter((m) => m.role === 'system').map((m) => String(m.content)).join('\n');
      const textTools = ['get_weather', 'calculate', 'get_current_time'].filter((name) => prompt.includes(name));
      const answer = plan(messages, native.length > 0 ? native : textTools);
      const message =
        'calls' in answer
          ? native.length > 0
            ? { role: 'assistant', content: '', tool_calls: answer.calls.map((c, index) => ({ function: { index, name: c.name, arguments: c.arguments } })) }
            : { role: 'assistant', content: answer.calls.map((c) => `${c.name}(${Object.entries(c.arguments).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')})`).join('\n') }
          : { role: 'assistant', content: answer.text };
      const done = { model, created_at: '2026-01-01T00:00:00Z', done: true, done_reason: 'stop', prompt_eval_count: 7, eval_count: 3 };
      if (body.stream === false) {
        json(res, 200, { ...done, message });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(`${JSON.stringify({ model, created_at: done.created_at, message, done: false })}\n`);
      res.end(`${JSON.stringify({ ...done, message: { role: 'assistant', content: '' } })}\n`);
    } else {
      json(res, 404, { error: `no ${String(req.url)} here` });
    }
  });
}

const codeInterpreterFixture = (root: string): unknown =>
  JSON.parse(readFileSync(join(root, 'packages/code-interpreter/src/__fixtures__/openai-code-interpreter-tool.1.json'), 'utf8'));

/** OpenAI's Chat Completions (streamed or not), Responses (not streamed) and container file contents. */
function startOpenAI(root: string) {
  return serve((req, res, body) => {
    const url = req.url ?? '';
    if (url === '/v1/chat/completions') {
      const tools = ((body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
      const answer = plan((body.messages ?? []) as WireMessage[], tools);
      const calls = 'calls' in answer ? answer.calls.map((c, i) => ({ id: `call_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) : undefined;
      const base = { id: 'chatcmpl-standin', created: 1, model: String(body.model) };
      const finish = calls ? 'tool_calls' : 'stop';
      if (body.stream !== true) {
        const message = { role: 'assistant', content: 'text' in answer ? answer.text : null, refusal: null, ...(calls ? { tool_calls: calls } : {}) };
        json(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish, logprobs: null }] });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (delta: unknown, finishReason: string | null = null) =>
        res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`);
      send({ role: 'assistant', content: '' });
      if ('text' in answer) send({ content: answer.text });
      calls?.forEach((c, index) => {
        send({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] });
        send({ tool_calls: [{ index, function: { arguments: c.function.arguments } }] });
      });
      send({}, finish);
      res.end('data: [DONE]\n\n');
    } else if (url === '/v1/responses') {
      const tools = (body.tools ?? []) as { type: string }[];
      // A recorded code-interpreter turn (vercel/ai's fixture) when the tool is asked for.
      if (tools.some((t) => t.type === 'code_interpreter')) {
        json(res, 200, codeInterpreterFixture(root));
        return;
      }
      const text = 'Hello from the stand-in.';
      const message = { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
      json(res, 200, {
        id: 'resp_standin',
        object: 'response',
        created_at: 1,
        status: 'completed',
        error: null,
        incomplete_details: null,
        model: String(body.model),
        output: [message],
        parallel_tool_calls: true,
        tool_choice: 'auto',
        tools: [],
        usage: { input_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 10 },
      });
    } else if (/^\/v1\/containers\/[\w-]+\/files\/[\w-]+\/content$/.test(url)) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end('7\n5\n11\n');
    } else {
      json(res, 404, { error: { message: `no ${url} here`, type: 'invalid_request_error', param: null, code: null } });
    }
  });
}

/** An unsigned JWT shaped like OpenAI's (the provider reads claims; the backend would verify). */
function unsignedJwt(payload: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.stand-in`;
}

/** Codex's `auth.json` for a ChatGPT sign-in whose access token is good for an hour. */
function codexAuthFile(): string {
  const auth = { chatgpt_account_id: 'acct-stand-in', chatgpt_plan_type: 'plus', chatgpt_user_id: 'user-stand-in' };
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const claims = { sub: 'auth0|stand-in', 'https://api.openai.com/auth': auth, exp };
  return JSON.stringify({
    auth_mode: 'chatgpt',
    OPENAI_API_KEY: null,
    tokens: { id_token: unsignedJwt({ ...claims, email: 'ada@example.com' }), access_token: unsignedJwt(claims), refresh_token: 'rt_stand-in', account_id: 'acct-stand-in' },
    last_refresh: new Date().toISOString(),
  });
}

/** The Codex backend: the model catalog and `POST /codex/responses` as a Responses event stream. */
function startCodexBackend() {
  return serve((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/codex/models') {
      json(res, 200, { models: [] });
      return;
    }
    if (url.pathname !== '/codex/responses') {
      json(res, 404, { detail: `no ${url.pathname} here` });
      return;
    }
    const input = (body.input ?? []) as { type?: string; role?: string; content?: unknown; output?: unknown }[];
    const tools = ((body.tools ?? []) as { name?: string }[]).map((t) => t.name ?? '');
    // The Responses input as chat messages: a function call is the model's own answer.
    const messages: WireMessage[] = input.map((item) =>
      item.type === 'function_call' ? { role: 'assistant' } : item.type === 'function_call_output' ? { role: 'tool', content: item.output } : { role: item.role ?? 'user', content: item.content },
    );
    const answer = plan(messages, tools);
    const events =
      'calls' in answer
        ? functionCallEvents(answer.calls.map((c, i) => ({ callId: `call_${String(i)}`, name: c.name, fragments: [JSON.stringify(c.arguments)] })))
        : functionCallEvents([], answer.text);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    res.end();
  });
}

/** Starts what an example marked `run with <standIn>` talks to. */
export async function startStandIn(standIn: StandIn, root: string): Promise<RunningStandIn> {
  switch (standIn) {
    case 'none':
      return { env: {}, replace: [], requests: 0, close: () => Promise.resolve() };
    case 'ollama': {
      const ollama = await startOllama();
      return {
        env: { OLLAMA_HOST: ollama.url },
        replace: [],
        get requests() {
          return ollama.requests();
        },
        close: ollama.close,
      };
    }
    case 'openai': {
      const openai = await startOpenAI(root);
      return {
        env: { OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: 'sk-stand-in' },
        replace: [],
        get requests() {
          return openai.requests();
        },
        close: openai.close,
      };
    }
    case 'chatgpt': {
      const backend = await startCodexBackend();
      // A home of its own holding a Codex sign-in, so `whoami()` finds one and no real one is read.
      const home = mkdtempSync(join(tmpdir(), 'toolwire-readme-home-'));
      mkdirSync(join(home, '.codex'));
      writeFileSync(join(home, '.codex', 'auth.json'), codexAuthFile(), { mode: 0o600 });
      return {
        env: { HOME: home, CODEX_HOME: join(home, '.codex') },
        replace: [['createChatGPT()', `createChatGPT({ baseURL: '${backend.url}' })`]],
        get requests() {
          return backend.requests();
        },
        close: async () => {
          await backend.close();
          rmSync(home, { recursive: true, force: true });
        },
      };
    }
    case 'gateway': {
      const ollama = await startOllama();
      const gateway = createGateway({ logLevel: 'silent', providers: { ollama: { host: ollama.url } } });
      const baseURL = await gateway.listen({ port: 0, host: '127.0.0.1' });
      return {
        // Without configured keys the gateway takes any key (loopback only).
        env: { TOOLWIRE_API_KEY: 'sk-stand-in' },
        replace: [['http://127.0.0.1:8787', baseURL.slice(0, -'/v1'.length)]],
        get requests() {
          return ollama.requests();
        },
        close: async () => {
          await gateway.close();
          await ollama.close();
        },
      };
    }
  }
}
