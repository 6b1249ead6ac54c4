// An upstream whose message never ends: an SSE event without its blank line, an NDJSON line
// without its line break, a JSON body without end. Every reader holds a message whole before
// it can use it, so without a bound the gateway would hold all of it (and Ollama's client
// re-scans it on every chunk). Through the gateway, with the official `openai` client: that
// request fails with an error naming `limits.upstreamMessageLimitBytes`, the upstream is cut
// long before it has written everything, a message under the limit still passes, and the
// gateway serves the next request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { closeServed, serve } from './helpers/serve-handler.ts';

const MIB = 1024 * 1024;
/** What a hostile upstream would write if nobody stopped it. */
const ENDLESS = 64 * MIB;
const chunkBase = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
const sse = (chunk: unknown): string => `data: ${JSON.stringify(chunk)}\n\n`;

/** How the upstream answers, by the last user message. */
type Behaviour = 'endless-event' | 'endless-data-lines' | 'endless-json' | 'endless-ndjson-line' | 'endless-error-events' | 'large-event' | 'hello';

let gateway: ToolwireServer | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await closeServed();
});

/** Writes `head`, then `piece` until `total` bytes or the connection closes; resolves with the bytes written. */
async function pour(res: ServerResponse, head: string, piece: string, total: number): Promise<number> {
  let written = Buffer.byteLength(head);
  res.write(head);
  while (written < total && !res.destroyed) {
    written += Buffer.byteLength(piece);
    if (!res.write(piece)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
  }
  res.end();
  return written;
}

async function answer(req: IncomingMessage, res: ServerResponse, behaviour: Behaviour): Promise<number> {
  const filler = 'y'.repeat(64 * 1024);
  switch (behaviour) {
    case 'endless-event':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return pour(res, 'data: ', filler, ENDLESS);
    case 'endless-data-lines':
      // Lines end, the event never does: every `data:` line is joined into one event.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return pour(res, '', `data: ${filler}\n`, ENDLESS);
    case 'endless-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      return pour(res, '{"pad":"', filler, ENDLESS);
    case 'endless-ndjson-line':
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      return pour(res, '{"model":"m","message":{"role":"assistant","content":"', filler, ENDLESS);
    case 'endless-error-events':
      // An error whose body is short events without end: the SDK reads an error's body whole.
      res.writeHead(500, { 'content-type': 'text/event-stream' });
      return pour(res, '', `data: ${filler}\n\n`, ENDLESS);
    case 'large-event': {
      // One event of 900 KiB: under the 1 MiB limit.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const text = 'z'.repeat(900 * 1024);
      res.end(sse({ ...chunkBase, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] }) + sse({ ...chunkBase, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + 'data: [DONE]\n\n');
      return 0;
    }
    case 'hello':
      if (req.url?.startsWith('/api/')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ model: 'm', message: { role: 'assistant', content: 'Hello' }, done: true, done_reason: 'stop' }));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }] }));
      }
      return 0;
  }
}

/** A gateway with a 1 MiB message limit in front of an upstream serving both wire formats; `written` has the bytes of each endless answer. */
async function start(): Promise<{ client: OpenAI; written: number[] }> {
  const written: number[] = [];
  const origin = await serve((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/api/show') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion', 'tools'] }));
        return;
      }
      const body = JSON.parse(text) as { messages: { content: string }[] };
      void answer(req, res, body.messages.at(-1)?.content as Behaviour).then((bytes) => bytes > 0 && written.push(bytes));
    });
  });
  gateway = createServer({
    logger: pino({ level: 'silent' }),
    providers: { openai: { baseURL: `${origin}/v1`, apiKey: 'sk-upstream' }, ollama: { host: origin } },
    tools: { builtins: [] },
    limits: { upstreamMessageLimitBytes: MIB },
  });
  const baseURL = await gateway.listen({ port: 0, host: '127.0.0.1' });
  return { client: new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0, timeout: 30_000 }), written };
}

const cases = [
  { what: 'an SSE event without its blank line', model: 'openai/m', behaviour: 'endless-event', stream: true, message: /more than 1 MiB in one stream event/u },
  { what: 'an SSE event of endless data lines', model: 'openai/m', behaviour: 'endless-data-lines', stream: true, message: /more than 1 MiB in one stream event/u },
  { what: 'a JSON body without end', model: 'openai/m', behaviour: 'endless-json', stream: false, message: /a response body larger than 1 MiB/u },
  { what: 'an NDJSON line without its line break (Ollama)', model: 'ollama/m', behaviour: 'endless-ndjson-line', stream: true, message: /more than 1 MiB in one line of its stream/u },
  { what: 'a JSON body without end (Ollama)', model: 'ollama/m', behaviour: 'endless-json', stream: false, message: /a response body larger than 1 MiB/u },
] as const;

describe('an upstream message larger than limits.upstreamMessageLimitBytes', () => {
  for (const { what, model, behaviour, stream, message } of cases) {
    it(`fails only that request, with a 502 naming the limit, and cuts the upstream: ${what}`, async () => {
      const { client, written } = await start();
      const messages = [{ role: 'user' as const, content: behaviour }];
      const error = await (stream ? client.chat.completions.create({ model, messages, stream: true }).then(async (s) => { for await (const chunk of s) expect(chunk.object).toBe('chat.completion.chunk'); }) : client.chat.completions.create({ model, messages })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain('limits.upstreamMessageLimitBytes');
      expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_message_too_large');
      // The upstream was cut: far less than it meant to write got out (socket buffers hold a few MiB).
      await expect.poll(() => written.length, { timeout: 10_000 }).toBe(1);
      expect(written[0]).toBeLessThan(ENDLESS / 2);
      // The gateway serves the next request.
      const next = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] });
      expect(next.choices[0]?.message.content).toBe('Hello');
    });
  }

  it('reads an error body framed as events only up to the limit (the SDK holds it whole), and cuts the upstream', async () => {
    const { client, written } = await start();
    const error = await client.chat.completions.create({ model: 'openai/m', messages: [{ role: 'user', content: 'endless-error-events' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    // Every attempt of the upstream call (a 500 is retried) was cut.
    await expect.poll(() => written.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(Math.max(...written)).toBeLessThan(ENDLESS / 2);
    const next = await client.chat.completions.create({ model: 'openai/m', messages: [{ role: 'user', content: 'hello' }] });
    expect(next.choices[0]?.message.content).toBe('Hello');
  });

  it('lets a message under the limit through whole', async () => {
    const { client } = await start();
    const stream = await client.chat.completions.create({ model: 'openai/m', messages: [{ role: 'user', content: 'large-event' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toHaveLength(900 * 1024);
  });
});
