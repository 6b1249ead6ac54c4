import { Writable } from 'node:stream';
import { SpanStatusCode } from '@opentelemetry/api';
import { defineTool, ProviderError } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatStreamEvent } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { hashApiKey } from '../src/auth/hash-key.ts';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { SERVER_TRACER_NAME } from '../src/observability/request-span.ts';
import { recordSpans } from './helpers/recorded-spans.ts';
import { closeServed, serve } from './helpers/serve-handler.ts';
import { startGateway } from './helpers/start-gateway.ts';

// How a request's end is reported (log line, metrics, server span) when it does not end
// with a plain answer: the client leaving before the answer started, a stream failing
// after its 200, an upstream's HTTP error, a tool name the model invented, and an open
// `/metrics`. Each request checks the three signals against each other.

const exporter = recordSpans();

interface LogRecord {
  level: number;
  msg: string;
  res?: { statusCode?: number };
}

/** A pino logger at info whose records land in `records`. */
function capture(records: LogRecord[]) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') records.push(JSON.parse(line) as LogRecord);
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}

/** The value of one series in Prometheus text, e.g. `name{a="b"}`. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

/** Polls `check` until it holds (a bounded wait: the gateway notices a client leaving on its own schedule). */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 20) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function serverSpans(): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name === SERVER_TRACER_NAME);
}

/** Settles only when `signal` aborts (with its reason). */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise<never>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
}

/** Model calls and tool runs begun: the client leaves only once its request is being answered. */
let begun = 0;

/** A model whose first token never comes before the client gives up. */
const slowFirstToken: ChatModel = {
  provider: 'test',
  modelId: 'slow',
  generate: (request) => {
    begun++;
    return untilAborted(request.signal);
  },
  // eslint-disable-next-line require-yield -- produces nothing until aborted
  async *stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
    begun++;
    await untilAborted(request.signal);
  },
};

/** A server tool that runs until its call is aborted. */
const hang = defineTool({
  name: 'hang',
  description: 'Runs until stopped',
  parameters: z.object({}),
  execute: (_args, { signal }) => {
    begun++;
    return untilAborted(signal);
  },
});

let running: ToolwireServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  await closeServed();
  exporter.reset();
});


