import { addUsage } from '@toolwire/core';
import { readTextCall, textCallWarning } from '@toolwire/core/provider';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, FunctionToolSpec, ToolCall, Usage, Warning } from '@toolwire/core';
import { buildChatBody } from './ollama-chat-request.ts';
import { forcedCallFormat, forcedCallInstruction, parseForcedCall } from './forced-call.ts';
import { buildResponse, mapFinishReason, mapUsage } from './ollama-chat-response.ts';
import { fromOllamaToolCalls } from './ollama-chat-tool-calls.ts';
import { chatOnce, chatStream, newAnswerLimit } from './ollama-client.ts';
import type { CallOptions } from './ollama-client.ts';
import type { OllamaModelConfig } from './ollama-model-config.ts';
import type { OllamaChatBody } from './ollama-wire.ts';
import { prepareTools } from './ollama-chat-prepare-tools.ts';
import type { PreparedTools } from './ollama-chat-prepare-tools.ts';
import { droppedCallWarning, streamTurn, toolCallEvents } from './ollama-chat-stream.ts';

/**
 * A model that gets tools natively through /api/chat. It enforces what Ollama ignores:
 * `toolChoice` (see `prepareTools` and the `forcedToolCalls` setting) and
 * `parallelToolCalls: false` (the first call is kept).
 */
export function createNativeModel(config: OllamaModelConfig): ChatModel {
  return {
    provider: 'ollama',
    modelId: config.modelId,
    generate: (request) => generateNative(config, request),
    stream: (request) => streamNative(config, request),
  };
}

interface Turn {
  config: OllamaModelConfig;
  request: ChatRequest;
  prepared: PreparedTools;
  call: CallOptions;
  firstCallOnly: boolean;
  /** The tools a call written as text may name: none when the answer is constrained to JSON (then it is data). */
  textCallTools: readonly FunctionToolSpec[];
}

function startTurn(config: OllamaModelConfig, request: ChatRequest): Turn {
  const prepared = prepareTools({ tools: request.tools, toolChoice: request.toolChoice });
  const constrained = config.settings.format !== undefined || request.responseFormat?.type === 'json';
  return {
    config,
    request,
    prepared,
    call: { signal: request.signal, headers: request.headers, modelId: config.modelId },
    firstCallOnly: request.parallelToolCalls === false,
    textCallTools: constrained ? [] : prepared.offered,
  };
}

function bodyOf(turn: Turn): OllamaChatBody {
  const { config, request, prepared } = turn;
  return buildChatBody({ modelId: config.modelId, request, settings: config.settings, tools: prepared.tools });
}

/** The same request, constrained by a JSON Schema `format` so the answer is one call. */
function forcedBodyOf(turn: Turn, forced: readonly FunctionToolSpec[]): OllamaChatBody {
  const body = bodyOf(turn);
  body.format = forcedCallFormat(forced);
  body.messages.push(forcedCallInstruction(forced));
  return body;
}

function retryWarning(forced: readonly FunctionToolSpec[]): Warning {
  return {
    type: 'other',
    message: `The model answered without calling ${describe(forced)} although toolChoice requires it; retried with a JSON Schema format constraint.`,
  };
}

function failedWarning(forced: readonly FunctionToolSpec[]): Warning {
  return {
    type: 'other',
    message:
      `The model did not call ${describe(forced)} although toolChoice requires it, even constrained by a JSON Schema format. ` +
      'A cut-off answer is the usual cause: raise maxOutputTokens (num_predict).',
  };
}

function describe(tools: readonly FunctionToolSpec[]): string {
  return tools.length === 1 ? `"${tools[0]?.name ?? ''}"` : 'a tool';
}

function keepAllowed(calls: ToolCall[], forced: readonly FunctionToolSpec[] | undefined, warnings: Warning[]): ToolCall[] {
  if (forced === undefined) return calls;
  return calls.filter((call) => {
    const allowed = forced.some((tool) => tool.name === call.name);
    if (!allowed) warnings.push(droppedCallWarning(call.name));
    return allowed;
  });
}

async function generateNative(config: OllamaModelConfig, request: ChatRequest): Promise<ChatResponse> {
  const turn = startTurn(config, request);
  const { forced } = turn.prepared;
  const warnings = [...turn.prepared.warnings];
  if (forced !== undefined && config.settings.forcedToolCalls === 'format') {
    return generateForced(turn, forced, warnings, undefined);
  }
  const raw = await chatOnce(config.connection, bodyOf(turn), turn.call);
  let toolCalls = keepAllowed(fromOllamaToolCalls(raw.message?.tool_calls), forced, warnings);
  if (turn.firstCallOnly) toolCalls = toolCalls.slice(0, 1);
  if (forced !== undefined && toolCalls.length === 0) {
    warnings.push(retryWarning(forced));
    return generateForced(turn, forced, warnings, mapUsage(raw));
  }
  let text = raw.message?.content ?? '';
  const textCall = toolCalls.length === 0 ? readTextCall(text, turn.textCallTools) : undefined;
  if (textCall !== undefined) {
    warnings.push(textCallWarning(textCall.name, "Ollama's template parser"));
    toolCalls = [textCall];
    text = '';
  }
  return buildResponse({
    text,
    reasoning: raw.message?.thinking ?? '',
    toolCalls,
    doneReason: raw.done_reason,
    usage: mapUsage(raw),
    modelId: raw.model,
    warnings,
  });
}

