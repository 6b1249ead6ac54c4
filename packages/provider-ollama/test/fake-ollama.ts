// A small Ollama server for tests: real node:http on 127.0.0.1 speaking /api/chat (JSON
// and NDJSON streaming), /api/show and /api/tags with the payload shapes and error
// messages of Ollama's server (server/routes.go).
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the model says in one turn. */
export interface FakeTurn {
  content?: string;
  thinking?: string;
  tool_calls?: { id?: string; function: { index?: number; name: string; arguments: unknown } }[];
  done_reason?: string;
  /** Streamed: an `{"error": …}` line after the content instead of the final chunk. */
  streamError?: string;
  /** Streamed: stop after the content without a done chunk (a dropped connection). */
  cutOff?: boolean;
  /** Streamed: after the content (paced), destroy the socket mid-answer (Ollama crashed or was killed). */
  dropConnection?: boolean;
  /** Streamed: keep the response open after the content until the client goes away. */
  hold?: boolean;
}

/** An HTTP error instead of a turn. */
export interface FakeHttpError {
  status: number;
  error: string;
}

/** An installed model. */
export interface FakeModel {
  capabilities: string[];
  /** Answer /api/show without `capabilities`, like servers before 0.6.4. */
  hideCapabilities?: boolean;
  digest?: string;
  /** Answers /api/chat; `index` counts this model's chat calls from 0. */
  reply: (body: ChatBody, index: number) => FakeTurn | FakeHttpError;
}

/** The /api/chat body as the server received it. */
export interface ChatBody {
  model: string;
  messages: {
    role: string;
    content: string;
    thinking?: string;
    images?: string[];
    tool_calls?: { id?: string; function: { name: string; arguments: unknown } }[];
    tool_name?: string;
    tool_call_id?: string;
  }[];
  tools?: { type: string; function: { name: string; description?: string; parameters: unknown } }[];
  format?: unknown;
  think?: unknown;
  keep_alive?: unknown;
  options?: Record<string, unknown>;
  stream?: boolean;
}