describe('a client that leaves before its answer started', () => {
  const cases = [
    { name: 'a stream waiting for its first token', stream: true, model: slowFirstToken, tools: false },
    { name: 'a Responses stream waiting for its first token', stream: true, model: slowFirstToken, tools: false, route: '/v1/responses' },
    {
      name: 'a stream while a server tool runs',
      stream: true,
      model: createScriptedModel([{ toolCalls: [{ id: 'h1', name: 'hang', arguments: {} }] }, { text: 'never' }]),
      tools: true,
    },
    { name: 'a non-streamed request', stream: false, model: slowFirstToken, tools: false },
  ];
  for (const { name, stream, model, tools, route = '/v1/chat/completions' } of cases) {
    it(`${name}: one info line with 499, counted as 499, and a span that is not an error`, async () => {
      const records: LogRecord[] = [];
      const { server, origin } = await startGateway(model, { logger: capture(records), metrics: { enabled: true }, extraTools: [hang], tools: { builtins: [] } });
      running = server;
      const controller = new AbortController();
      const body =
        route === '/v1/responses'
          ? { model: 'test/x', stream, input: 'hi' }
          : { model: 'test/x', stream, messages: [{ role: 'user', content: 'hi' }], ...(tools ? { tools: [{ type: 'function', function: { name: 'hang' } }] } : {}) };
      // The request is being answered (the model or the tool waits) when the client leaves.
      const before = begun;
      const answer = fetch(`${origin}${route}`, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await eventually(() => begun > before, 'the model or the tool to start');
      controller.abort();
      await answer.catch(() => undefined);
      await eventually(() => serverSpans().length === 1, 'the server span to end');

      const gone = records.filter((r) => r.res?.statusCode === 499);
      expect(gone.map((r) => [r.level, r.msg])).toEqual([[30, 'client disconnected; upstream request aborted']]);
      expect(records.filter((r) => r.level >= 50)).toEqual([]);
      expect(records.some((r) => r.msg === 'request completed' || r.msg === 'request errored')).toBe(false);

      const [span] = serverSpans();
      expect(span?.status.code).toBe(SpanStatusCode.UNSET);
      expect(span?.attributes['error.type']).toBe('client_disconnected');
      // No status was sent.
      expect(span?.attributes).not.toHaveProperty('http.response.status_code');

      const text = await (await fetch(`${origin}/metrics`)).text();
      expect(sample(text, `toolwire_http_requests_total{route="${route}",method="POST",status="499"}`)).toBe(1);
      expect(sample(text, `toolwire_http_requests_total{route="${route}",method="POST",status="200"}`)).toBeUndefined();
      expect(sample(text, `toolwire_http_request_duration_seconds_count{route="${route}"}`)).toBe(1);
    });
  }
});

describe('a client that leaves a stream already answering', () => {
  it('keeps the 200 sent in the metrics and on the span, with error.type client_disconnected and no ERROR', async () => {
    const records: LogRecord[] = [];
    const model: ChatModel = {
      provider: 'test',
      modelId: 'endless',
      generate: () => Promise.reject(new Error('not used')),
      async *stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
        yield { type: 'text-delta', delta: 'first ' };
        await untilAborted(request.signal);
      },
    };
    const { server, baseURL, origin } = await startGateway(model, { logger: capture(records), metrics: { enabled: true } });
    running = server;
    const controller = new AbortController();
    const res = await fetch(`${baseURL}/chat/completions`, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'test/x', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
    const reader = res.body?.getReader();
    await reader?.read();
    controller.abort();
    await eventually(() => serverSpans().length === 1, 'the server span to end');

    expect(records.filter((r) => r.res?.statusCode === 499).map((r) => [r.level, r.msg])).toEqual([[30, 'client disconnected; upstream request aborted']]);
    expect(records.filter((r) => r.level >= 50)).toEqual([]);
    const [span] = serverSpans();
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    expect(span?.attributes).toMatchObject({ 'error.type': 'client_disconnected', 'http.response.status_code': 200 });
    const text = await (await fetch(`${origin}/metrics`)).text();
    expect(sample(text, 'toolwire_http_requests_total{route="/v1/chat/completions",method="POST",status="200"}')).toBe(1);
    expect(text).not.toContain('toolwire_stream_errors_total{');
  });
});

describe('a stream that fails after its 200', () => {
  /** Two deltas, then the upstream fails: thrown (a reset) or as an `error` event. */
  function failingModel(how: 'throw' | 'event'): ChatModel {
    return {
      provider: 'test',
      modelId: 'failing',
      generate: () => Promise.reject(new Error('not used')),
      async *stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
        yield { type: 'text-delta', delta: 'one ' };
        yield { type: 'text-delta', delta: 'two ' };
        const error = new ProviderError({ provider: 'test', message: 'The connection was reset (ECONNRESET).', retryable: true });
        if (how === 'throw') throw error;
        yield { type: 'error', error };
        await untilAborted(request.signal);
      },
    };
  }

  for (const how of ['throw', 'event'] as const) {
    it(`(${how}) marks its server span ERROR with error.type and counts it in toolwire_stream_errors_total`, async () => {
      const { server, baseURL, origin } = await startGateway(failingModel(how), { metrics: { enabled: true } });
      running = server;
      const res = await fetch(`${baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'test/x', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('"type":"upstream_error"');
      await eventually(() => serverSpans().length === 1, 'the server span to end');

      const [span] = serverSpans();
      expect(span?.status.code).toBe(SpanStatusCode.ERROR);
      expect(span?.attributes).toMatchObject({ 'error.type': 'ProviderError', 'http.response.status_code': 200 });
      // The child chat span says the same, from core.
      expect(exporter.getFinishedSpans().find((s) => s.name.startsWith('chat '))?.status.code).toBe(SpanStatusCode.ERROR);

      const scrape = await (await fetch(`${origin}/metrics`)).text();
      // The HTTP status really was 200; the failure has its own counter.
      expect(sample(scrape, 'toolwire_http_requests_total{route="/v1/chat/completions",method="POST",status="200"}')).toBe(1);
      expect(sample(scrape, 'toolwire_stream_errors_total{route="/v1/chat/completions",type="upstream_error"}')).toBe(1);
    });
  }

  it('counts no stream error for a stream that ends well', async () => {
    const { server, baseURL, origin } = await startGateway(createScriptedModel([{ text: 'fine' }]), { metrics: { enabled: true } });
    running = server;
    const res = await fetch(`${baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'test/x', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
    expect(await res.text()).toContain('[DONE]');
    await eventually(() => serverSpans().length === 1, 'the server span to end');
    expect(serverSpans()[0]?.status.code).toBe(SpanStatusCode.UNSET);
    expect(serverSpans()[0]?.attributes).not.toHaveProperty('error.type');
    expect(await (await fetch(`${origin}/metrics`)).text()).not.toContain('toolwire_stream_errors_total{');
  });
});

describe('server span status of HTTP errors (HTTP semantic conventions)', () => {
  const upstreamCases = [
    { upstream: 400, sent: 400, status: SpanStatusCode.UNSET },
    { upstream: 429, sent: 429, status: SpanStatusCode.UNSET },
    { upstream: 500, sent: 502, status: SpanStatusCode.ERROR },
  ];
  for (const { upstream, sent, status } of upstreamCases) {
    it(`an upstream ${upstream}: the ${sent} sent is recorded, status ${status === SpanStatusCode.ERROR ? 'ERROR' : 'unset'}`, async () => {
      const origin = await serve((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(upstream, { 'content-type': 'application/json', 'x-should-retry': 'false' });
          res.end(JSON.stringify({ error: { message: `upstream says ${upstream} secret-in-message`, type: 'x', code: 'y' } }));
        });
      });
      const server = createServer({ logger: pino({ level: 'silent' }), providers: { openai: { baseURL: `${origin}/v1`, apiKey: 'sk-upstream-secret' } } });
      running = server;
      const baseURL = await server.listen({ port: 0, host: '127.0.0.1' });
      const res = await fetch(`${baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'openai/gpt-x', messages: [{ role: 'user', content: 'hi' }] }) });
      expect(res.status).toBe(sent);
      await res.text();
      const [span] = serverSpans();
      expect(span?.status.code).toBe(status);
      expect(span?.attributes['http.response.status_code']).toBe(sent);
      expect(typeof span?.attributes['error.type']).toBe('string');
      expect(JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes))).not.toContain('secret-in-message');
    });
  }

  it("leaves the gateway's own 4xx unset and marks a 5xx ERROR", async () => {
    const broken: ChatModel = { provider: 'test', modelId: 'broken', generate: () => Promise.reject(new Error('a bug')), stream: () => Promise.reject(new Error('a bug')) as never };
    const { server, baseURL } = await startGateway(broken);
    running = server;
    const post = (model: string) => fetch(`${baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }) });
    expect((await post('nowhere/model')).status).toBe(404);
    expect((await post('test/x')).status).toBe(500);
    const [notFound, failed] = serverSpans();
    expect(notFound?.status.code).toBe(SpanStatusCode.UNSET);
    expect(notFound?.attributes).toMatchObject({ 'error.type': 'model_not_found', 'http.response.status_code': 404 });
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed?.attributes).toMatchObject({ 'error.type': 'Error', 'http.response.status_code': 500 });
  });
});

