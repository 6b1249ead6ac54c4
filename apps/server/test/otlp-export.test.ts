import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/auth/hash-key.ts';
import { startFakeOpenAI } from './helpers/fake-upstreams.ts';
import type { FakeUpstream } from './helpers/fake-upstreams.ts';
import { startGatewayBin } from './helpers/gateway-bin.ts';
import type { GatewayBin } from './helpers/gateway-bin.ts';
import { attributesOf, metricsOf, spansOf, startOtlpCollector } from './helpers/otlp-collector.ts';
import type { CollectorMode, OtlpCollector } from './helpers/otlp-collector.ts';

// The real bin, with the standard OTEL_* variables, exporting to a real OTLP/HTTP receiver
// on 127.0.0.1 that answers as a collector does at its best and at its worst.
const CLIENT_KEY = 'sk-client-otlp-secret';
const UPSTREAM_KEY = 'sk-upstream-otlp-secret';
const ZONE = 'Antarctica/Troll';

let upstream: FakeUpstream | undefined;
let collector: OtlpCollector | undefined;
let gateway: GatewayBin | undefined;
afterEach(async () => {
  await gateway?.stop();
  await collector?.close();
  await upstream?.close();
  gateway = undefined;
  collector = undefined;
  upstream = undefined;
});

/** A fake upstream that asks for `get_current_time` first, then answers with text. */
function startToolUpstream(): Promise<FakeUpstream> {
  return startFakeOpenAI((body) => {
    const messages = body.messages as { role: string }[];
    return messages.at(-1)?.role === 'tool' ? { text: 'It is late in Troll.' } : { toolCalls: [{ name: 'get_current_time', arguments: { timezone: ZONE } }] };
  });
}

