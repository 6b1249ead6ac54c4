// Local stand-ins for a ChatGPT sign-in's two servers: the Codex backend
// (chatgpt.com/backend-api: the model catalog and `POST /codex/responses` streaming
// Responses-API SSE events) and the sign-in server (auth.openai.com: the refresh grant of
// `POST /oauth/token`, with rotating refresh tokens), plus unsigned JWTs shaped like
// OpenAI's and the token file `toolwire login chatgpt` writes.
//
// Adapted, trimmed to what the gateway's tests use, from the @toolwire/provider-chatgpt-oauth
// test helpers (packages/provider-chatgpt-oauth/test/helpers/backend-server.ts,
// auth-server.ts, jwt.ts, http.ts), written by the Toolwire authors; the event shapes are
// the Codex backend's wire format as that package's research notes describe it. MIT, like
// the rest of the package.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One Responses-API stream event, sent as `event: <type>\ndata: <json>\n\n`. */
export type SseEvent = Record<string, unknown> & { type: string };

/** A request the fake backend received. */
export interface RecordedRequest {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    handler(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: String(error) });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A fake Codex backend: replies are queued per `POST /codex/responses`, in order. */
export interface FakeCodexBackend {
  /** The `baseURL` to configure (`{url}/codex/responses` is the endpoint). */
  url: string;
  requests: RecordedRequest[];
  /** Queues the SSE events of the next responses, one argument per request. */
  reply(...events: SseEvent[][]): void;
  close(): Promise<void>;
}

/** Starts the fake backend on 127.0.0.1; `models` are the catalog's slugs. */
export async function startFakeCodexBackend(options: { models: string[] }): Promise<FakeCodexBackend> {
  const replies: SseEvent[][] = [];
  const requests: RecordedRequest[] = [];
  const server = await listen(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'GET' && url.pathname === '/codex/models') {
      sendJson(response, 200, { models: options.models.map((slug) => ({ slug, base_instructions: `You are ${slug}, a coding agent.` })) }, { etag: '"catalog-v1"' });
      return;
    }
    if (request.method === 'POST' && url.pathname === '/codex/responses') {
      requests.push({ headers: request.headers, body: JSON.parse(await readBody(request)) as Record<string, unknown> });
      const events = replies.shift();
      if (events === undefined) {
        sendJson(response, 500, { detail: 'fake backend: no reply queued' });
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': `req_${requests.length}` });
      const text = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
      // Split the stream at arbitrary points so events straddle chunks.
      for (let index = 0; index < text.length; index += 37) {
        response.write(text.slice(index, index + 37));
        await new Promise((resolve) => setImmediate(resolve));
      }
      response.end();
      return;
    }
    sendJson(response, 404, { detail: 'Not Found' });
  });
  return { url: server.url, close: server.close, requests, reply: (...next) => replies.push(...next) };
}

let sequence = 0;

/** The events of a response that says `text`, in two deltas. */
export function textEvents(text: string): SseEvent[] {
  const id = `resp_${++sequence}`;
  const mid = `msg_${sequence}`;
  const half = Math.ceil(text.length / 2);
  return [
    { type: 'response.created', response: { id, model: 'gpt-5.4', status: 'in_progress' } },
    { type: 'response.in_progress', response: { id } },
    { type: 'response.output_item.added', output_index: 0, item: { id: mid, type: 'message', role: 'assistant', content: [] } },
    ...[text.slice(0, half), text.slice(half)]
      .filter((delta) => delta !== '')
      .map((delta) => ({ type: 'response.output_text.delta', item_id: mid, output_index: 0, content_index: 0, delta })),
    { type: 'response.output_text.done', item_id: mid, text },
    { type: 'response.output_item.done', output_index: 0, item: { id: mid, type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] } },
    {
      type: 'response.completed',
      response: { id, status: 'completed', usage: { input_tokens: 120, input_tokens_details: { cached_tokens: 100 }, output_tokens: 12, total_tokens: 132 } },
    },
  ];
}

