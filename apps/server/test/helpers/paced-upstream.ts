import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGzip } from 'node:zlib';

/**
 * A stand-in for the model servers the gateway talks to, realistic at their worst: one
 * HTTP server on 127.0.0.1 that speaks OpenAI Chat Completions (`/v1/chat/completions`
 * as JSON or SSE, `/v1/models`) and Ollama (`/api/chat` as JSON or NDJSON, `/api/tags`,
 * `/api/show`), writes streamed events one by one with pauses, and can leave out the
 * usage chunk, put usage on the finish chunk, trickle events in pieces or byte by byte,
 * pause midway, reset the connection at once or mid-stream, end the body halfway or without
 * `[DONE]`, fall silent, or send garbage. What the model answers is scripted per test from
 * the request it receives (down to the exact deltas, where a test needs them); every
 * request is recorded, with when each event was written. The model is obedient where real ones are (it calls only tools it was offered,
 * and OpenAI's never under `tool_choice: "none"`) and nowhere else.
 */

/** The models the Ollama side lists: one with native tools, one that only writes text. */
export const OLLAMA_NATIVE_MODEL = 'qwen3:0.6b';
export const OLLAMA_TEXT_MODEL = 'gemma3:1b';
/** The model the OpenAI side lists (any other name is answered with a 404 `model_not_found`). */
export const OPENAI_MODEL = 'gpt-4o-mini';

/** A call the scripted model makes. */
export interface ScriptedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** Where usage goes in a streamed OpenAI answer (Ollama always reports it on its final line unless `'none'`). */
export type UsageMode = 'chunk' | 'finish' | 'none';

/** How a streamed answer ends. */
export type StreamEnding =
  /** `[DONE]` (OpenAI) or the `done: true` line (Ollama), then the body ends. */
  | 'done'
  /** The body ends after the last event, without `[DONE]` or the `done` line. */
  | 'no-done'
  /** The TCP connection is reset after about half the events (a non-streamed body: after half its bytes). */
  | 'reset'
  /** The TCP connection is reset before anything is written, as by a crashing server. */
  | 'reset-at-once'
  /** The body ends cleanly after about half the events: no finish, no `[DONE]` (a non-streamed body: its first half, not JSON). */
  | 'cut'
  /** After about half the events a line that is not JSON arrives, then the stream goes on (a non-streamed body: its first half, not JSON). */
  | 'garbage'
  /** After about half the events (a non-streamed request: before any response) the server falls silent, the connection open until the other side closes it. */
  | 'stall'
  /** After about half the events an error object arrives as OpenAI sends one mid-stream (`data: {"error": …}`), then the body ends (a non-streamed request: a 500 with that error). */
  | 'error'
  /** A non-streamed request: a 200 whose JSON is not a chat completion (a proxy's or another API's JSON). A stream ends as with `done`. */
  | 'wrong-shape';

/** What OpenAI sends when a request fails on its side. */
const SERVER_ERROR = { error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } };

/** One Chat Completions choice delta, written as given, with the finish reason it carries (if any). */
export interface ScriptedDelta {
  delta: Record<string, unknown>;
  finish?: string;
}

