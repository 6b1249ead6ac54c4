import { SpanKind } from '@opentelemetry/api';
import { TRACER_NAME } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/auth/hash-key.ts';
import { SERVER_TRACER_NAME } from '../src/observability/request-span.ts';
import type { ToolwireServer } from '../src/index.ts';
import { recordSpans } from './helpers/recorded-spans.ts';
import { startGateway } from './helpers/start-gateway.ts';

const exporter = recordSpans();

const key = { id: 'k1', keyHash: hashApiKey('sk-client') };
const headers = { authorization: 'Bearer sk-client', 'content-type': 'application/json' };

/** The value of one series in Prometheus text, e.g. `name{a="b"}`. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

let running: ToolwireServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  exporter.reset();
});

describe('traces and metrics of the gateway', () => {
  it('records a server span per request with chat and execute_tool spans beneath it, without arguments or keys', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'get_current_time', arguments: { timezone: 'Secret/Zone' } }], usage: { inputTokens: 12, outputTokens: 4, totalTokens: 16 } },
      { text: 'It is noon.', usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25 } },
    ]);
    const { server, baseURL } = await startGateway(model, { keys: [key] });
    running = server;
    const res = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'test/scripted', messages: [{ role: 'user', content: 'time?' }], tools: [{ type: 'function', function: { name: 'get_current_time' } }] }),
    });
    expect(res.status).toBe(200);

    const spans = exporter.getFinishedSpans();
    const request = spans.find((s) => s.instrumentationScope.name === SERVER_TRACER_NAME);
    expect(request).toMatchObject({ name: 'POST /v1/chat/completions', kind: SpanKind.SERVER, attributes: { 'http.route': '/v1/chat/completions', 'http.response.status_code': 200 } });
    const inner = spans.filter((s) => s.instrumentationScope.name === TRACER_NAME);
    expect(inner.map((s) => s.name)).toEqual([`chat ${model.modelId}`, 'execute_tool get_current_time', `chat ${model.modelId}`]);
    for (const span of inner) {
      expect(span.spanContext().traceId).toBe(request?.spanContext().traceId);
      expect(span.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    }
    expect(inner[1]?.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_current_time', 'toolwire.tool.outcome': expect.any(String) as string });
    expect(inner[0]?.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 12, 'gen_ai.provider.name': model.provider });
    const dump = JSON.stringify(spans.map((s) => s.attributes));
    expect(dump).not.toContain('Secret/Zone');
    expect(dump).not.toContain('sk-client');
  });

  it('marks a refused request span with its error code', async () => {
    const { server, baseURL } = await startGateway(createScriptedModel([]), { keys: [key] });
    running = server;
    const res = await fetch(`${baseURL}/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model: 'nowhere/model', messages: [{ role: 'user', content: 'hi' }] }) });
    expect(res.status).toBe(404);
    const request = exporter.getFinishedSpans().find((s) => s.instrumentationScope.name === SERVER_TRACER_NAME);
    const { code } = ((await res.json()) as { error: { code: string } }).error;
    expect(request?.attributes).toMatchObject({ 'error.type': code, 'http.response.status_code': 404 });
  });

  it('serves Prometheus metrics behind their key: requests, latency, tokens, tools by outcome, open streams, slots', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '2 +' } }], usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 } },
      { text: 'Sorry.', usage: { inputTokens: 15, outputTokens: 2, totalTokens: 17 } },
      { text: 'Streamed hello.', usage: { inputTokens: 4, outputTokens: 3, totalTokens: 7 } },
    ]);
    const { server, baseURL, origin } = await startGateway(model, { keys: [key], metrics: { enabled: true, keyHash: hashApiKey('sk-metrics') } });
    running = server;
    const plain = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'test/scripted', messages: [{ role: 'user', content: '2+?' }], tools: [{ type: 'function', function: { name: 'calculate' } }] }),
    });
    expect(plain.status).toBe(200);
    const streamed = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'test/scripted', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    await streamed.text();
    await fetch(`${baseURL}/nowhere`, { headers });

    expect((await fetch(`${origin}/metrics`)).status).toBe(401);
    expect((await fetch(`${origin}/metrics`, { headers: { authorization: 'Bearer sk-client' } })).status).toBe(401);
    const scrape = await fetch(`${origin}/metrics`, { headers: { authorization: 'Bearer sk-metrics' } });
    expect(scrape.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await scrape.text();
    expect(sample(text, 'toolwire_http_requests_total{route="/v1/chat/completions",method="POST",status="200"}')).toBe(2);
    expect(sample(text, 'toolwire_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
    expect(sample(text, 'toolwire_http_request_duration_seconds_count{route="/v1/chat/completions"}')).toBe(2);
    expect(sample(text, 'toolwire_http_request_duration_seconds_bucket{route="/v1/chat/completions",le="+Inf"}')).toBe(2);
    expect(sample(text, 'toolwire_stream_first_chunk_seconds_count')).toBe(1);
    expect(sample(text, 'toolwire_model_tokens_total{provider="scripted",type="input"}')).toBe(29);
    expect(sample(text, 'toolwire_model_tokens_total{provider="scripted",type="output"}')).toBe(8);
    expect(sample(text, 'toolwire_tool_executions_total{tool="calculate",outcome="validation_error"}') ?? sample(text, 'toolwire_tool_executions_total{tool="calculate",outcome="execution_error"}')).toBe(1);
    expect(sample(text, 'toolwire_open_streams')).toBe(0);
    expect(sample(text, 'toolwire_tool_slots{state="max"}')).toBe(10);
    expect(sample(text, 'toolwire_tool_slots{state="active"}')).toBe(0);
    expect(sample(text, 'toolwire_state_up{backend="memory"}')).toBe(1);
    expect(sample(text, 'toolwire_sandbox_pool_workers')).toBe(0);
  });

  it('has no /metrics unless enabled, and readiness and liveness apart', async () => {
    const { server, origin } = await startGateway(createScriptedModel([]));
    running = server;
    expect((await fetch(`${origin}/metrics`)).status).toBe(404);
    expect(await (await fetch(`${origin}/livez`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${origin}/readyz`)).json()).toEqual({ status: 'ready', state: 'memory' });
  });
});
