// `limits.maxRequestDurationMs`: the idle timeout counts silence only, so an upstream that keeps
// trickling bytes without ever finishing held its request until the client left. A request now
// runs at most this long, all its model calls and server tools included: then the upstream
// connection is closed, a running server tool is aborted, and the client gets a 504
// `request_timeout` (an error frame once streaming), not retried by the SDKs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { defineTool } from '@toolwire/core';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfigFile } from '../src/config/parse-config-file.ts';
import { createServer, hashApiKey } from '../src/index.ts';
import type { ServerConfig, ToolwireServer } from '../src/index.ts';
import { closeServed, serve } from './helpers/serve-handler.ts';

const LIMIT_MS = 800;
const TRICKLE_MS = 50;

let gateway: ToolwireServer | undefined;
const timers = new Set<NodeJS.Timeout>();
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  for (const timer of timers) clearInterval(timer);
  timers.clear();
  await gateway?.close();
  gateway = undefined;
  await closeServed();
});

/** What the trickling upstream saw: one entry per model call, `closed` once its connection closed. */
interface Seen {
  path: string;
  closed: boolean;
}

/**
 * An OpenAI-compatible upstream that never finishes: a stream gets a one-character content
 * delta every 50 ms, a non-streamed request a space (JSON's leading whitespace) every 50 ms, so
 * the gateway's idle timeout never fires. `toolFirst`: a call without a tool result in its
 * messages asks for the server tool `hang` at once and finishes.
 */