async function generateForced(
  turn: Turn,
  forced: readonly FunctionToolSpec[],
  warnings: Warning[],
  earlierUsage: Usage | undefined,
): Promise<ChatResponse> {
  const raw = await chatOnce(turn.config.connection, forcedBodyOf(turn, forced), turn.call);
  const content = raw.message?.content ?? '';
  // Templates whose tool tag is `{` let Ollama's own parser turn the JSON into a call.
  let toolCalls = keepAllowed(fromOllamaToolCalls(raw.message?.tool_calls), forced, warnings).slice(0, 1);
  let text = content;
  if (toolCalls.length === 0) {
    const parsed = parseForcedCall(content, forced);
    if (parsed !== undefined) {
      toolCalls = [parsed];
      text = '';
    } else {
      warnings.push(failedWarning(forced));
    }
  }
  return buildResponse({
    text,
    reasoning: raw.message?.thinking ?? '',
    toolCalls,
    doneReason: raw.done_reason,
    usage: addUsage(earlierUsage, mapUsage(raw)),
    modelId: raw.model,
    warnings,
  });
}

async function* streamNative(config: OllamaModelConfig, request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
  const turn = startTurn(config, request);
  const { forced } = turn.prepared;
  if (forced !== undefined && config.settings.forcedToolCalls === 'format') {
    yield* streamForced(turn, forced, undefined);
    return;
  }
  // The request goes out before the first event, so a rejected request throws from the
  // first `next()` (and the caller can still switch to text tools).
  const chunks = await chatStream(config.connection, bodyOf(turn), turn.call);
  for (const warning of turn.prepared.warnings) yield { type: 'warning', warning };
  const summary = yield* streamTurn(chunks, {
    answerLimit: newAnswerLimit(config.connection),
    firstCallOnly: turn.firstCallOnly,
    holdText: forced !== undefined,
    allowedNames: forced === undefined ? undefined : new Set(forced.map((tool) => tool.name)),
    holdPossibleTextCall: forced === undefined && turn.textCallTools.length > 0,
  });
  if (summary.heldText === true) {
    const textCall = summary.toolCalls.length === 0 ? readTextCall(summary.text, turn.textCallTools) : undefined;
    if (textCall !== undefined) {
      yield { type: 'warning', warning: textCallWarning(textCall.name, "Ollama's template parser") };
      yield* toolCallEvents(textCall);
      summary.toolCalls.push(textCall);
    } else {
      yield { type: 'text-delta', delta: summary.text };
    }
  }
  if (forced !== undefined) {
    if (summary.toolCalls.length === 0) {
      yield { type: 'warning', warning: retryWarning(forced) };
      yield* streamForced(turn, forced, { usage: summary.usage });
      return;
    }
    if (summary.text !== '') yield { type: 'text-delta', delta: summary.text };
  }
  yield finishEvent(summary.doneReason, summary.toolCalls.length > 0, summary.usage, summary.modelId);
}

async function* streamForced(
  turn: Turn,
  forced: readonly FunctionToolSpec[],
  retryOf: { usage: Usage | undefined } | undefined,
): AsyncGenerator<ChatStreamEvent> {
  const chunks = await chatStream(turn.config.connection, forcedBodyOf(turn, forced), turn.call);
  if (retryOf === undefined) {
    for (const warning of turn.prepared.warnings) yield { type: 'warning', warning };
  }
  // The text is the call's JSON: held back and parsed at the end, unless Ollama's own
  // parser already turned it into a call.
  const summary = yield* streamTurn(chunks, {
    answerLimit: newAnswerLimit(turn.config.connection),
    firstCallOnly: true,
    holdText: true,
    allowedNames: new Set(forced.map((tool) => tool.name)),
  });
  let hasCall = summary.toolCalls.length > 0;
  if (!hasCall) {
    const parsed = parseForcedCall(summary.text, forced);
    if (parsed !== undefined) {
      hasCall = true;
      yield* toolCallEvents(parsed);
    } else {
      yield { type: 'warning', warning: failedWarning(forced) };
      if (summary.text !== '') yield { type: 'text-delta', delta: summary.text };
    }
  }
  yield finishEvent(summary.doneReason, hasCall, addUsage(retryOf?.usage, summary.usage), summary.modelId);
}

function finishEvent(
  doneReason: string | undefined,
  hasToolCalls: boolean,
  usage: Usage | undefined,
  modelId: string | undefined,
): ChatStreamEvent {
  return {
    type: 'finish',
    finishReason: mapFinishReason(doneReason, hasToolCalls),
    ...(usage !== undefined ? { usage } : {}),
    ...(modelId !== undefined ? { modelId } : {}),
  };
}