describe('a tool name the model invented', () => {
  it('counts as (unknown) with outcome unknown_tool and gets an execute_tool (unknown) span; the model reads the same answer', async () => {
    const invented = `nosuch_${'x'.repeat(5000)}`;
    const model = createScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'nosuch', arguments: {} }, { id: 'c2', name: invented, arguments: {} }, { id: 'c3', name: 'calculate', arguments: { expression: '1+1' } }] },
      { text: 'ok' },
    ]);
    const audits: { tool: string; errorType?: string }[] = [];
    const { server, baseURL, origin } = await startGateway(model, { metrics: { enabled: true }, onToolAudit: (event) => audits.push(event) });
    running = server;
    const res = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test/x', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'calculate' } }] }),
    });
    expect(res.status).toBe(200);

    const text = await (await fetch(`${origin}/metrics`)).text();
    expect(sample(text, 'toolwire_tool_executions_total{tool="(unknown)",outcome="unknown_tool"}')).toBe(2);
    expect(sample(text, 'toolwire_tool_executions_total{tool="calculate",outcome="success"}')).toBe(1);
    expect(text).not.toContain('nosuch');

    const toolSpans = exporter.getFinishedSpans().filter((s) => s.name.startsWith('execute_tool'));
    expect(toolSpans.map((s) => s.name)).toEqual(['execute_tool (unknown)', 'execute_tool (unknown)', 'execute_tool calculate']);
    expect(toolSpans[1]?.attributes['gen_ai.tool.name']).toBe(`${invented.slice(0, 64)}…`);
    expect(audits.map((a) => [a.tool, a.errorType])).toEqual([
      ['nosuch', 'unknown_tool'],
      [`${invented.slice(0, 64)}…`, 'unknown_tool'],
      ['calculate', undefined],
    ]);

    // What the model read back: the name as it wrote it, and the tools it may call.
    const answers = model.requests[1]?.messages.filter((m) => m.role === 'tool') ?? [];
    expect(answers.map((m) => m.role === 'tool' && m.content.startsWith('Unknown tool'))).toEqual([true, true, false]);
    expect(answers[1]?.role === 'tool' && answers[1].content).toContain(invented);
  });
});