/** One request the server saw. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** A running fake server. */
export interface FakeOllama {
  host: string;
  models: Map<string, FakeModel>;
  requests: RecordedRequest[];
  chatBodies(): ChatBody[];
  /** Resolves when a client closes a held stream (see `FakeTurn.hold`). */
  nextAbandonedStream(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a fake Ollama on 127.0.0.1 with a free port. */
export async function startFakeOllama(models: Record<string, FakeModel> = {}): Promise<FakeOllama> {
  const state: State = { models: new Map(Object.entries(models)), requests: [], calls: new Map(), abandoned: [] };
  const server = createServer((req, res) => {
    void handle(state, req, res).catch((error: unknown) => {
      sendJson(res, 500, { error: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `http://127.0.0.1:${port}`,
    models: state.models,
    requests: state.requests,
    chatBodies: () => state.requests.filter((r) => r.path === '/api/chat').map((r) => r.body as ChatBody),
    nextAbandonedStream: () => new Promise<void>((resolve) => state.abandoned.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(value));
}

const CREATED_AT = '2026-11-22T14:00:00.000000Z';

interface State {
  models: Map<string, FakeModel>;
  requests: RecordedRequest[];
  calls: Map<string, number>;
  abandoned: (() => void)[];
}

async function handle(
  state: State,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readBody(req);
  const path = req.url ?? '';
  state.requests.push({ method: req.method ?? '', path, headers: req.headers, body });

  if (path === '/api/tags' && req.method === 'GET') {
    sendJson(res, 200, {
      models: [...state.models.entries()].map(([name, model]) => ({
        name,
        model: name,
        modified_at: '2026-11-01T10:00:00.000000Z',
        size: 522_653_767,
        digest: model.digest ?? `digest-of-${name}`,
        details: { parent_model: '', format: 'gguf', family: 'qwen3', families: ['qwen3'], parameter_size: '751.63M', quantization_level: 'Q4_K_M' },
      })),
    });
    return;
  }
  if (path === '/api/show' && req.method === 'POST') {
    const name = (body as { model: string }).model;
    const model = state.models.get(name);
    if (model === undefined) {
      sendJson(res, 404, { error: `model '${name}' not found` });
      return;
    }
    sendJson(res, 200, {
      license: '',
      modelfile: `FROM ${name}`,
      parameters: 'temperature 0.6',
      template: '{{ .Prompt }}',
      details: { parent_model: '', format: 'gguf', family: 'qwen3', families: ['qwen3'], parameter_size: '751.63M', quantization_level: 'Q4_K_M' },
      model_info: { 'general.architecture': 'qwen3' },
      ...(model.hideCapabilities === true ? {} : { capabilities: model.capabilities }),
      modified_at: '2026-11-01T10:00:00.000000Z',
    });
    return;
  }
  if (path === '/api/chat' && req.method === 'POST') {
    const chat = body as ChatBody;
    const model = state.models.get(chat.model);
    if (model === undefined) {
      sendJson(res, 404, { error: `model "${chat.model}" not found, try pulling it first` });
      return;
    }
    if ((chat.tools?.length ?? 0) > 0 && !model.capabilities.includes('tools')) {
      sendJson(res, 400, { error: `registry.ollama.ai/library/${chat.model} does not support tools` });
      return;
    }
    if (chat.think !== undefined && chat.think !== false && !model.capabilities.includes('thinking')) {
      sendJson(res, 400, { error: `"${chat.model}" does not support thinking` });
      return;
    }
    const index = state.calls.get(chat.model) ?? 0;
    state.calls.set(chat.model, index + 1);
    const turn = model.reply(chat, index);
    if ('status' in turn) {
      sendJson(res, turn.status, { error: turn.error });
      return;
    }
    const final = {
      model: chat.model,
      created_at: CREATED_AT,
      done: true,
      done_reason: turn.done_reason ?? 'stop',
      total_duration: 1_000_000,
      load_duration: 100_000,
      prompt_eval_count: 26,
      prompt_eval_duration: 10_000,
      eval_count: 12,
      eval_duration: 20_000,
    };
    if (chat.stream === false) {
      sendJson(res, 200, {
        ...final,
        message: {
          role: 'assistant',
          content: turn.content ?? '',
          ...(turn.thinking !== undefined ? { thinking: turn.thinking } : {}),
          ...(turn.tool_calls !== undefined ? { tool_calls: turn.tool_calls } : {}),
        },
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const line = (value: unknown) => res.write(`${JSON.stringify(value)}\n`);
    const chunk = (message: Record<string, unknown>) =>
      line({ model: chat.model, created_at: CREATED_AT, message: { role: 'assistant', content: '', ...message }, done: false });
    for (const piece of pieces(turn.thinking ?? '')) chunk({ thinking: piece });
    for (const piece of pieces(turn.content ?? '')) chunk({ content: piece });
    // Each tool call arrives whole, in its own chunk (server/routes.go).
    for (const call of turn.tool_calls ?? []) chunk({ tool_calls: [call] });
    if (turn.streamError !== undefined) {
      line({ error: turn.streamError });
      res.end();
      return;
    }
    if (turn.hold === true) {
      res.on('close', () => state.abandoned.shift()?.());
      return;
    }
    if (turn.cutOff === true) {
      res.end();
      return;
    }
    if (turn.dropConnection === true) {
      // Let the partial answer reach the client first, as a real crash mid-generation would.
      setTimeout(() => res.socket?.destroy(), 30);
      return;
    }
    line({ ...final, message: { role: 'assistant', content: '' } });
    res.end();
    return;
  }
  sendJson(res, 404, { error: '404 page not found' });
}

/** Splits text into small pieces (about a word each, like token deltas). */
function pieces(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i === text.length || text[i] === ' ') {
      out.push(text.slice(start, i));
      start = i;
    }
  }
  return out.filter((piece) => piece !== '');
}
