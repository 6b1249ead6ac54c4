// The properties every fuzz case of a provider checks: what comes out is events and values
// of the documented types or a typed Toolwire error with a message a user can act on (no raw
// TypeError or SyntaxError), nothing is left unhandled in the process, the call ends within a
// bound, every connection it stopped reading is closed, and no secret shows in a message.
// Kept free of workspace imports: errors are recognised by core's `Symbol.for` marker.
import { settleTurns, watchProcess } from './process-watch.ts';
import type { HostileUpstream } from './hostile-upstream.ts';

const TOOLWIRE_MARKER = Symbol.for('toolwire.error.ToolwireError');

/** A property that does not hold (as opposed to an error the code under test threw). */
export class FuzzCheckFailure extends Error {}

/** What a model call is, for the fuzzers (structurally a core `ChatModel`). */
export interface FuzzedModel {
  generate(request: any): Promise<unknown>;
  stream(request: any): AsyncIterable<unknown>;
}

/** How a case calls the model: `generate`, or `stream` read to the end or abandoned after `breakAfter` events. */
export type CallMode = { kind: 'generate' } | { kind: 'stream'; breakAfter?: number | undefined };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorChainMessages(error: unknown): string[] {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    messages.push(current.message, String(current));
    current = current.cause;
  }
  return messages;
}

/**
 * A TypeError, RangeError or ReferenceError thrown by a workspace package's source, anywhere
 * in the cause chain: a bug of ours that a wrapper turned into a typed error with a message
 * nobody can act on. (A TypeError of `fetch` itself, "fetch failed", comes from undici.)
 */
function ownBugInChain(error: unknown): Error | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof TypeError || current instanceof RangeError || current instanceof ReferenceError) {
      const frame = (current.stack ?? '').split('\n').find((line) => line.trimStart().startsWith('at '));
      if (frame !== undefined && /[/\\](packages|apps)[/\\][^/\\]+[/\\]src[/\\]/u.test(frame)) return current;
    }
    current = current.cause;
  }
  return undefined;
}

/** Fails unless `error` is the abort reason given, or a Toolwire error with a useful message free of secrets. */
export function checkError(error: unknown, secrets: readonly string[], abortReason?: unknown): void {
  if (abortReason !== undefined && error === abortReason) return;
  if (!(error instanceof Error)) throw new FuzzCheckFailure(`a non-Error was thrown: ${String(error)}`);
  if (!(TOOLWIRE_MARKER in error)) throw new FuzzCheckFailure(`an untyped error leaked: ${error.name}: ${error.message}\n${error.stack ?? ''}`, { cause: error });
  if (typeof error.message !== 'string' || error.message.trim() === '') throw new FuzzCheckFailure(`a typed error without a message a user can act on: ${error.name}: ${JSON.stringify(error.message)}`);
  const bug = ownBugInChain(error);
  if (bug !== undefined) throw new FuzzCheckFailure(`a ${bug.name} from Toolwire's own code, wrapped as ${error.name}: ${bug.message}\n${bug.stack ?? ''}`, { cause: error });
  for (const message of errorChainMessages(error)) {
    for (const secret of secrets) if (message.includes(secret)) throw new FuzzCheckFailure(`a secret shows in an error message: ${message.slice(0, 300)}`);
  }
}

function checkToolCall(call: unknown, where: string): void {
  if (!isRecord(call)) throw new FuzzCheckFailure(`${where}: a tool call that is not an object`);
  if (typeof call.id !== 'string' || call.id === '') throw new FuzzCheckFailure(`${where}: a tool call id that is not a non-empty string: ${JSON.stringify(call.id)}`);
  if (typeof call.name !== 'string') throw new FuzzCheckFailure(`${where}: a tool call name that is not a string`);
  if (!isRecord(call.arguments)) throw new FuzzCheckFailure(`${where}: tool call arguments that are not an object: ${JSON.stringify(call.arguments)}`);
}

function checkToolResult(result: unknown, where: string): void {
  if (!isRecord(result)) throw new FuzzCheckFailure(`${where}: a tool result that is not an object`);
  if (typeof result.toolCallId !== 'string' || typeof result.name !== 'string' || typeof result.success !== 'boolean' || typeof result.message !== 'string') {
    throw new FuzzCheckFailure(`${where}: a tool result of the wrong shape: ${JSON.stringify(result).slice(0, 300)}`);
  }
}

function checkUsage(usage: unknown, where: string): void {
  if (usage === undefined) return;
  if (!isRecord(usage)) throw new FuzzCheckFailure(`${where}: usage is not an object`);
  for (const [key, value] of Object.entries(usage)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new FuzzCheckFailure(`${where}: usage.${key} is not a count: ${JSON.stringify(value)}`);
  }
}

/** Fails when two tool calls of one answer share an id: ids pair calls with their results. */
export function checkUniqueIds(ids: readonly string[], where: string): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new FuzzCheckFailure(`${where}: two tool calls share the id ${JSON.stringify(id)}`);
    seen.add(id);
  }
}