/** The events of a response that calls tools, each call's arguments in three deltas. */
export function toolCallEvents(calls: { callId: string; name: string; arguments: string }[]): SseEvent[] {
  const id = `resp_${++sequence}`;
  const events: SseEvent[] = [{ type: 'response.created', response: { id, model: 'gpt-5.4' } }];
  calls.forEach((call, index) => {
    const itemId = `fc_${sequence}_${index}`;
    events.push({ type: 'response.output_item.added', output_index: index, item: { id: itemId, type: 'function_call', call_id: call.callId, name: call.name, arguments: '' } });
    const third = Math.ceil(call.arguments.length / 3);
    for (let start = 0; start < call.arguments.length; start += third) {
      events.push({ type: 'response.function_call_arguments.delta', item_id: itemId, output_index: index, delta: call.arguments.slice(start, start + third) });
    }
    events.push(
      { type: 'response.function_call_arguments.done', item_id: itemId, arguments: call.arguments },
      { type: 'response.output_item.done', output_index: index, item: { id: itemId, type: 'function_call', call_id: call.callId, name: call.name, arguments: call.arguments, status: 'completed' } },
    );
  });
  events.push({ type: 'response.completed', response: { id, status: 'completed', usage: { input_tokens: 50, output_tokens: 20, total_tokens: 70 } } });
  return events;
}

function makeJwt(payload: Record<string, unknown>): string {
  const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.${randomBytes(16).toString('base64url')}`;
}

/** An id token, access token and refresh token for account `acct-1234`, as the token endpoint returns them. */
export interface TokenSet {
  id_token: string;
  access_token: string;
  refresh_token: string;
}

/** A token set whose access token expires `expiresIn` seconds from now (negative: already expired). */
export function makeTokenSet(expiresIn = 3600): TokenSet {
  const auth = { chatgpt_account_id: 'acct-1234', chatgpt_plan_type: 'plus', chatgpt_user_id: 'user-1' };
  const exp = Math.floor(Date.now() / 1000) + expiresIn;
  return {
    id_token: makeJwt({ sub: 'auth0|user-1', email: 'ada@example.com', 'https://api.openai.com/auth': auth, exp }),
    access_token: makeJwt({ sub: 'auth0|user-1', 'https://api.openai.com/auth': auth, exp, nonce: randomBytes(8).toString('hex') }),
    refresh_token: `rt_${randomBytes(24).toString('base64url')}`,
  };
}

/** Writes `tokens` as the token file `toolwire login chatgpt` saves (Codex's `auth.json` shape). */
export async function writeTokenFile(path: string, tokens: TokenSet): Promise<void> {
  const file = { auth_mode: 'chatgpt', OPENAI_API_KEY: null, tokens: { ...tokens, account_id: 'acct-1234' }, last_refresh: new Date().toISOString() };
  await writeFile(path, JSON.stringify(file), { mode: 0o600 });
}

/** A fake sign-in server: only the refresh grant, with rotating refresh tokens. */
export interface FakeAuthServer {
  /** The `issuer` to configure. */
  url: string;
  /** Token sets issued by refreshes, oldest first. */
  issued: TokenSet[];
  readonly refreshCount: number;
  /** Makes `tokens` the current sign-in, as if this server had issued them. */
  adopt(tokens: TokenSet): void;
  /** Marks a refresh token as already used (the server answers `refresh_token_reused`). */
  retire(refreshToken: string): void;
  close(): Promise<void>;
}

/** Starts the fake sign-in server on 127.0.0.1. */
export async function startFakeAuthServer(): Promise<FakeAuthServer> {
  let current: string | undefined;
  const retired = new Set<string>();
  const issued: TokenSet[] = [];
  let refreshCount = 0;
  const adopt = (tokens: TokenSet): void => {
    if (current !== undefined) retired.add(current);
    current = tokens.refresh_token;
  };
  const server = await listen(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(request);
    if (request.method !== 'POST' || url.pathname !== '/oauth/token') {
      sendJson(response, 404, { error: 'not found' });
      return;
    }
    const params: Record<string, string> = request.headers['content-type']?.includes('json')
      ? (JSON.parse(body) as Record<string, string>)
      : Object.fromEntries(new URLSearchParams(body));
    if (params.grant_type !== 'refresh_token') {
      sendJson(response, 400, { error: 'unsupported_grant_type' });
      return;
    }
    refreshCount++;
    const token = params.refresh_token ?? '';
    if (retired.has(token)) {
      sendJson(response, 401, { error: { code: 'refresh_token_reused', message: 'Your refresh token has already been used to generate a new access token.' } });
      return;
    }
    if (token !== current) {
      sendJson(response, 400, { error: 'invalid_grant', error_description: 'unknown refresh token' });
      return;
    }
    const tokens = makeTokenSet();
    adopt(tokens);
    issued.push(tokens);
    sendJson(response, 200, tokens);
  });
  return {
    url: server.url,
    close: server.close,
    issued,
    get refreshCount() {
      return refreshCount;
    },
    adopt,
    retire: (refreshToken) => retired.add(refreshToken),
  };
}