/** What the scripted model answers in one turn, and how the server delivers it. */
export interface ScriptedTurn {
  /** Text the model writes (before its calls, if any). */
  text?: string;
  /** Calls the model makes: native calls on OpenAI and the native Ollama model, call text (`name(key=value)`) on the text-only model. */
  toolCalls?: ScriptedCall[];
  /**
   * OpenAI, streamed only: the choice deltas to send, as given, instead of those built from
   * `text` and `toolCalls` (for call fragments in an exact order); usage follows `usage`.
   */
  deltas?: ScriptedDelta[];
  /** Pause before each streamed event (default: the server's `pauseMs`). */
  pauseMs?: number;
  /** A further pause this long before the event about halfway, then the rest. */
  midPauseMs?: number;
  usage?: UsageMode;
  ending?: StreamEnding;
  /**
   * OpenAI: `true` puts SSE comments and keep-alive lines between events (harmless to any
   * client); `'junk'` also lines without a colon, bare `id:` and `retry:` fields and stray
   * non-UTF-8 bytes, all of which an SSE reader must skip.
   */
  noise?: boolean | 'junk';
  /** `true`: each event written in three pieces with pauses between them, as a slow link delivers it; `'bytes'`: one byte at a time. */
  trickle?: boolean | 'bytes';
  /** An HTTP error instead of an answer. */
  error?: { status: number; message: string; code?: string };
  /**
   * Streamed only: the body gzip-compressed though the gateway did not ask for it (a proxy
   * that compresses everything), flushed after every write as such a proxy flushes events.
   */
  compress?: 'gzip';
}

/** A request as the scripted model sees it, the same on both wire formats. */
export interface UpstreamRequest {
  api: 'openai' | 'ollama';
  /** The model id without the gateway's prefix. */
  model: string;
  stream: boolean;
  body: Record<string, unknown>;
  /** `role` and text `content` of each message (tool results included). */
  messages: { role: string; content: string }[];
  /** Names of the native tools offered (none on the text-only model, which gets them in its prompt). */
  toolNames: string[];
  /** The results of earlier calls the request carries: `tool` messages, or (text-only model) the rendered results in user turns. */
  toolResults: string[];
  /** The system prompt (where the text-only model learns its tools). */
  system: string;
}

/** Decides the model's turn from the request. */
export type Script = (request: UpstreamRequest) => ScriptedTurn;

/** One request the server received. */
export interface RecordedRequest extends UpstreamRequest {
  path: string;
  headers: IncomingMessage['headers'];
  /** When the server wrote the last event of its answer (ms since the epoch), if it got that far. */
  lastEventAt?: number;
  /** When it wrote the event that ends the turn (OpenAI's finish chunk, Ollama's `done` line), if it got that far. */
  finishWrittenAt?: number;
  /** `performance.now()` when each streamed event was written, then the end marker (`[DONE]`, the `done` line). */
  sentAt: number[];
}

/** The running server. */
export interface PacedUpstream {
  /** `http://127.0.0.1:<port>`: OpenAI base URL is `${url}/v1`, Ollama host is `url`. */
  url: string;
  /** Every chat request received, in order. */
  requests: RecordedRequest[];
  /** Replaces what the model answers from now on. */
  script: Script;
  /** Default pause between streamed events, in ms. */
  pauseMs: number;
  /** Chat responses not yet finished or closed. */
  readonly inFlight: number;
  /** Chat responses whose connection closed before they were finished (the gateway went away, or a reset). */
  readonly closedEarly: number;
  /** Forgets recorded requests and counters, and sets the script back to plain text. */
  reset(): void;
  close(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when the response's connection closes (the gateway gave up, or the server closed). */
const closed = (res: ServerResponse): Promise<void> => new Promise((resolve) => (res.destroyed ? resolve() : res.once('close', () => resolve())));

/** What `noise: 'junk'` puts between events, in turn: each is skipped by a reader that follows the SSE spec. */
const JUNK: readonly (string | Buffer)[] = [
  ': keep-alive comment\n\n',
  'garbage without a colon\n\n',
  'id: 5\n\n',
  'retry: abc\nid: 7\n\n',
  Buffer.from([0xff, 0xfe, 0x0a, 0x0a]),
];

/** Splits text into pieces of 1–`max` characters, as tokenizers do (deterministic). */
export function piecesOf(text: string, max = 4): string[] {
  const pieces: string[] = [];
  let size = 1;
  for (let i = 0; i < text.length; i += size, size = (size % max) + 1) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** A call as a text-only model writes it: `name(key="value", n=1)`. */
export function callText(call: ScriptedCall): string {
  const args = Object.entries(call.arguments).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  return `${call.name}(${args.join(', ')})`;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part: unknown) => (typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '')).join('');
  }
  return '';
}