const FINISH_REASONS = new Set(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']);

/** Fails unless `event` is a `ChatStreamEvent` of the documented shape. */
export function checkStreamEvent(event: unknown, secrets: readonly string[], abortReason?: unknown): void {
  if (!isRecord(event)) throw new FuzzCheckFailure(`a stream event that is not an object: ${String(event)}`);
  const where = `event ${String(event.type)}`;
  switch (event.type) {
    case 'text-delta':
    case 'reasoning-delta':
      if (typeof event.delta !== 'string') throw new FuzzCheckFailure(`${where}: delta is not a string`);
      return;
    case 'tool-call-start':
      if (typeof event.id !== 'string' || typeof event.name !== 'string') throw new FuzzCheckFailure(`${where}: id or name is not a string`);
      return;
    case 'tool-call-delta':
      if (typeof event.id !== 'string' || typeof event.argumentsDelta !== 'string') throw new FuzzCheckFailure(`${where}: id or argumentsDelta is not a string`);
      return;
    case 'tool-call':
      checkToolCall(event.toolCall, where);
      return;
    case 'tool-result':
      checkToolResult(event.result, where);
      return;
    case 'finish':
      if (typeof event.finishReason !== 'string' || !FINISH_REASONS.has(event.finishReason)) throw new FuzzCheckFailure(`${where}: finishReason ${JSON.stringify(event.finishReason)}`);
      for (const key of ['responseId', 'modelId'] as const) {
        if (event[key] !== undefined && typeof event[key] !== 'string') throw new FuzzCheckFailure(`${where}: ${key} is not a string: ${JSON.stringify(event[key])}`);
      }
      checkUsage(event.usage, where);
      return;
    case 'warning':
      if (!isRecord(event.warning)) throw new FuzzCheckFailure(`${where}: warning is not an object`);
      return;
    case 'error':
      checkError(event.error, secrets, abortReason);
      return;
    default:
      throw new FuzzCheckFailure(`an event of an unknown type: ${JSON.stringify(event).slice(0, 200)}`);
  }
}

/** Fails unless `response` is a `ChatResponse` of the documented shape. */
export function checkResponse(response: unknown): void {
  if (!isRecord(response)) throw new FuzzCheckFailure('generate resolved with something that is not an object');
  if (typeof response.text !== 'string') throw new FuzzCheckFailure('response.text is not a string');
  if (!Array.isArray(response.toolCalls)) throw new FuzzCheckFailure('response.toolCalls is not an array');
  response.toolCalls.forEach((call, i) => checkToolCall(call, `response.toolCalls[${i}]`));
  if (!Array.isArray(response.toolResults)) throw new FuzzCheckFailure('response.toolResults is not an array');
  response.toolResults.forEach((result, i) => checkToolResult(result, `response.toolResults[${i}]`));
  if (typeof response.finishReason !== 'string' || !FINISH_REASONS.has(response.finishReason)) throw new FuzzCheckFailure(`response.finishReason ${JSON.stringify(response.finishReason)}`);
  if (!Array.isArray(response.warnings)) throw new FuzzCheckFailure('response.warnings is not an array');
  checkUniqueIds((response.toolCalls as { id: string }[]).map((call) => call.id), 'response.toolCalls');
  checkUsage(response.usage, 'response');
  for (const key of ['responseId', 'modelId'] as const) {
    if (response[key] !== undefined && typeof response[key] !== 'string') throw new FuzzCheckFailure(`response.${key} is not a string: ${JSON.stringify(response[key])}`);
  }
}

/** How long a case may take before it counts as a hang. */
const CASE_BOUND_MS = 15_000;
/** How long the client may take to close a connection it stopped reading. */
const CLOSE_BOUND_MS = 5_000;

async function withBound<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within ${CASE_BOUND_MS} ms (a hang)`)), CASE_BOUND_MS);
  });
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Calls `model` once as `mode` says against `upstream` (whose route the caller has set) and
 * checks every property. A reply that holds its connection open is answered by aborting the
 * call once the upstream has written it (a user's signal), so the case still ends.
 */
export async function exerciseModel(options: { model: FuzzedModel; request: Record<string, unknown>; mode: CallMode; upstream: HostileUpstream; secrets: readonly string[] }): Promise<void> {
  const { model, mode, upstream, secrets } = options;
  const watch = watchProcess();
  const controller = new AbortController();
  const reason = new Error('fuzz: the caller stopped waiting for a held-open answer');
  upstream.onHeld = () => controller.abort(reason);
  const request = { ...options.request, signal: controller.signal };
  const failures: string[] = [];
  try {
    if (mode.kind === 'generate') {
      const outcome = await withBound(
        model.generate(request).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
        'generate',
      );
      if ('error' in outcome) checkError(outcome.error, secrets, reason);
      else checkResponse(outcome.value);
    } else {
      await withBound(
        (async () => {
          let count = 0;
          let sawError = false;
          const callIds: string[] = [];
          try {
            for await (const event of model.stream(request)) {
              if (sawError) throw new FuzzCheckFailure('an event came after an error event');
              checkStreamEvent(event, secrets, reason);
              if ((event as { type: string }).type === 'error') sawError = true;
              if ((event as { type: string }).type === 'tool-call') {
                callIds.push((event as { toolCall: { id: string } }).toolCall.id);
                checkUniqueIds(callIds, 'stream');
              }
              count++;
              if (mode.breakAfter !== undefined && count >= mode.breakAfter) break;
            }
          } catch (error) {
            if (error instanceof FuzzCheckFailure) throw error;
            checkError(error, secrets, reason);
          }
        })(),
        'stream',
      );
    }
    const closeBy = Date.now() + CLOSE_BOUND_MS;
    while (upstream.openAnswers() > 0 && Date.now() < closeBy) await new Promise((resolve) => setTimeout(resolve, 10));
    if (upstream.openAnswers() > 0) failures.push(`${upstream.openAnswers()} upstream connection(s) left open ${CLOSE_BOUND_MS} ms after the call ended`);
  } finally {
    controller.abort(reason);
    await settleTurns();
    failures.push(...watch.stop());
    upstream.reset();
  }
  if (failures.length > 0) throw new FuzzCheckFailure(failures.join('\n'));
}
