import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Dialect, UpstreamAnswer } from './upstream-traffic.ts';

/** The models each side lists (the Ollama one with native tools, one text-only). */
export const FUZZ_UPSTREAM_MODELS = { openai: 'gpt-4o-mini', ollamaNative: 'qwen3:0.6b', ollamaText: 'gemma3:1b', chatgpt: 'gpt-5.4' } as const;

/** A model request the stand-in received. */
export interface FuzzUpstreamRequest {
  dialect: Dialect;
  stream: boolean;
  body: Record<string, unknown>;
}

/**
 * One stand-in on 127.0.0.1 for all three upstream dialects (OpenAI `/v1/chat/completions`,
 * Ollama `/api/chat`, the Codex backend's `/codex/responses`): their catalogs answer
 * correctly, and every model request gets what `answer` returns, written piece by piece
 * (each piece its own write, a turn of the event loop apart), then ended or reset.
 */
export interface FuzzUpstream {
  url: string;
  answer: (request: FuzzUpstreamRequest) => UpstreamAnswer;
  /** When set, what `GET /v1/models` and `GET /api/tags` answer; else the right lists. */
  listAnswer: ((api: 'openai' | 'ollama') => UpstreamAnswer) | undefined;
  /** Model responses not yet finished or closed. */
  readonly inFlight: number;
  /** Model requests received since the last `reset`. */
  readonly requests: number;
  reset(): void;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function startFuzzUpstream(): Promise<FuzzUpstream> {
  let inFlight = 0;
  let requests = 0;
  const sockets = new Set<Socket>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
    const path = (req.url ?? '').split('?')[0];
    const listing = req.method === 'GET' && path === '/v1/models' ? 'openai' : req.method === 'GET' && path === '/api/tags' ? 'ollama' : undefined;
    if (listing !== undefined && upstream.listAnswer !== undefined) return send(res, upstream.listAnswer(listing));
    if (req.method === 'GET' && path === '/v1/models') return json(res, 200, { object: 'list', data: [{ id: FUZZ_UPSTREAM_MODELS.openai, object: 'model', created: 1, owned_by: 'system' }] });
    if (req.method === 'GET' && path === '/api/tags') {
      return json(res, 200, { models: [FUZZ_UPSTREAM_MODELS.ollamaNative, FUZZ_UPSTREAM_MODELS.ollamaText].map((name) => ({ name, model: name, modified_at: '2026-01-01T00:00:00Z', size: 1, digest: 'sha256:0', details: {} })) });
    }
    if (req.method === 'POST' && path === '/api/show') {
      return json(res, 200, { capabilities: body.model === FUZZ_UPSTREAM_MODELS.ollamaNative ? ['completion', 'tools'] : ['completion'], details: {}, model_info: {}, template: '' });
    }
    if (req.method === 'GET' && path === '/codex/models') return json(res, 200, { models: [{ slug: FUZZ_UPSTREAM_MODELS.chatgpt, base_instructions: 'You are a coding agent.' }] });
    const dialect: Dialect | undefined = path === '/v1/chat/completions' ? 'openai' : path === '/api/chat' ? 'ollama' : path === '/codex/responses' ? 'responses' : undefined;
    if (dialect === undefined) return json(res, 404, { error: { message: `no route ${path}`, type: 'invalid_request_error', param: null, code: null } });
    requests++;
    const stream = dialect === 'openai' ? body.stream === true : dialect === 'ollama' ? body.stream !== false : true;
    return send(res, upstream.answer({ dialect, stream, body }));
  }

  async function send(res: ServerResponse, answer: UpstreamAnswer): Promise<void> {
    inFlight++;
    res.once('close', () => inFlight--);
    res.writeHead(answer.status, answer.headers);
    res.flushHeaders();
    for (const piece of answer.pieces) {
      if (res.destroyed) return;
      res.write(piece);
      await turn();
    }
    if (answer.reset) {
      // A reset (RST), not a clean end: what a crashing server or a proxy's timeout looks like.
      res.socket?.resetAndDestroy();
      return;
    }
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('fuzz upstream failed', error);
      res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const upstream: FuzzUpstream = {
    url: `http://127.0.0.1:${address.port}`,
    answer: () => {
      throw new Error('no answer set');
    },
    listAnswer: undefined,
    get inFlight() {
      return inFlight;
    },
    get requests() {
      return requests;
    },
    reset() {
      requests = 0;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return upstream;
}