async function startObservedGateway(env: Record<string, string>, limits: Record<string, unknown> = {}): Promise<{ gateway: GatewayBin; openai: OpenAI }> {
  upstream = await startToolUpstream();
  gateway = await startGatewayBin({
    config: {
      keys: [{ id: 'tenant', keyHash: hashApiKey(CLIENT_KEY) }],
      providers: { openai: { baseURL: `${upstream.url}/v1` } },
      limits,
      logLevel: 'info',
    },
    env: { OPENAI_API_KEY: UPSTREAM_KEY, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', ...env },
  });
  return { gateway, openai: new OpenAI({ apiKey: CLIENT_KEY, baseURL: gateway.baseURL, maxRetries: 0, timeout: 20_000 }) };
}

async function askTheTime(openai: OpenAI): Promise<string | null | undefined> {
  const completion = await openai.chat.completions.create({
    model: 'openai/gpt-fake',
    messages: [{ role: 'user', content: 'What time is it in Troll?' }],
    tools: [{ type: 'function', function: { name: 'get_current_time' } }],
  });
  return completion.choices[0]?.message.content;
}

/** Waits (bounded) until `check` holds. */
async function eventually(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Sends SIGTERM and resolves with the exit code, or rejects past `withinMs` (then kills the process). */
async function stopWithin(bin: GatewayBin, withinMs: number): Promise<number | null> {
  bin.child.kill('SIGTERM');
  const timer = setTimeout(() => bin.child.kill('SIGKILL'), withinMs);
  try {
    const [code, signal] = (await once(bin.child, 'exit')) as [number | null, NodeJS.Signals | null];
    if (signal === 'SIGKILL') throw new Error(`the gateway was still running ${String(withinMs)} ms after SIGTERM`);
    return code;
  } finally {
    clearTimeout(timer);
  }
}

/** `input=… output=…` from the latest token usage export (cumulative sums by token type). */
function tokenSums(from: OtlpCollector): string {
  const usage = metricsOf(from.accepted).findLast((metric) => metric.name === 'gen_ai.client.token.usage');
  const sums = (usage?.histogram?.dataPoints ?? []).map((point) => `${String(attributesOf(point.attributes)['gen_ai.token.type'])}=${String(point.sum)}`);
  return sums.sort().join(' ');
}

const FAST_EXPORT = { OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_METRIC_EXPORT_INTERVAL: '300' };

describe('OTLP export to a real receiver', () => {
  it('delivers the request, chat and execute_tool spans and the GenAI metrics, with no arguments or keys', async () => {
    collector = await startOtlpCollector('ok');
    const { gateway: bin, openai } = await startObservedGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'gateway-under-test', ...FAST_EXPORT });
    expect(bin.logs.find((entry) => entry.msg?.startsWith('OpenTelemetry: sending') === true)?.msg).toBe('OpenTelemetry: sending traces and metrics over OTLP (OTEL_* environment)');
    expect(await askTheTime(openai)).toBe('It is late in Troll.');

    const seen = collector;
    await eventually(() => spansOf(seen.accepted).some((span) => span.name === 'POST /v1/chat/completions'), 'the request span');
    // Cumulative metrics: a later export carries both model calls.
    await eventually(() => tokenSums(seen) === 'input=20 output=10', 'the token usage of both model calls');

    const spans = spansOf(collector.accepted);
    const request = spans.find((span) => span.name === 'POST /v1/chat/completions');
    expect(request?.scope).toBe('@toolwire/server');
    expect(attributesOf(request?.resource)['service.name']).toBe('gateway-under-test');
    expect(attributesOf(request?.attributes)).toMatchObject({ 'http.route': '/v1/chat/completions', 'http.response.status_code': 200 });
    const chats = spans.filter((span) => span.name === 'chat gpt-fake');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.traceId).toBe(request?.traceId);
      expect(chat.parentSpanId).toBe(request?.spanId);
      expect(attributesOf(chat.attributes)).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-fake', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5 });
    }
    const tool = spans.find((span) => span.name === 'execute_tool get_current_time');
    expect(tool?.parentSpanId).toBe(request?.spanId);
    expect(attributesOf(tool?.attributes)).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_current_time', 'toolwire.tool.outcome': 'success' });

    const duration = metricsOf(collector.accepted).find((metric) => metric.name === 'gen_ai.client.operation.duration');
    expect(duration?.unit).toBe('s');
    expect(duration?.histogram?.dataPoints[0]?.explicitBounds).toEqual([0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]);
    const usage = metricsOf(collector.accepted).findLast((metric) => metric.name === 'gen_ai.client.token.usage');
    expect(usage?.unit).toBe('{token}');
    expect(usage?.histogram?.dataPoints[0]?.explicitBounds).toEqual([1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]);
    expect(attributesOf(usage?.histogram?.dataPoints[0]?.attributes)).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-fake' });

    // Nothing the client or the operator holds secret, and no argument value, left the process.
    const everything = JSON.stringify(collector.received).toLowerCase();
    for (const secret of [CLIENT_KEY, UPSTREAM_KEY, ZONE, 'authorization', 'bearer']) expect(everything).not.toContain(secret.toLowerCase());

    expect(await stopWithin(bin, 15_000)).toBe(0);
    expect(bin.logs.filter((entry) => entry.level >= 50)).toEqual([]);
  }, 60_000);

  it('flushes the spans of the last request on SIGTERM', async () => {
    collector = await startOtlpCollector('ok');
    // Nothing is exported on a schedule during the test: what arrives came from the shutdown flush.
    const { gateway: bin, openai } = await startObservedGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '600000', OTEL_METRIC_EXPORT_INTERVAL: '600000' });
    await askTheTime(openai);
    expect(collector.received).toEqual([]);
    expect(await stopWithin(bin, 15_000)).toBe(0);
    expect(spansOf(collector.accepted).map((span) => span.name)).toContain('execute_tool get_current_time');
    expect(metricsOf(collector.accepted).map((metric) => metric.name)).toContain('gen_ai.client.token.usage');
  }, 60_000);

  it("cuts span attribute values an upstream chose (its answer's model and id) to 4096 characters unless OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT says otherwise", async () => {
    collector = await startOtlpCollector('ok');
    // An upstream whose answer names a model and an id of 200 000 characters each: every span
    // holding them waits in the batch queue (2048 spans) while a collector is slow.
    const huge = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'i'.repeat(200_000), object: 'chat.completion', created: 1, model: 'm'.repeat(200_000), choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] }));
      });
    });
    huge.listen(0, '127.0.0.1');
    await once(huge, 'listening');
    try {
      const port = (huge.address() as AddressInfo).port;
      const run = async (env: Record<string, string>): Promise<Record<string, unknown>> => {
        const seen = await startOtlpCollector('ok');
        const bin = await startGatewayBin({
          config: { keys: [{ id: 'tenant', keyHash: hashApiKey(CLIENT_KEY) }], providers: { openai: { baseURL: `http://127.0.0.1:${port}/v1` } }, logLevel: 'info' },
          env: { OPENAI_API_KEY: UPSTREAM_KEY, OTEL_EXPORTER_OTLP_ENDPOINT: seen.url, OTEL_METRICS_EXPORTER: 'none', OTEL_BSP_SCHEDULE_DELAY: '100', ...env },
        });
        try {
          const openai = new OpenAI({ apiKey: CLIENT_KEY, baseURL: bin.baseURL, maxRetries: 0, timeout: 20_000 });
          const completion = await openai.chat.completions.create({ model: 'openai/gpt-fake', messages: [{ role: 'user', content: 'hi' }] });
          expect(completion.choices[0]?.message.content).toBe('hi');
          await eventually(() => spansOf(seen.accepted).some((span) => span.name === 'chat gpt-fake'), 'the chat span');
          return attributesOf(spansOf(seen.accepted).find((span) => span.name === 'chat gpt-fake')?.attributes);
        } finally {
          await bin.stop();
          await seen.close();
        }
      };
      const cut = await run({});
      expect(cut['gen_ai.response.model']).toBe('m'.repeat(4096));
      expect(cut['gen_ai.response.id']).toBe('i'.repeat(4096));
      const operatorsChoice = await run({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '10' });
      expect(operatorsChoice['gen_ai.response.model']).toBe('m'.repeat(10));
    } finally {
      huge.close();
    }
  }, 60_000);

  it('exports nothing and says nothing of OpenTelemetry with OTEL_SDK_DISABLED=true', async () => {
    collector = await startOtlpCollector('ok');
    const { gateway: bin, openai } = await startObservedGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SDK_DISABLED: 'true', ...FAST_EXPORT });
    await askTheTime(openai);
    expect(await stopWithin(bin, 15_000)).toBe(0);
    expect(collector.received).toEqual([]);
    expect(bin.logs.filter((entry) => entry.msg?.includes('OpenTelemetry') === true)).toEqual([]);
  }, 60_000);
});

