import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** What a fake upstream answers for one chat request (the parsed body). */
export type UpstreamReply =
  | { text: string }
  | { toolCalls: { name: string; arguments: Record<string, unknown> }[] }
  /** Streams `text` one character per `delayMs`, for disconnect tests. */
  | { slowText: string; delayMs: number };

/** A fake upstream on 127.0.0.1: the requests it got, and open chat requests right now. */
export interface FakeUpstream {
  url: string;
  requests: Record<string, unknown>[];
  /** Chat requests whose response has not ended or closed yet. */
  readonly open: number;
  /** Chat requests whose connection closed before their response ended. */
  readonly abortedRequests: number;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no address');
      resolve(`http://127.0.0.1:${address.port}`);
    });
  });
}

async function start(
  handle: (req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>, state: { open: number; aborted: number }) => Promise<void> | void,
): Promise<FakeUpstream> {
  const requests: Record<string, unknown>[] = [];
  const state = { open: 0, aborted: 0 };
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readJson(req);
      if (req.method === 'POST') requests.push(body);
      await handle(req, res, body, state);
    })();
  });
  const url = await listen(server);
  return {
    url,
    requests,
    get open() {
      return state.open;
    },
    get abortedRequests() {
      return state.aborted;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Tracks one streamed response: open while running, counted as aborted if the client left. */
function track(res: ServerResponse, state: { open: number; aborted: number }): () => boolean {
  state.open++;
  let closed = false;
  res.on('close', () => {
    state.open--;
    closed = true;
    if (!res.writableFinished) state.aborted++;
  });
  return () => closed;
}

/**
 * A fake OpenAI Chat Completions server (`/v1/chat/completions`, `/v1/models`) that
 * answers each request with `reply(body)`, streamed or not, in OpenAI's wire format.
 */
export function startFakeOpenAI(reply: (body: Record<string, unknown>) => UpstreamReply): Promise<FakeUpstream> {
  return start(async (req, res, body, state) => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-fake', object: 'model', created: 1, owned_by: 'fake' }] }));
      return;
    }
    if (req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error', param: null, code: null } }));
      return;
    }
    const answer = reply(body);
    const base = { id: 'chatcmpl-up', created: 1, model: String(body.model) };
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const calls = 'toolCalls' in answer ? answer.toolCalls.map((c, i) => ({ id: `call_up${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) : undefined;
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const text = 'text' in answer ? answer.text : 'slowText' in answer ? answer.slowText : null;
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null, ...(calls ? { tool_calls: calls } : {}) }, finish_reason: calls ? 'tool_calls' : 'stop', logprobs: null }],
          usage,
        }),
      );
      return;
    }
    const isClosed = track(res, state);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (delta: unknown, finish: string | null = null) =>
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    send({ role: 'assistant', content: '' });
    if ('slowText' in answer) {
      for (const ch of answer.slowText) {
        if (isClosed()) return;
        send({ content: ch });
        await sleep(answer.delayMs);
      }
    } else if ('text' in answer) {
      send({ content: answer.text });
    } else {
      calls?.forEach((c, index) => {
        send({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] });
        send({ tool_calls: [{ index, function: { arguments: c.function.arguments } }] });
      });
    }
    send({}, calls ? 'tool_calls' : 'stop');
    res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  });
}

/**
 * A fake Ollama server (`/api/tags`, `/api/show`, `/api/chat` as NDJSON) whose models are
 * `native` (capabilities include `tools`) or `text` (no native tools).
 */
export function startFakeOllama(reply: (body: Record<string, unknown>) => UpstreamReply): Promise<FakeUpstream> {
  return start(async (req, res, body, state) => {
    if (req.url === '/api/tags') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ models: ['native', 'text'].map((name) => ({ name, model: name, digest: `d-${name}`, size: 1, modified_at: '2026-01-01T00:00:00Z', details: {} })) }));
      return;
    }
    if (req.url === '/api/show') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ capabilities: body.model === 'native' ? ['completion', 'tools'] : ['completion'], details: {}, model_info: {} }));
      return;
    }
    if (req.url !== '/api/chat') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not found' }));
      return;
    }
    const answer = reply(body);
    const done = { model: body.model, created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 7, eval_count: 3 };
    const message = (content: string, toolCalls?: unknown[]) => ({ model: body.model, created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, done: false });
    // Ollama sends arguments as an object, each call whole.
    const calls = 'toolCalls' in answer ? answer.toolCalls.map((c, index) => ({ function: { index, name: c.name, arguments: c.arguments } })) : undefined;
    if (body.stream === false) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const text = 'text' in answer ? answer.text : 'slowText' in answer ? answer.slowText : '';
      res.end(JSON.stringify({ ...done, message: { role: 'assistant', content: text, ...(calls ? { tool_calls: calls } : {}) } }));
      return;
    }
    const isClosed = track(res, state);
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    if ('slowText' in answer) {
      for (const ch of answer.slowText) {
        if (isClosed()) return;
        res.write(`${JSON.stringify(message(ch))}\n`);
        await sleep(answer.delayMs);
      }
    } else if ('text' in answer) {
      res.write(`${JSON.stringify(message(answer.text))}\n`);
    } else {
      res.write(`${JSON.stringify(message('', calls))}\n`);
    }
    res.end(`${JSON.stringify(done)}\n`);
  });
}
