import { createNoopMeter, metrics, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Histogram, MeterProvider, Span } from '@opentelemetry/api';
import type { ChatModel } from './types/chat-model.ts';
import type { ChatRequest } from './types/chat-request.ts';
import type { ChatResponse } from './types/chat-response.ts';
import type { FinishReason } from './types/finish-reason.ts';
import type { ToolCall } from './types/tool-call.ts';
import type { ToolResult } from './types/tool-result.ts';
import { foldUnknownToolName, UNKNOWN_TOOL_LABEL } from './unknown-tool-name.ts';

/** The instrumentation scope of core's spans (what an OpenTelemetry SDK shows as the tracer name). */
export const TRACER_NAME = '@toolwire/core';

/** What a finished `execute_tool` span records as `toolwire.tool.outcome`. */
export type ToolSpanOutcome = 'success' | NonNullable<ToolResult['error']>['type'] | 'aborted';

// Looked up per span rather than once: an SDK registered (or replaced) after this module
// loaded is still used. Without an SDK this is the no-op tracer, and `isRecording()` is
// false, so no attribute is computed.
const tracer = () => trace.getTracer(TRACER_NAME);

interface Instruments {
  provider: MeterProvider;
  /** Whether a meter provider records anything (false for the API's no-op meter, with no SDK registered). */
  recording: boolean;
  duration: Histogram;
  tokens: Histogram;
}
let instruments: Instruments | undefined;

// The GenAI semantic conventions' recommended boundaries (ExplicitBucketBoundaries) for the two client histograms.
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