describe('an open /metrics', () => {
  const key = { id: 'team-a', keyHash: hashApiKey('sk-a') };
  const warnings = (records: LogRecord[]) => records.filter((r) => r.level === 40 && r.msg.includes('/metrics'));

  it('is warned about when the gateway listens beyond loopback without a metrics key', async () => {
    const records: LogRecord[] = [];
    const server = createServer({ keys: [key], metrics: { enabled: true }, logger: capture(records), modelProviders: [] });
    running = server;
    // (All interfaces, as in a container; the test's own requests stay on loopback.)
    const baseURL = await server.listen({ port: 0, host: '0.0.0.0' });
    expect(warnings(records)).toHaveLength(1);
    expect(warnings(records)[0]?.msg).toContain('metrics.keyHash');
    const origin = baseURL.replace('/v1', '').replace('0.0.0.0', '127.0.0.1');
    // Still served (a warning, not a refusal), and the client API still needs its key.
    expect((await fetch(`${origin}/metrics`)).status).toBe(200);
    expect((await fetch(`${origin}/v1/models`)).status).toBe(401);
  });

  it('is not warned about with a metrics key, or on loopback', async () => {
    for (const config of [{ host: '0.0.0.0', metrics: { enabled: true, keyHash: hashApiKey('sk-metrics') } }, { host: '127.0.0.1', metrics: { enabled: true } }]) {
      const records: LogRecord[] = [];
      const server = createServer({ keys: [key], metrics: config.metrics, logger: capture(records), modelProviders: [] });
      running = server;
      await server.listen({ port: 0, host: config.host });
      expect(warnings(records)).toEqual([]);
      await server.close();
      running = undefined;
    }
  });
});
