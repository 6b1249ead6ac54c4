import * as z from 'zod';
import { StreamError } from '../errors.ts';
import type { ChatStreamEvent } from '../types/chat-stream-event.ts';
import type { ScriptedResponse } from './scripted-response.ts';
import { InvalidTranscriptError } from './testing-errors.ts';

/**
 * A stream event as JSON. Same as `ChatStreamEvent`, except that an `error` event carries
 * a `message` (replayed as a `StreamError`).
 */
export type ReplayStreamEvent = Exclude<ChatStreamEvent, { type: 'error' }> | { type: 'error'; message: string };

/** One model turn of a transcript: what the request must look like, and what to answer. */
export interface ReplayTurn {
  /** Role of the request's last message (`'user'` for a question, `'tool'` after tool results). */
  lastRole: 'system' | 'user' | 'assistant' | 'tool';
  /** Text the last message must contain (optional; checked on string content). */
  lastContentIncludes?: string;
  /** The answer in short (streamed as chunked deltas)… */
  response?: ScriptedResponse;
  /** …or the exact stream events (collected for `generate`). Exactly one of the two. */
  events?: ReplayStreamEvent[];
}

/**
 * A recorded conversation, as JSON:
 * `{ "name": "weather", "turns": [{ "lastRole": "user", "response": { "text": "…" } }] }`.
 */
export interface ReplayTranscript {
  /** Names the transcript in error messages; also the default model id. */
  name?: string;
  modelId?: string;
  turns: ReplayTurn[];
}

const usage = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  totalTokens: z.number(),
  cachedInputTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});
const finishReason = z.enum(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']);
const warning = z.union([
  z.object({ type: z.literal('unsupported-setting'), setting: z.string(), message: z.string() }),
  z.object({ type: z.literal('unsupported-tool'), toolName: z.string(), message: z.string() }),
  z.object({ type: z.literal('other'), message: z.string() }),
]);
const record = z.record(z.string(), z.unknown());
const invalid = z.object({ rawArguments: z.string(), message: z.string() });
const toolCall = z.object({
  id: z.string(),
  name: z.string(),
  arguments: record,
  providerExecuted: z.boolean().optional(),
  invalid: invalid.optional(),
});
const toolResult = z.object({
  toolCallId: z.string(),
  name: z.string(),
  success: z.boolean(),
  message: z.string(),
  value: z.unknown().optional(),
  error: z
    .object({
      type: z.enum([
        'unknown_tool',
        'permission_denied',
        'rate_limited',
        'validation_error',
        'execution_error',
        'timeout',
        'unsupported',
      ]),
      message: z.string(),
    })
    .optional(),
  providerExecuted: z.boolean().optional(),
});
const providerMetadata = z.record(z.string(), record);
const response = z.object({
  text: z.string().optional(),
  toolCalls: z
    .array(
      z.object({
        id: z.string().optional(),
        name: z.string(),
        arguments: record.optional(),
        providerExecuted: z.boolean().optional(),
        invalid: invalid.optional(),
      }),
    )
    .optional(),
  toolResults: z.array(toolResult).optional(),
  reasoning: z.string().optional(),
  finishReason: finishReason.optional(),
  usage: usage.optional(),
  warnings: z.array(warning).optional(),
  responseId: z.string().optional(),
  modelId: z.string().optional(),
  providerMetadata: providerMetadata.optional(),
});
const event = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text-delta'), delta: z.string() }),
  z.object({ type: z.literal('reasoning-delta'), delta: z.string() }),
  z.object({ type: z.literal('tool-call-start'), id: z.string(), name: z.string(), providerExecuted: z.boolean().optional() }),
  z.object({ type: z.literal('tool-call-delta'), id: z.string(), argumentsDelta: z.string() }),
  z.object({ type: z.literal('tool-call'), toolCall }),
  z.object({ type: z.literal('tool-result'), result: toolResult }),
  z.object({
    type: z.literal('finish'),
    finishReason,
    usage: usage.optional(),
    responseId: z.string().optional(),
    modelId: z.string().optional(),
    providerMetadata: providerMetadata.optional(),
  }),
  z.object({ type: z.literal('warning'), warning }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);
const turn = z
  .object({
    lastRole: z.enum(['system', 'user', 'assistant', 'tool']),
    lastContentIncludes: z.string().optional(),
    response: response.optional(),
    events: z.array(event).optional(),
  })
  .refine((t) => (t.response === undefined) !== (t.events === undefined), {
    message: 'a turn needs exactly one of "response" and "events"',
  });
const transcript = z.object({
  name: z.string().optional(),
  modelId: z.string().optional(),
  turns: z.array(turn).min(1),
});

/**
 * Checks that `json` (e.g. `JSON.parse` of a transcript file) is a `ReplayTranscript`.
 * Throws `InvalidTranscriptError` listing every problem with its path.
 */
export function parseReplayTranscript(json: unknown): ReplayTranscript {
  const parsed = transcript.safeParse(json);
  if (parsed.success) return parsed.data;
  throw new InvalidTranscriptError({
    problems: parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`),
  });
}

/** A transcript's JSON events as `ChatStreamEvent`s. */
export function toChatStreamEvents(events: readonly ReplayStreamEvent[], provider: string): ChatStreamEvent[] {
  return events.map((e) => (e.type === 'error' ? { type: 'error', error: new StreamError({ provider, message: e.message }) } : e));
}