/** The GenAI client metrics, made again only when another meter provider was registered. */
function clientMetrics(): Instruments {
  const provider = metrics.getMeterProvider();
  if (instruments?.provider === provider) return instruments;
  const meter = provider.getMeter(TRACER_NAME);
  instruments = {
    provider,
    recording: meter !== createNoopMeter(),
    duration: meter.createHistogram('gen_ai.client.operation.duration', {
      unit: 's',
      description: 'Duration of GenAI model calls (a stream to its end).',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    tokens: meter.createHistogram('gen_ai.client.token.usage', {
      unit: '{token}',
      description: 'Tokens used per model call, by gen_ai.token.type (input, output).',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
  };
  return instruments;
}

/**
 * Core's finish reasons as the GenAI conventions' well-known values (`tool_call`,
 * `content_filter`); `other` has no well-known value and stays as it is.
 */
const GEN_AI_FINISH_REASONS: Readonly<Record<FinishReason, string>> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_call',
  'content-filter': 'content_filter',
  error: 'error',
  other: 'other',
};

/**
 * Toolwire provider names whose GenAI well-known value differs: the ChatGPT sign-in provider
 * talks to OpenAI (its Codex backend), so `gen_ai.provider.name` is `openai`, and
 * `toolwire.provider.name` keeps `chatgpt` apart from API-key calls.
 */
const GEN_AI_PROVIDER_NAMES: ReadonlyMap<string, string> = new Map([['chatgpt', 'openai']]);

/**
 * The `gen_ai.provider.name` of a Toolwire provider name: the GenAI conventions' well-known
 * value where it differs (`chatgpt` → `openai`), else the name itself. For spans of your own
 * around core's (put the Toolwire name in `toolwire.provider.name` when they differ).
 * @example genAiProviderName('chatgpt') // 'openai'
 */
export function genAiProviderName(provider: string): string {
  return GEN_AI_PROVIDER_NAMES.get(provider) ?? provider;
}

/** `gen_ai.provider.name` (and `toolwire.provider.name` when they differ) of a model. */
function providerAttributes(attributes: Attributes, provider: string): Attributes {
  const name = genAiProviderName(provider);
  attributes['gen_ai.provider.name'] = name;
  if (name !== provider) attributes['toolwire.provider.name'] = provider;
  return attributes;
}

function recordModelCall(model: ChatModel, startedAt: number, response: ChatResponse | undefined, error: unknown): void {
  const { duration, tokens } = clientMetrics();
  const attributes = providerAttributes({ 'gen_ai.operation.name': 'chat' }, model.provider);
  attributes['gen_ai.request.model'] = model.modelId;
  if (response === undefined) attributes['error.type'] = errorType(error);
  duration.record((performance.now() - startedAt) / 1000, attributes);
  if (response?.usage === undefined) return;
  tokens.record(response.usage.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
  tokens.record(response.usage.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
}

function errorType(error: unknown): string {
  if (error instanceof Error) return error.name;
  return typeof error;
}

/** Only a name, never the message: provider and tool messages can carry user data. */
function failSpan(span: Span, error: unknown): void {
  const type = errorType(error);
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

function requestAttributes(model: ChatModel, request: ChatRequest): Attributes {
  const attributes = providerAttributes({ 'gen_ai.operation.name': 'chat' }, model.provider);
  attributes['gen_ai.request.model'] = model.modelId;
  if (request.maxOutputTokens !== undefined) attributes['gen_ai.request.max_tokens'] = request.maxOutputTokens;
  if (request.temperature !== undefined) attributes['gen_ai.request.temperature'] = request.temperature;
  if (request.topP !== undefined) attributes['gen_ai.request.top_p'] = request.topP;
  if (request.seed !== undefined) attributes['gen_ai.request.seed'] = request.seed;
  if (request.tools !== undefined) attributes['toolwire.request.tool_count'] = request.tools.length;
  return attributes;
}

function responseAttributes(response: ChatResponse): Attributes {
  const attributes: Attributes = {
    'gen_ai.response.finish_reasons': [GEN_AI_FINISH_REASONS[response.finishReason] ?? response.finishReason],
    'toolwire.response.tool_call_count': response.toolCalls.length,
  };
  if (response.modelId !== undefined) attributes['gen_ai.response.model'] = response.modelId;
  if (response.responseId !== undefined) attributes['gen_ai.response.id'] = response.responseId;
  if (response.usage !== undefined) {
    attributes['gen_ai.usage.input_tokens'] = response.usage.inputTokens;
    attributes['gen_ai.usage.output_tokens'] = response.usage.outputTokens;
    if (response.usage.cachedInputTokens !== undefined) attributes['gen_ai.usage.cache_read.input_tokens'] = response.usage.cachedInputTokens;
    if (response.usage.reasoningTokens !== undefined) attributes['gen_ai.usage.reasoning.output_tokens'] = response.usage.reasoningTokens;
  }
  return attributes;
}

/**
 * Runs one model call inside a `chat {model}` client span (OpenTelemetry GenAI semantic
 * conventions): provider, requested and answered model, finish reason, token usage; and
 * records the GenAI client metrics `gen_ai.client.operation.duration` and
 * `gen_ai.client.token.usage`.
 * Messages, tool arguments and settings that may hold secrets are never recorded.
 */
export function traceModelCall(model: ChatModel, request: ChatRequest, call: () => Promise<ChatResponse>): Promise<ChatResponse> {
  const startedAt = performance.now();
  const span = tracer().startSpan(`chat ${model.modelId}`, { kind: SpanKind.CLIENT });
  const recording = span.isRecording();
  if (!recording && !clientMetrics().recording) {
    // Nothing records (no OpenTelemetry SDK): the call's own promise, without reactions and
    // closures of ours that a streamed call would keep for its whole length.
    span.end();
    try {
      return call();
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the call's failure, passed on as it is
      return Promise.reject(error);
    }
  }
  if (recording) span.setAttributes(requestAttributes(model, request));
  const failed = (error: unknown): never => {
    try {
      if (recording) failSpan(span, error);
      recordModelCall(model, startedAt, undefined, error);
      throw error;
    } finally {
      span.end();
    }
  };
  let pending: Promise<ChatResponse>;
  try {
    pending = call();
  } catch (error) {
    try {
      return failed(error);
    } catch (thrown) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the call's failure, passed on as it is
      return Promise.reject(thrown);
    }
  }
  // Reactions rather than an async function: a model call lasts as long as its stream, and a
  // suspended async frame (with its registers) would stay for all of it.
  return pending.then((response) => {
    try {
      if (recording) span.setAttributes(responseAttributes(response));
      recordModelCall(model, startedAt, response, undefined);
    } catch (error) {
      return failed(error);
    }
    span.end();
    return response;
  }, failed);
}

/** Options of `traceToolExecution`. */
export interface ToolSpanOptions {
  /** False for a name nobody registered or offered (the model invented it). */
  known: boolean;
}

/** The options of a registered tool's span, and of an invented name's (one object each: no allocation per call). */
export const KNOWN_TOOL: ToolSpanOptions = { known: true };
export const UNKNOWN_TOOL: ToolSpanOptions = { known: false };

/**
 * Runs one tool execution inside an `execute_tool {name}` span: the tool's name, the call
 * id and the outcome (`toolwire.tool.outcome`: `success`, the failed result's error type,
 * or `aborted`). Argument values and result messages are never recorded.
 *
 * A name nobody registered (`UNKNOWN_TOOL`, the model invented it) gives the span the name
 * `execute_tool (unknown)` and `gen_ai.tool.name` cut to 64 characters: span names are
 * what trace backends group by, and the model can write any number of names of any length.
 */
export async function traceToolExecution(call: ToolCall, execute: () => Promise<ToolResult>, options: ToolSpanOptions = KNOWN_TOOL): Promise<ToolResult> {
  const { known } = options;
  const span = tracer().startSpan(`execute_tool ${known ? call.name : UNKNOWN_TOOL_LABEL}`, { kind: SpanKind.INTERNAL });
  if (!span.isRecording()) {
    span.end();
    return execute();
  }
  span.setAttributes({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': known ? call.name : foldUnknownToolName(call.name),
    'gen_ai.tool.call.id': call.id,
    'gen_ai.tool.type': 'function',
  });
  try {
    const result = await execute();
    const outcome: ToolSpanOutcome = result.success ? 'success' : (result.error?.type ?? 'execution_error');
    span.setAttribute('toolwire.tool.outcome', outcome);
    if (!result.success) {
      span.setAttribute('error.type', outcome);
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    }
    return result;
  } catch (error) {
    span.setAttribute('toolwire.tool.outcome', 'aborted' satisfies ToolSpanOutcome);
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}
