import { metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { MetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.ts';
import { executeToolCall } from './execute-tool-call.ts';
import { runTools } from './run-tools.ts';
import { runToolsStream } from './run-tools-stream.ts';
import { createScriptedModel } from './testing/scripted-model.ts';
import { ToolRegistry } from './tool-registry.ts';
import type { ToolCallAudit } from './types/tool-call-audit.ts';
import { genAiProviderName, TRACER_NAME, traceModelCall } from './tracing.ts';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const secretTool = defineTool({
  name: 'lookup',
  description: 'Looks something up',
  parameters: z.object({ password: z.string() }),
  execute: ({ password }) => `found ${password.length}`,
});
const failingTool = defineTool({
  name: 'broken',
  description: 'Always fails',
  parameters: z.object({}),
  execute: () => {
    throw new Error('database sk-live-123 is down');
  },
});

function spans() {
  return exporter.getFinishedSpans().map((span) => ({ name: span.name, attributes: span.attributes, status: span.status, scope: span.instrumentationScope.name }));
}

describe('OpenTelemetry spans (GenAI semantic conventions)', () => {
  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    trace.disable();
    await provider.shutdown();
  });
  beforeEach(() => exporter.reset());

  it('records a chat span per model call and an execute_tool span per tool execution', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'lookup', arguments: { password: 'hunter2' } }], usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
      { text: 'Done.', usage: { inputTokens: 20, outputTokens: 3, totalTokens: 23 } },
    ]);
    await runTools({ model, messages: [{ role: 'user', content: 'my password is hunter2' }], tools: [secretTool], settings: { maxOutputTokens: 100 } });

    const recorded = spans();
    expect(recorded.map((s) => s.name)).toEqual([`chat ${model.modelId}`, 'execute_tool lookup', `chat ${model.modelId}`]);
    expect(recorded.every((s) => s.scope === TRACER_NAME)).toBe(true);
    expect(recorded[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': model.provider,
      'gen_ai.request.model': model.modelId,
      'gen_ai.response.finish_reasons': ['tool_call'],
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.request.max_tokens': 100,
    });
    expect(recorded[1]?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
      'toolwire.tool.outcome': 'success',
    });
    expect(recorded[2]?.attributes['gen_ai.usage.output_tokens']).toBe(3);
    // Neither the prompt nor the argument value reaches a span.
    expect(JSON.stringify(recorded)).not.toContain('hunter2');
  });

  it('marks a failed tool with its error type and never its message', async () => {
    const registry = new ToolRegistry({ tools: [failingTool] });
    const result = await executeToolCall({ id: 'c2', name: 'broken', arguments: {} }, { registry });
    expect(result.success).toBe(false);
    const unknown = await executeToolCall({ id: 'c3', name: 'nope', arguments: {} }, { registry });
    expect(unknown.error?.type).toBe('unknown_tool');

    const [broken, missing] = spans();
    expect(broken).toMatchObject({ name: 'execute_tool broken', status: { code: SpanStatusCode.ERROR, message: 'execution_error' } });
    expect(broken?.attributes).toMatchObject({ 'toolwire.tool.outcome': 'execution_error', 'error.type': 'execution_error' });
    expect(missing?.attributes).toMatchObject({ 'gen_ai.tool.name': 'nope', 'toolwire.tool.outcome': 'unknown_tool' });
    expect(JSON.stringify(spans())).not.toContain('sk-live-123');
  });

  it('records finish reasons and provider names as the GenAI well-known values', async () => {
    const chatgpt = createScriptedModel(
      [
        { events: [{ type: 'text-delta', delta: 'cut' }, { type: 'finish', finishReason: 'content-filter' }] },
      ],
      { provider: 'chatgpt' },
    );
    await runTools({ model: chatgpt, messages: [{ role: 'user', content: 'hi' }] });
    const model = createScriptedModel([{ toolCalls: [{ id: 'c1', name: 'lookup', arguments: { password: 'x' } }] }, { text: 'ok' }]);
    await runTools({ model, messages: [{ role: 'user', content: 'hi' }], tools: [secretTool] });

    const chats = spans().filter((s) => s.name.startsWith('chat '));
    expect(chats.map((s) => s.attributes['gen_ai.response.finish_reasons'])).toEqual([['content_filter'], ['tool_call'], ['stop']]);
    // The ChatGPT sign-in provider talks to OpenAI; its own name stays apart.
    expect(chats[0]?.attributes).toMatchObject({ 'gen_ai.provider.name': 'openai', 'toolwire.provider.name': 'chatgpt' });
    expect(chats[1]?.attributes['gen_ai.provider.name']).toBe('scripted');
    expect(chats[1]?.attributes).not.toHaveProperty('toolwire.provider.name');
    // The same mapping for spans of one's own (the CLI's invoke_agent span).
    expect([genAiProviderName('chatgpt'), genAiProviderName('openai'), genAiProviderName('ollama')]).toEqual(['openai', 'openai', 'ollama']);
  });

  it('gives a tool name the model invented an execute_tool (unknown) span and audit, its name cut to 64 characters', async () => {
    const invented = `nosuch_${'x'.repeat(5000)}`;
    const model = createScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'nosuch', arguments: {} }, { id: 'c2', name: invented, arguments: { a: 1 } }, { id: 'c3', name: 'lookup', arguments: { password: 'x' } }] },
      { text: 'ok' },
    ]);
    const audits: ToolCallAudit[] = [];
    const result = await runTools({ model, messages: [{ role: 'user', content: 'hi' }], tools: [secretTool], principal: 'key-1', onToolAudit: (audit) => audits.push(audit) });

    // What the model reads is unchanged: the name as written and the tools it may call.
    const answers = result.messages.filter((m) => m.role === 'tool');
    expect(answers[1]).toMatchObject({ toolCallId: 'c2', result: { success: false, error: { type: 'unknown_tool' } } });
    expect(answers[1]?.role === 'tool' && answers[1].content).toContain(invented);
    expect(answers[1]?.role === 'tool' && answers[1].content).toContain('Available tools: lookup');

    const tools = spans().filter((s) => s.name.startsWith('execute_tool'));
    expect(tools.map((s) => s.name)).toEqual(['execute_tool (unknown)', 'execute_tool (unknown)', 'execute_tool lookup']);
    expect(tools[0]?.attributes).toMatchObject({ 'gen_ai.tool.name': 'nosuch', 'toolwire.tool.outcome': 'unknown_tool', 'error.type': 'unknown_tool' });
    expect(tools[1]?.attributes['gen_ai.tool.name']).toBe(`${invented.slice(0, 64)}…`);
    expect(JSON.stringify(spans()).length).toBeLessThan(5000);

    expect(audits.map((a) => [a.toolName, a.outcome])).toEqual([
      ['nosuch', 'unknown_tool'],
      [`${invented.slice(0, 64)}…`, 'unknown_tool'],
      ['lookup', 'success'],
    ]);
    expect(audits[1]).toMatchObject({ principal: 'key-1', argumentNames: ['a'], durationMs: 0 });
    expect(JSON.stringify(audits).length).toBeLessThan(2000);
  });

  it('cuts an unknown name of a registry the same way, never inside a surrogate pair', async () => {
    const registry = new ToolRegistry({ tools: [failingTool] });
    const name = `${'a'.repeat(63)}😀tail`;
    const audits: ToolCallAudit[] = [];
    const result = await executeToolCall({ id: 'c9', name, arguments: {} }, { registry, onAudit: (audit) => audits.push(audit) });
    expect(result.message).toContain(name);
    const [span] = spans();
    expect(span?.name).toBe('execute_tool (unknown)');
    expect(span?.attributes['gen_ai.tool.name']).toBe(`${'a'.repeat(63)}…`);
    expect(audits[0]?.toolName).toBe(`${'a'.repeat(63)}…`);
  });

  it('marks an aborted tool call as aborted', async () => {
    const slow = defineTool({ name: 'slow', description: 'Waits', parameters: z.object({}), execute: () => new Promise(() => undefined) });
    const controller = new AbortController();
    const pending = executeToolCall({ id: 'c4', name: 'slow', arguments: {} }, { registry: new ToolRegistry({ tools: [slow] }), signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 10);
    await expect(pending).rejects.toThrow('stop');
    expect(spans()[0]?.attributes).toMatchObject({ 'toolwire.tool.outcome': 'aborted', 'error.type': 'Error' });
  });

  it('covers a streamed model call until its end, and a failed model call', async () => {
    const model = createScriptedModel([{ text: 'streamed', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }]);
    const run = runToolsStream({ model, messages: [{ role: 'user', content: 'hi' }] });
    const types: string[] = [];
    for await (const event of run) types.push(event.type);
    expect(types.at(-1)).toBe('finish');
    expect(spans()[0]?.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage.output_tokens': 2, 'gen_ai.response.finish_reasons': ['stop'] });

    exporter.reset();
    const failing = createScriptedModel([]);
    await expect(runTools({ model: failing, messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow();
    const [span] = spans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(typeof span?.attributes['error.type']).toBe('string');
  });

  /** Runs `run` with no tracer provider registered (then the test's provider again). */
  async function withoutTracer(run: () => Promise<void>): Promise<void> {
    trace.disable();
    try {
      await run();
    } finally {
      trace.setGlobalTracerProvider(provider);
    }
  }

  /** Runs `run` with an in-memory meter provider registered, and returns core's exported metrics by name. */
  async function coreMetrics(run: () => Promise<unknown>): Promise<Map<string, MetricData>> {
    const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
    const meterProvider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(meterProvider);
    try {
      await run();
      await reader.forceFlush();
      const exported = metricExporter.getMetrics().flatMap((m) => m.scopeMetrics).filter((scope) => scope.scope.name === TRACER_NAME).flatMap((scope) => scope.metrics);
      return new Map(exported.map((metric) => [metric.descriptor.name, metric]));
    } finally {
      metrics.disable();
      await meterProvider.shutdown();
    }
  }

  it('records the GenAI client metrics: operation duration and token usage by type', async () => {
    const model = createScriptedModel([{ text: 'measured', usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 } }]);
    const byName = await coreMetrics(() => runTools({ model, messages: [{ role: 'user', content: 'hi' }] }));
    const duration = byName.get('gen_ai.client.operation.duration');
    expect(duration?.descriptor.unit).toBe('s');
    expect(duration?.dataPoints[0]?.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': model.provider, 'gen_ai.request.model': model.modelId });
    const usage = byName.get('gen_ai.client.token.usage');
    const sums = Object.fromEntries((usage?.dataPoints ?? []).map((point) => [String(point.attributes['gen_ai.token.type']), (point.value as { sum: number }).sum]));
    expect(sums).toEqual({ input: 7, output: 3 });
  });

  it("buckets the client histograms at the GenAI semantic conventions' recommended boundaries", async () => {
    const model = createScriptedModel([{ text: 'measured', usage: { inputTokens: 300, outputTokens: 3, totalTokens: 303 } }]);
    const byName = await coreMetrics(() => runTools({ model, messages: [{ role: 'user', content: 'hi' }] }));
    const boundaries = (name: string) => (byName.get(name)?.dataPoints[0]?.value as { buckets: { boundaries: number[] } } | undefined)?.buckets.boundaries;
    expect(boundaries('gen_ai.client.operation.duration')).toEqual([0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]);
    expect(boundaries('gen_ai.client.token.usage')).toEqual([1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]);
    const input = byName.get('gen_ai.client.token.usage')?.dataPoints.find((point) => point.attributes['gen_ai.token.type'] === 'input');
    // 300 tokens fall in (256, 1024].
    expect((input?.value as { buckets: { counts: number[] } } | undefined)?.buckets.counts[5]).toBe(1);
  });

  it('records the client metrics with a meter provider but no tracer provider', async () => {
    await withoutTracer(async () => {
      const model = createScriptedModel([{ text: 'measured', usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 } }]);
      const byName = await coreMetrics(() => runTools({ model, messages: [{ role: 'user', content: 'hi' }] }));
      expect([...byName.keys()]).toEqual(expect.arrayContaining(['gen_ai.client.operation.duration', 'gen_ai.client.token.usage']));
      expect(spans()).toEqual([]);
    });
  });

  it("hands back the model call's own promise when nothing records (no reactions kept for a stream's length)", async () => {
    await withoutTracer(async () => {
      const model = createScriptedModel([{ text: 'quiet' }]);
      const request = { messages: [{ role: 'user' as const, content: 'hi' }] };
      const pending = model.generate(request);
      expect(traceModelCall(model, request, () => pending)).toBe(pending);
      await pending;
      const thrown = new Error('refused before any request');
      await expect(
        traceModelCall(model, request, () => {
          throw thrown;
        }),
      ).rejects.toBe(thrown);
    });
  });

  it('records nothing without a registered SDK', async () => {
    await withoutTracer(async () => {
      const model = createScriptedModel([{ text: 'quiet' }]);
      await runTools({ model, messages: [{ role: 'user', content: 'hi' }] });
      expect(spans()).toEqual([]);
    });
  });
});