describe('a collector at its worst', () => {
  const WORST: CollectorMode[] = ['hang', 'unavailable', 'reset', 'trickle'];

  for (const mode of WORST) {
    it(`keeps serving, logs a bounded number of lines and stops within the drain deadline when the collector ${mode === 'unavailable' ? 'answers 503' : `${mode}s`}`, async () => {
      collector = await startOtlpCollector(mode);
      // An export timeout far beyond the drain deadline: the shutdown flush must be cut at the
      // deadline, not wait for the exporter to give up.
      const { gateway: bin, openai } = await startObservedGateway(
        { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_TIMEOUT: '120000', OTEL_BSP_EXPORT_TIMEOUT: '120000', ...FAST_EXPORT },
        { shutdownGraceMs: 1_500 },
      );
      const seen = collector;
      expect(await askTheTime(openai)).toBe('It is late in Troll.');
      await eventually(() => seen.received.some((e) => e.path === '/v1/traces') && seen.received.some((e) => e.path === '/v1/metrics'), 'exports of both signals');
      for (let i = 0; i < 5; i++) expect(await askTheTime(openai)).toBe('It is late in Troll.');
      const streamed = await openai.chat.completions.create({
        model: 'openai/gpt-fake',
        messages: [{ role: 'user', content: 'What time is it in Troll?' }],
        tools: [{ type: 'function', function: { name: 'get_current_time' } }],
        stream: true,
      });
      let text = '';
      for await (const chunk of streamed) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('It is late in Troll.');
      expect(bin.child.exitCode).toBeNull();

      expect(await stopWithin(bin, 12_000)).toBe(0);
      const otelLines = bin.logs.filter((entry) => entry.msg?.includes('OpenTelemetry') === true);
      // Start, first failure per signal, the dropped flush: a handful, never one per export.
      expect(otelLines.length).toBeLessThanOrEqual(5);
      expect(bin.logs.filter((entry) => entry.msg?.includes('uncaught') === true)).toEqual([]);
      expect(bin.logs.filter((entry) => entry.level >= 50)).toEqual([]);
    }, 60_000);
  }

  it('honours OTEL_EXPORTER_OTLP_TIMEOUT: an export to a collector that never answers fails after it, and is logged once', async () => {
    collector = await startOtlpCollector('hang');
    const { gateway: bin, openai } = await startObservedGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_TIMEOUT: '300', OTEL_METRICS_EXPORTER: 'none', OTEL_BSP_SCHEDULE_DELAY: '50' });
    await askTheTime(openai);
    await eventually(() => bin.logs.some((entry) => entry.msg?.startsWith('OpenTelemetry: exporting traces failed') === true), 'the export failure line');
    const failure = bin.logs.find((entry) => entry.msg?.startsWith('OpenTelemetry: exporting traces failed') === true) as { err?: { message?: string } } | undefined;
    expect(failure?.err?.message).toBe('Request timed out');
    for (let i = 0; i < 3; i++) await askTheTime(openai);
    expect(await stopWithin(bin, 12_000)).toBe(0);
    expect(bin.logs.filter((entry) => entry.msg?.startsWith('OpenTelemetry: exporting traces failed') === true)).toHaveLength(1);
  }, 60_000);

  it('keeps at most the batch queue while the collector hangs, dropping the rest instead of growing', async () => {
    collector = await startOtlpCollector('hang');
    const QUEUE = 16;
    const BATCH = 8;
    const { gateway: bin, openai } = await startObservedGateway({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_EXPORTER_OTLP_TIMEOUT: '120000',
      OTEL_BSP_EXPORT_TIMEOUT: '120000',
      OTEL_BSP_MAX_QUEUE_SIZE: String(QUEUE),
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: String(BATCH),
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    // Each request ends four spans (request, two chats, one tool): 20 requests, 80 spans.
    for (let i = 0; i < 20; i++) expect(await askTheTime(openai)).toBe('It is late in Troll.');
    const seen = collector;
    await eventually(() => seen.held === 1, 'the first batch at the collector');
    // The batch processor sends one batch at a time: the rest waited in its queue.
    expect(collector.received).toHaveLength(1);
    collector.release();
    expect(await stopWithin(bin, 15_000)).toBe(0);
    const delivered = spansOf(collector.accepted).length;
    // The batch held by the hanging collector, plus at most a full queue; the other spans were dropped.
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThanOrEqual(BATCH + QUEUE);
  }, 60_000);
});
