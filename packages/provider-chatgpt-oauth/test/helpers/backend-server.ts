// A local stand-in for chatgpt.com/backend-api: the model catalog (with ETag) and
// `POST /codex/responses` streaming SSE the way the research doc describes.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

import { checkCodexBody, checkCodexHeaders } from './codex-request-rules.ts';
import { listen, readBody, sendJson } from './http.ts';

export type SseEvent = Record<string, unknown> & { type: string };

export type Reply =
  | { status: number; json?: unknown; text?: string; headers?: Record<string, string> }
  /** Takes the request and never answers: no status, no headers (held open until the client gives up). */
  | { silent: true }
  | {
      sse: SseEvent[];
      headers?: Record<string, string>;
      chunkSize?: number;
      /** Stop writing after this many events and hold the connection open (a stalled stream). */
      stallAfter?: number;
      /** Destroy the connection after this many events (a dropped stream). */
      dropAfter?: number;
    };

export interface RecordedRequest {
  headers: IncomingHttpHeaders;
  body: Record<string, any>;
}

export async function startBackend(
  options: {
    models?: ({ slug: string; base_instructions: string } & Record<string, unknown>)[];
    /** The residency header Codex would send (only `us`, only when enforced). */
    residency?: 'us';
    /** Refuse what the real backend refuses (default true). */
    strict?: boolean;
    /** Which bearer tokens are accepted (default: all). */
    acceptsToken?: (token: string) => boolean;
    /** Resolved before the catalog (`GET /codex/models`) is answered: a slow catalog. */
    catalogGate?: Promise<void>;
  } = {},
) {
  const replies: ((request: RecordedRequest) => Reply)[] = [];
  const requests: RecordedRequest[] = [];
  const modelRequests: { headers: IncomingHttpHeaders; url: string; status: number }[] = [];
  const refusals: { status: number; json: unknown }[] = [];
  const open = new Set<ServerResponse>();
  const etag = '"catalog-v1"';

  const server = await listen(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'GET' && url.pathname === '/codex/models') {
      const notModified = request.headers['if-none-match'] === etag;
      modelRequests.push({ headers: request.headers, url: request.url ?? '', status: notModified ? 304 : 200 });
      await options.catalogGate;
      if (notModified) {
        response.writeHead(304, { etag });
        response.end();
        return;
      }
      sendJson(response, 200, { models: options.models ?? [] }, { etag });
      return;
    }
    if (request.method === 'POST' && url.pathname === '/codex/responses') {
      const recorded: RecordedRequest = { headers: request.headers, body: JSON.parse(await readBody(request)) };
      requests.push(recorded);
      const refusal = options.strict === false ? undefined : (checkCodexHeaders(request.headers, options.residency ? { residency: options.residency } : {}) ?? checkCodexBody(recorded.body));
      if (refusal !== undefined) {
        refusals.push(refusal);
        sendJson(response, refusal.status, refusal.json);
        return;
      }
      const token = (request.headers.authorization ?? '').slice('Bearer '.length);
      if (options.acceptsToken && !options.acceptsToken(token)) {
        sendJson(response, 401, { detail: 'Unauthorized' });
        return;
      }
      const next = replies.shift();
      if (next === undefined) {
        sendJson(response, 500, { detail: 'test backend: no reply queued' });
        return;
      }
      const reply = next(recorded);
      if ('silent' in reply) {
        open.add(response);
        response.on('close', () => open.delete(response));
        return;
      }
      if ('sse' in reply) {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': `req_${requests.length}`, ...reply.headers });
        const events = reply.sse.slice(0, reply.stallAfter ?? reply.dropAfter ?? reply.sse.length);
        const bytes = Buffer.from(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''));
        // Split the stream at arbitrary bytes so events (and multi-byte characters) straddle
        // chunks; cutting the text by UTF-16 units would send a split emoji as two U+FFFD.
        const size = reply.chunkSize ?? 37;
        for (let index = 0; index < bytes.length; index += size) {
          response.write(bytes.subarray(index, index + size));
          await new Promise((resolve) => setImmediate(resolve));
        }
        if (reply.dropAfter !== undefined) {
          response.destroy();
          return;
        }
        if (reply.stallAfter !== undefined) {
          // Held open until the client gives up (or the server closes).
          open.add(response);
          response.on('close', () => open.delete(response));
          return;
        }
        response.end();
        return;
      }
      response.writeHead(reply.status, { 'content-type': reply.json !== undefined ? 'application/json' : 'text/html', ...reply.headers });
      response.end(reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? ''));
      return;
    }
    sendJson(response, 404, { detail: 'Not Found' });
  });

  return {
    url: server.url,
    close: async () => {
      for (const response of open) response.destroy();
      await server.close();
    },
    requests,
    refusals,
    modelRequests,
    reply(...next: (Reply | ((request: RecordedRequest) => Reply))[]) {
      for (const item of next) replies.push(typeof item === 'function' ? item : () => item);
    },
  };
}

let sequence = 0;

/** The events of a response that says `text` (optionally after a reasoning summary). */
export function textEvents(text: string, options: { reasoning?: string; usage?: Record<string, unknown> } = {}): SseEvent[] {
  const id = `resp_${++sequence}`;
  const events: SseEvent[] = [
    { type: 'response.created', response: { id, model: 'gpt-5.4', status: 'in_progress' } },
    { type: 'response.in_progress', response: { id } },
  ];
  if (options.reasoning !== undefined) {
    const rid = `rs_${sequence}`;
    events.push(
      { type: 'response.output_item.added', output_index: 0, item: { id: rid, type: 'reasoning', summary: [] } },
      { type: 'response.reasoning_summary_part.added', item_id: rid, summary_index: 0, part: { type: 'summary_text', text: '' } },
      { type: 'response.reasoning_summary_text.delta', item_id: rid, summary_index: 0, delta: options.reasoning },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: { id: rid, type: 'reasoning', summary: [{ type: 'summary_text', text: options.reasoning }], encrypted_content: `enc_${sequence}` },
      },
    );
  }
  const mid = `msg_${sequence}`;
  events.push({ type: 'response.output_item.added', output_index: 1, item: { id: mid, type: 'message', role: 'assistant', content: [] } });
  const half = Math.ceil(text.length / 2);
  for (const delta of [text.slice(0, half), text.slice(half)]) {
    if (delta !== '') events.push({ type: 'response.output_text.delta', item_id: mid, output_index: 1, content_index: 0, delta });
  }
  events.push(
    { type: 'response.output_text.done', item_id: mid, text },
    { type: 'response.output_item.done', output_index: 1, item: { id: mid, type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] } },
    {
      type: 'response.completed',
      response: {
        id,
        status: 'completed',
        usage: options.usage ?? {
          input_tokens: 120,
          input_tokens_details: { cached_tokens: 100 },
          output_tokens: 12,
          output_tokens_details: { reasoning_tokens: 4 },
          total_tokens: 132,
        },
      },
    },
  );
  return events;
}

/** The events of a response that calls tools. */
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