function toUpstreamRequest(api: 'openai' | 'ollama', body: Record<string, unknown>): UpstreamRequest {
  const raw = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  const messages = raw.map((m) => ({ role: String(m.role), content: textOf(m.content) }));
  const tools = Array.isArray(body.tools) ? (body.tools as { function?: { name?: string } }[]) : [];
  const toolResults = messages.flatMap((m) => {
    if (m.role === 'tool') return [m.content];
    // The gateway renders results for a text-only model as user turns (see @toolwire/extract's renderToolResult).
    if (m.role === 'user' && (m.content.startsWith('Result of ') || m.content.startsWith('Error from '))) return [m.content];
    return [];
  });
  return {
    api,
    model: String(body.model),
    // OpenAI streams only when asked; Ollama streams unless told not to.
    stream: api === 'openai' ? body.stream === true : body.stream !== false,
    body,
    messages,
    toolNames: tools.map((t) => String(t.function?.name)),
    toolResults,
    system: messages
      .filter((m) => m.role === 'system' || m.role === 'developer')
      .map((m) => m.content)
      .join('\n'),
  };
}

/** The default model: says what it was asked, never calls a tool. */
const echo: Script = (request) => ({ text: `You said: ${request.messages.at(-1)?.content ?? ''}` });

/** Starts the server on 127.0.0.1 with a free port. */
export async function startPacedUpstream(options: { script?: Script; pauseMs?: number } = {}): Promise<PacedUpstream> {
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  let closedEarly = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      // A failure of the stand-in itself: make it loud in the test, never hang the gateway.
      console.error('paced upstream failed', error);
      res.destroy();
    });
  });

  const upstream: PacedUpstream = {
    url: '',
    requests,
    script: options.script ?? echo,
    pauseMs: options.pauseMs ?? 15,
    get inFlight() {
      return inFlight;
    },
    get closedEarly() {
      return closedEarly;
    },
    reset() {
      requests.length = 0;
      closedEarly = 0;
      upstream.script = options.script ?? echo;
      upstream.pauseMs = options.pauseMs ?? 15;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    // Decoded once: a multi-byte character may straddle two chunks.
    const text = Buffer.concat(chunks).toString('utf8');
    if (text === '') return {};
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  }

  function json(res: ServerResponse, status: number, value: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'GET' && path === '/v1/models') {
      json(res, 200, { object: 'list', data: [{ id: OPENAI_MODEL, object: 'model', created: 1_700_000_000, owned_by: 'system' }] });
      return;
    }
    if (req.method === 'GET' && path === '/api/tags') {
      json(res, 200, {
        models: [OLLAMA_NATIVE_MODEL, OLLAMA_TEXT_MODEL].map((name) => ({
          name,
          model: name,
          modified_at: '2026-01-01T00:00:00Z',
          size: 522_653_767,
          digest: `sha256:${name === OLLAMA_NATIVE_MODEL ? 'a' : 'b'}${'0'.repeat(63)}`,
          details: { format: 'gguf', family: name.split(':')[0], parameter_size: '1B', quantization_level: 'Q4_K_M' },
        })),
      });
      return;
    }
    if (req.method === 'POST' && path === '/api/show') {
      if (body.model !== OLLAMA_NATIVE_MODEL && body.model !== OLLAMA_TEXT_MODEL) {
        json(res, 404, { error: `model '${String(body.model)}' not found` });
        return;
      }
      // gemma3 has no tools in its template; qwen3 has native tools.
      json(res, 200, {
        capabilities: body.model === OLLAMA_NATIVE_MODEL ? ['completion', 'tools', 'thinking'] : ['completion', 'vision'],
        details: { format: 'gguf', family: body.model.split(':')[0] },
        model_info: {},
        template: '',
      });
      return;
    }
    const api = path === '/v1/chat/completions' ? 'openai' : path === '/api/chat' ? 'ollama' : undefined;
    if (api === undefined || req.method !== 'POST') {
      json(res, 404, api === 'ollama' ? { error: '404 page not found' } : { error: { message: `Unknown request URL: ${req.method ?? ''} ${path}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } });
      return;
    }
    const request = toUpstreamRequest(api, body);
    const recorded: RecordedRequest = { ...request, path, headers: req.headers, sentAt: [] };
    requests.push(recorded);

    const known = api === 'openai' ? request.model === OPENAI_MODEL : request.model === OLLAMA_NATIVE_MODEL || request.model === OLLAMA_TEXT_MODEL;
    if (!known) {
      if (api === 'openai') {
        json(res, 404, { error: { message: `The model \`${request.model}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', param: null, code: 'model_not_found' } });
      } else {
        json(res, 404, { error: `model "${request.model}" not found, try pulling it first` });
      }
      return;
    }
    // Ollama refuses native tools for a model whose template has none.
    if (api === 'ollama' && request.model === OLLAMA_TEXT_MODEL && request.toolNames.length > 0) {
      json(res, 400, { error: `registry.ollama.ai/library/${request.model} does not support tools` });
      return;
    }

    const turn = upstream.script(request);
    if (turn.deltas !== undefined && (api !== 'openai' || !request.stream)) throw new Error('scripted deltas are for streamed OpenAI answers only');
    if (turn.error !== undefined) {
      if (api === 'openai') {
        json(res, turn.error.status, { error: { message: turn.error.message, type: 'invalid_request_error', param: null, code: turn.error.code ?? null } });
      } else {
        json(res, turn.error.status, { error: turn.error.message });
      }
      return;
    }

    inFlight++;
    let finished = false;
    res.on('close', () => {
      inFlight--;
      if (!finished) closedEarly++;
    });
    const events = api === 'openai' ? openAIEvents(request, turn) : ollamaEvents(request, turn);
    const pause = turn.pauseMs ?? upstream.pauseMs;
    const ending = turn.ending ?? 'done';
    if (ending === 'reset-at-once') {
      req.socket.resetAndDestroy();
      return;
    }
    if (!request.stream) {
      if (ending === 'stall') {
        await closed(res);
        return;
      }
      if (ending === 'error') {
        finished = true;
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(SERVER_ERROR));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      const whole = JSON.stringify(events.whole);
      if (ending === 'reset') {
        res.write(whole.slice(0, whole.length >> 1));
        await sleep(pause);
        req.socket.resetAndDestroy();
        return;
      }
      if (ending === 'cut' || ending === 'garbage') {
        finished = true;
        res.end(whole.slice(0, whole.length >> 1));
        return;
      }
      if (ending === 'wrong-shape') {
        finished = true;
        res.end(JSON.stringify({ object: 'list', data: [], choices: { 0: events.whole } }));
        return;
      }
      res.end(whole);
      finished = true;
      recorded.lastEventAt = Date.now();
      return;
    }
    const encoding = turn.compress === 'gzip' ? { 'content-encoding': 'gzip' } : {};
    res.writeHead(200, api === 'openai' ? { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...encoding } : { 'content-type': 'application/x-ndjson', ...encoding });
    res.flushHeaders();
    const gzip = turn.compress === 'gzip' ? createGzip() : undefined;
    gzip?.pipe(res);
    // Every write of the streamed body, through the compressor when there is one.
    const write = (chunk: string | Uint8Array): void => {
      if (gzip === undefined) {
        res.write(chunk);
        return;
      }
      gzip.write(chunk);
      gzip.flush();
    };
    const half = Math.max(1, Math.floor(events.lines.length / 2));
    for (let i = 0; i < events.lines.length; i++) {
      if (pause > 0) await sleep(pause);
      if (i === half && turn.midPauseMs !== undefined) await sleep(turn.midPauseMs);
      // The gateway left (its client went away): stop writing, as a real server does.
      if (res.destroyed) return;
      if (i === half && ending === 'reset') {
        req.socket.resetAndDestroy();
        return;
      }
      if (i === half && ending === 'cut') {
        finished = true;
        res.end();
        return;
      }
      if (i === half && ending === 'stall') {
        await closed(res);
        return;
      }
      if (i === half && ending === 'error' && api === 'openai') {
        finished = true;
        res.end(`data: ${JSON.stringify(SERVER_ERROR)}\n\n`);
        return;
      }
      if (i === half && ending === 'garbage') write(api === 'openai' ? 'data: {"id":"chatcmpl-9x","object":"chat.completion.ch\n\n' : '{"model":"qwen3:0.6b","message":{"rol\n');
      if (turn.noise === true && api === 'openai') write(i % 2 === 0 ? ': keep-alive\n\n' : ': OPENROUTER PROCESSING\n\n');
      if (turn.noise === 'junk' && api === 'openai') write(JUNK[i % JUNK.length]!);
      const line = events.lines[i] ?? '';
      if (turn.trickle === 'bytes') {
        const bytes = Buffer.from(line);
        for (let at = 0; at < bytes.length; at++) {
          if (res.destroyed) return;
          write(bytes.subarray(at, at + 1));
          if (at % 8 === 7) await sleep(1);
        }
      } else if (turn.trickle === true) {
        const third = Math.ceil(line.length / 3);
        for (let at = 0; at < line.length; at += third) {
          if (at > 0) await sleep(Math.max(1, pause >> 1));
          if (res.destroyed) return;
          write(line.slice(at, at + third));
        }
      } else {
        write(line);
      }
      recorded.sentAt.push(performance.now());
      if (i === events.finishIndex) recorded.finishWrittenAt = Date.now();
    }
    recorded.lastEventAt = Date.now();
    if (ending !== 'no-done') {
      write(events.done);
      recorded.sentAt.push(performance.now());
      if (api === 'ollama') recorded.finishWrittenAt = recorded.lastEventAt;
    }
    finished = true;
    if (gzip === undefined) res.end();
    else gzip.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the paced upstream has no port');
  upstream.url = `http://127.0.0.1:${address.port}`;
  return upstream;
}

/** A streamed answer as wire lines, the end marker, and the same answer in one JSON body. */
interface WireAnswer {
  lines: string[];
  /** The line that ends the turn (-1: the `done` marker does). */
  finishIndex: number;
  done: string;
  whole: unknown;
}

const USAGE = { prompt_tokens: 57, completion_tokens: 17, total_tokens: 74 };

/**
 * A model can only make native calls to tools it was offered (and OpenAI's never under
 * `tool_choice: "none"`); otherwise a model set on calling writes the call as text.
 */
function nativeCallsOf(request: UpstreamRequest, turn: ScriptedTurn): { text: string; calls: ScriptedCall[] } {
  const calls = turn.toolCalls ?? [];
  const text = turn.text ?? '';
  const canCall = request.toolNames.length > 0 && !(request.api === 'openai' && request.body.tool_choice === 'none');
  if (canCall || calls.length === 0) return { text, calls };
  return { text: [text, ...calls.map(callText)].filter((part) => part !== '').join('\n'), calls: [] };
}

function openAIEvents(request: UpstreamRequest, scripted: ScriptedTurn): WireAnswer {
  const { text, calls: nativeCalls } = nativeCallsOf(request, scripted);
  const turn: ScriptedTurn = { ...scripted, text, toolCalls: nativeCalls };
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 14)}`;
  const created = Math.floor(Date.now() / 1000);
  const base = { id, object: 'chat.completion.chunk', created, model: `${request.model}-2024-07-18`, system_fingerprint: 'fp_0aa8d3e20b', service_tier: 'default' };
  const calls = (turn.toolCalls ?? []).map((call, index) => ({
    index,
    id: `call_${Math.random().toString(36).slice(2, 12)}${index}`,
    name: call.name,
    arguments: JSON.stringify(call.arguments),
  }));
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  const frame = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;
  const chunk = (delta: unknown, finishReason: string | null = null, extra: Record<string, unknown> = {}): string =>
    frame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...extra });

  const usage = turn.usage ?? 'chunk';
  const wantsUsage = (request.body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const lines: string[] = [];
  let finishIndex: number;
  if (turn.deltas !== undefined) {
    for (const { delta, finish: reason } of turn.deltas) lines.push(chunk(delta, reason ?? null, reason !== undefined && usage === 'finish' ? { usage: USAGE } : {}));
    finishIndex = turn.deltas.findIndex((delta) => delta.finish !== undefined);
  } else {
    lines.push(chunk({ role: 'assistant', content: calls.length > 0 && text === '' ? null : '', refusal: null }));
    for (const piece of piecesOf(text)) lines.push(chunk({ content: piece }));
    for (const call of calls) {
      lines.push(chunk({ tool_calls: [{ index: call.index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      for (const piece of piecesOf(call.arguments, 6)) lines.push(chunk({ tool_calls: [{ index: call.index, function: { arguments: piece } }] }));
    }
    finishIndex = lines.length;
    lines.push(chunk({}, finish, usage === 'finish' ? { usage: USAGE } : {}));
  }
  if (usage === 'chunk' && wantsUsage) lines.push(frame({ ...base, choices: [], usage: USAGE }));

  const whole = {
    id,
    object: 'chat.completion',
    created,
    model: base.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && calls.length > 0 ? null : text,
          refusal: null,
          annotations: [],
          ...(calls.length > 0 ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
        },
        logprobs: null,
        finish_reason: finish,
      },
    ],
    ...(usage === 'none' ? {} : { usage: USAGE }),
    service_tier: 'default',
    system_fingerprint: base.system_fingerprint,
  };
  return { lines, finishIndex, done: 'data: [DONE]\n\n', whole };
}

function ollamaEvents(request: UpstreamRequest, turn: ScriptedTurn): WireAnswer {
  const textModel = request.model === OLLAMA_TEXT_MODEL;
  const calls = turn.toolCalls ?? [];
  // Under a JSON Schema `format` (how the gateway forces a call), the answer is the call as JSON.
  const forced = typeof request.body.format === 'object' && request.body.format !== null && calls[0] !== undefined;
  let text = turn.text ?? '';
  if (forced) text = JSON.stringify({ name: calls[0]?.name, arguments: calls[0]?.arguments });
  else if (textModel && calls.length > 0) text = [text, ...calls.map(callText)].filter((part) => part !== '').join('\n');
  else if (!textModel) text = nativeCallsOf(request, turn).text;
  const native = !forced && !textModel ? nativeCallsOf(request, turn).calls : [];
  const nativeCalls = native.length > 0 ? native.map((call, index) => ({ function: { index, name: call.name, arguments: call.arguments } })) : undefined;

  const stamp = (): string => new Date().toISOString();
  const message = (content: string, toolCalls?: unknown[]): string =>
    `${JSON.stringify({ model: request.model, created_at: stamp(), message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, done: false })}\n`;
  const lines = piecesOf(text).map((piece) => message(piece));
  // Ollama sends each native call whole, arguments as an object.
  if (nativeCalls !== undefined) lines.push(message('', nativeCalls));
  const usage = turn.usage === 'none' ? {} : { total_duration: 1_245_000_000, load_duration: 50_000_000, prompt_eval_count: 57, prompt_eval_duration: 90_000_000, eval_count: 17, eval_duration: 1_000_000_000 };
  const final = { model: request.model, created_at: stamp(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', ...usage };
  const whole = { ...final, message: { role: 'assistant', content: text, ...(nativeCalls ? { tool_calls: nativeCalls } : {}) } };
  return { lines, finishIndex: -1, done: `${JSON.stringify(final)}\n`, whole };
}