async function startTrickler(options: { toolFirst?: boolean } = {}): Promise<{ origin: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const origin = await serve((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const entry: Seen = { path: req.url ?? '', closed: false };
      seen.push(entry);
      res.on('close', () => (entry.closed = true));
      const request = JSON.parse(body) as { stream?: boolean; messages?: { role: string }[] };
      const hasToolResult = request.messages?.some((m) => m.role === 'tool') === true;
      if (request.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
          `data: ${JSON.stringify({ id: 'chatcmpl-t', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        if (options.toolFirst === true && !hasToolResult) {
          res.end(
            chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_h', type: 'function', function: { name: 'hang', arguments: '{}' } }] }) +
              chunk({}, 'tool_calls') +
              'data: [DONE]\n\n',
          );
          return;
        }
        res.write(chunk({ role: 'assistant', content: '' }));
        const timer = setInterval(() => res.write(chunk({ content: 'a' })), TRICKLE_MS);
        timers.add(timer);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      if (options.toolFirst === true && !hasToolResult) {
        const message = { role: 'assistant', content: null, tool_calls: [{ id: 'call_h', type: 'function', function: { name: 'hang', arguments: '{}' } }] };
        res.end(JSON.stringify({ id: 'chatcmpl-t', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message, finish_reason: 'tool_calls' }] }));
        return;
      }
      const timer = setInterval(() => res.write(' '), TRICKLE_MS);
      timers.add(timer);
      res.on('close', () => clearInterval(timer));
    });
  });
  return { origin, seen };
}

/** A gateway in front of `origin`, with `extra` config; the official client (its default retries unless said). */
async function gatewayTo(origin: string, extra: ServerConfig = {}, maxRetries = 2): Promise<OpenAI> {
  gateway = createServer({
    logger: pino({ level: 'silent' }),
    providers: { openai: { baseURL: `${origin}/v1`, apiKey: 'sk-upstream' } },
    tools: { builtins: [] },
    ...extra,
    limits: { maxRequestDurationMs: LIMIT_MS, ...extra.limits },
  });
  const baseURL = await gateway.listen({ port: 0, host: '127.0.0.1' });
  return new OpenAI({ apiKey: 'sk-gateway', baseURL, maxRetries, timeout: 30_000 });
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

const messages = [{ role: 'user' as const, content: 'Write forever.' }];

function expectDeadline(error: unknown, ms = LIMIT_MS): void {
  expect(error).toBeInstanceOf(OpenAI.APIError);
  const apiError = error as InstanceType<typeof OpenAI.APIError>;
  expect(apiError.message).toContain(`ran longer than ${ms} ms (limits.maxRequestDurationMs)`);
}

describe('limits.maxRequestDurationMs against an upstream that trickles without end', () => {
  it('a non-streamed request: 504 request_timeout after the bound, one upstream call (not retried), its connection closed', async () => {
    const { origin, seen } = await startTrickler();
    const client = await gatewayTo(origin);
    const started = performance.now();
    const error = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages }).then(
      () => expect.fail('the request succeeded'),
      (e: unknown) => e,
    );
    const ms = performance.now() - started;
    expectDeadline(error);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('request_timeout');
    expect(ms).toBeGreaterThanOrEqual(LIMIT_MS - 50);
    // The SDK's two retries of a 5xx did not happen: the answer says not to.
    expect(seen).toHaveLength(1);
    await eventually(() => seen.every((s) => s.closed), 'the upstream connection to close');
  });

  it('a Chat Completions stream: the deltas so far, then the error frame; the upstream connection closed', async () => {
    const { origin, seen } = await startTrickler();
    const client = await gatewayTo(origin);
    const stream = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages, stream: true });
    let text = '';
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().then(
      () => expect.fail('the stream ended without an error'),
      (e: unknown) => e,
    );
    expectDeadline(error);
    expect(text.length).toBeGreaterThan(0);
    await eventually(() => seen.length === 1 && seen.every((s) => s.closed), 'the upstream connection to close');
  });

  it('a Responses stream: an error event, the upstream connection closed', async () => {
    const { origin, seen } = await startTrickler();
    const client = await gatewayTo(origin);
    const stream = await client.responses.create({ model: 'openai/gpt-4o-mini', input: 'Write forever.', stream: true });
    const types: string[] = [];
    const error = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    // The SDK throws on an `error` event; the stream carries it either way.
    if (error !== undefined) expect(error instanceof Error ? error.message : error).toMatch(/maxRequestDurationMs/);
    else expect(types).toContain('error');
    expect(types).toContain('response.output_text.delta');
    await eventually(() => seen.length === 1 && seen.every((s) => s.closed), 'the upstream connection to close');
  });

  it('a server tool still running at the bound is aborted, and the client gets the 504', async () => {
    const { origin } = await startTrickler({ toolFirst: true });
    let aborted = false;
    let started = false;
    const hang = defineTool({
      name: 'hang',
      description: 'Waits until it is stopped.',
      parameters: z.object({}),
      execute: (_args, { signal }) =>
        new Promise<string>((resolve) => {
          started = true;
          signal?.addEventListener('abort', () => {
            aborted = true;
            resolve('stopped');
          });
        }),
    });
    // A longer bound here: the tool must have started before it, on a loaded machine too.
    const client = await gatewayTo(origin, { extraTools: [hang], tools: { builtins: [], timeoutMs: 60_000 }, limits: { maxRequestDurationMs: 2000 } });
    // The client names the server tool to have it offered (as the gateway's README shows).
    const error = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages, tools: [{ type: 'function', function: { name: 'hang' } }] }).then(
      () => expect.fail('the request succeeded'),
      (e: unknown) => e,
    );
    expectDeadline(error, 2000);
    expect(started).toBe(true);
    expect(aborted).toBe(true);
  });

  it('a client that stopped reading does not hold its stream (or its key\'s concurrency slot) past the bound', async () => {
    // An upstream that sends far more than the sockets buffer at once, then trickles.
    let upstreamCalls = 0;
    const origin = await serve((req: IncomingMessage, res: ServerResponse) => {
      upstreamCalls++;
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (content: string): string =>
          `data: ${JSON.stringify({ id: 'chatcmpl-t', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
        const block = chunk('x'.repeat(64 * 1024));
        for (let i = 0; i < 400; i++) res.write(block);
        const timer = setInterval(() => res.write(chunk('a')), TRICKLE_MS);
        timers.add(timer);
        res.on('close', () => clearInterval(timer));
      });
    });
    const client = await gatewayTo(origin, {
      keys: [{ id: 'one', keyHash: hashApiKey('sk-one'), maxConcurrentRequests: 1 }],
      // A longer bound: the key's slot is checked taken first, on a loaded machine too.
      limits: { upstreamAnswerLimitChars: 0, maxRequestDurationMs: 2500 },
    });
    const body = JSON.stringify({ model: 'openai/gpt-4o-mini', messages, stream: true });
    const url = new URL(client.baseURL);
    // A raw client that sends its request and never reads the answer.
    const socket = connect(Number(url.port), url.hostname);
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.pause();
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer sk-one\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    const one = new OpenAI({ apiKey: 'sk-one', baseURL: client.baseURL, maxRetries: 0, timeout: 30_000 });
    // While it runs, the key's one slot is taken.
    await eventually(() => upstreamCalls === 1, 'the stuck request to reach the upstream');
    const refused = await one.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((refused as InstanceType<typeof OpenAI.APIError> | undefined)?.code).toBe('concurrency_limit_exceeded');
    // Past the bound (and the moment the answer gets to go out), the stuck stream is cut and the slot freed.
    let freed = false;
    for (let i = 0; i < 100 && !freed; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const attempt = await one.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }).then(
        (stream) => {
          stream.controller.abort();
          return true;
        },
        (e: unknown) => ((e as InstanceType<typeof OpenAI.APIError>).code === 'concurrency_limit_exceeded' ? false : Promise.reject(e as Error)),
      );
      freed = attempt;
    }
    expect(freed).toBe(true);
  });

  it('0 turns the bound off; a negative or fractional value is refused by name', () => {
    expect(parseConfigFile({ limits: { maxRequestDurationMs: 0 } }).limits?.maxRequestDurationMs).toBe(0);
    expect(() => parseConfigFile({ limits: { maxRequestDurationMs: -1 } })).toThrow(/limits\.maxRequestDurationMs/);
    expect(() => parseConfigFile({ limits: { maxRequestDurationMs: 1.5 } })).toThrow(/limits\.maxRequestDurationMs/);
  });
});
