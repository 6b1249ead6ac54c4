import { addUsage } from './add-usage.ts';
import { resolveAnswerLimits } from './answer-limit.ts';
import type { AnswerLimits, AnswerLimitSettings } from './answer-limit.ts';
import { answerUnknownTool, executeToolCall, resolveMaxResultChars } from './execute-tool-call.ts';
import { isProviderTool } from './provider-tools.ts';
import type { RunToolsEvent, RunToolsOptions, RunToolsResult, RunToolsStep, RunToolsStoppedBy } from './run-tools-types.ts';
import { ToolRegistry } from './tool-registry.ts';
import { traceModelCall } from './tracing.ts';
import type { ChatRequest, ToolSpec } from './types/chat-request.ts';
import type { ChatResponse } from './types/chat-response.ts';
import type { Message, ToolMessage } from './types/message.ts';
import type { Tool } from './types/tool.ts';
import type { ToolCall } from './types/tool-call.ts';
import type { ToolChoice } from './types/tool-choice.ts';
import type { ToolResult } from './types/tool-result.ts';
import type { Usage } from './types/usage.ts';

/** How one step's model call is made: `generate`, or a stream that is passed on. */
export type CallModel = (request: ChatRequest) => Promise<ChatResponse>;

/** The loop behind `runTools` and `runToolsStream`. */
export interface ToolLoopInput {
  options: RunToolsOptions;
  callModel: CallModel;
  /** The signal of the whole run (the caller's, maybe combined with the stream's own). */
  signal: AbortSignal | undefined;
  /** Told about each result of a call run here, as soon as it is ready. */
  onToolResult?: (result: ToolResult) => void;
}

const DEFAULT_MAX_STEPS = 10;

/** How `runTools`'s answer bounds are named in their errors. */
export const RUN_TOOLS_ANSWER_SETTINGS: AnswerLimitSettings = { chars: 'the maxAnswerChars option of runTools', toolCalls: 'the maxToolCallsPerAnswer option of runTools' };

/** The answer bounds of a run, checked (a `RangeError` before anything runs). */
export function resolveRunAnswerLimits(options: RunToolsOptions): AnswerLimits {
  return resolveAnswerLimits(options, RUN_TOOLS_ANSWER_SETTINGS);
}

/** What a run keeps from step to step. */
interface LoopState {
  readonly input: ToolLoopInput;
  readonly maxSteps: number;
  readonly parallel: boolean;
  readonly tools: readonly ToolSpec[];
  readonly plan: ToolPlan;
  readonly history: Message[];
  readonly newMessages: Message[];
  readonly steps: RunToolsStep[];
  usage: Usage;
}

/** Runs model calls and tool calls until an answer, client calls, `maxSteps`, or an abort. */
export async function runToolLoop(input: ToolLoopInput): Promise<RunToolsResult> {
  const loop = startLoop(input);
  // This frame stays suspended while a model call lasts (a whole stream): it keeps little,
  // the state is in one object and the rest of a step runs in `finishStep`.
  for (let stepNumber = 1; ; stepNumber++) {
    const { options, signal } = input;
    signal?.throwIfAborted();
    const request = buildRequest({ options, tools: loop.tools, history: loop.history, stepNumber, signal });
    if (options.onEvent) await emit(options.onEvent, { type: 'step-start', stepNumber, request });
    const response = await traceModelCall(options.model, request, () => input.callModel(request));
    const result = await finishStep(loop, stepNumber, response);
    if (result !== undefined) return result;
  }
}

function startLoop(input: ToolLoopInput): LoopState {
  const { options } = input;
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new RangeError(`maxSteps must be a whole number >= 1, got ${String(maxSteps)}.`);
  }
  resolveMaxResultChars(options.maxResultChars);
  resolveRunAnswerLimits(options);
  const tools = options.tools ?? options.registry?.list(options.principal) ?? [];
  return {
    input,
    maxSteps,
    parallel: options.parallelToolCalls ?? true,
    tools,
    plan: new ToolPlan(tools, options.registry, options.tools === undefined),
    history: [...options.messages],
    newMessages: [],
    steps: [],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  };
}

// Events are built and awaited only for a caller that listens: most runs have no `onEvent`.
async function emit(onEvent: NonNullable<RunToolsOptions['onEvent']>, event: RunToolsEvent): Promise<void> {
  await onEvent(event);
}

/** The rest of a step once the model answered: its tool calls run, the step recorded; the run's result when it stops here. */
async function finishStep(loop: LoopState, stepNumber: number, response: ChatResponse): Promise<RunToolsResult | undefined> {
  const { input, plan, history, newMessages } = loop;
  const { options, signal, onToolResult } = input;
  const onEvent = options.onEvent;
  signal?.throwIfAborted();
  loop.usage = addUsage(loop.usage, response.usage) ?? loop.usage;
  history.push(response.message);
  newMessages.push(response.message);

  const local: ToolCall[] = [];
  const pending: ToolCall[] = [];
  for (const call of response.toolCalls) {
    const handledBy = call.providerExecuted === true ? 'provider' : plan.isClientCall(call) ? 'client' : 'local';
    if (handledBy === 'local') local.push(call);
    else if (handledBy === 'client') pending.push(call);
    if (onEvent) await emit(onEvent, { type: 'tool-call', stepNumber, toolCall: call, handledBy });
  }

  const results: ToolResult[] = [];
  if (local.length > 0) {
    // Tools see the conversation up to this turn; a snapshot, since the history keeps growing.
    const seen: readonly Message[] = [...history];
    const execute = async (call: ToolCall): Promise<ToolResult> => {
      const result = await plan.execute(call, { options, signal, history: seen });
      onToolResult?.(result);
      if (onEvent) await emit(onEvent, { type: 'tool-result', stepNumber, toolCall: call, result });
      return result;
    };
    if (loop.parallel) results.push(...(await Promise.all(local.map(execute))));
    else for (const call of local) results.push(await execute(call));
  }
  // Also without local tools: an abort while the caller's `onEvent` awaited a call ends the run here.
  signal?.throwIfAborted();

  for (const [index, call] of local.entries()) {
    const result = results[index];
    if (!result) continue;
    const message: ToolMessage = { role: 'tool', toolCallId: call.id, toolName: call.name, content: result.message, result };
    history.push(message);
    newMessages.push(message);
  }

  const step: RunToolsStep = {
    stepNumber,
    response,
    text: response.text,
    finishReason: response.finishReason,
    toolCalls: response.toolCalls,
    toolResults: [...results, ...response.toolResults],
    pendingToolCalls: pending,
  };
  if (response.usage) step.usage = response.usage;
  loop.steps.push(step);
  if (onEvent) await emit(onEvent, { type: 'step-finish', step });

  let stoppedBy: RunToolsStoppedBy | undefined;
  if (pending.length > 0) stoppedBy = 'client-tool-calls';
  else if (local.length === 0) stoppedBy = 'answer';
  else if (stepNumber >= loop.maxSteps) stoppedBy = 'max-steps';
  if (stoppedBy === undefined) return undefined;
  return {
    text: response.text,
    messages: history,
    newMessages,
    steps: loop.steps,
    finishReason: response.finishReason,
    stoppedBy,
    pendingToolCalls: pending,
    usage: loop.usage,
  };
}

function buildRequest(input: {
  options: RunToolsOptions;
  tools: readonly ToolSpec[];
  history: readonly Message[];
  stepNumber: number;
  signal: AbortSignal | undefined;
}): ChatRequest {
  const { options, tools, history, stepNumber, signal } = input;
  const request: ChatRequest = { ...options.settings, messages: [...history] };
  if (tools.length > 0) {
    request.tools = tools;
    // Sent only when the caller chose: some models reject the parameter (OpenAI's o-series).
    if (options.parallelToolCalls !== undefined) request.parallelToolCalls = options.parallelToolCalls;
  }
  const toolChoice = stepToolChoice(options.toolChoice, stepNumber);
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  if (signal) request.signal = signal;
  return request;
}

/** A forcing choice applies to the first step only; afterwards the model may answer. */
export function stepToolChoice(choice: ToolChoice | undefined, stepNumber: number): ToolChoice | undefined {
  if (choice === undefined || stepNumber === 1) return choice;
  if (typeof choice === 'object') return 'auto';
  switch (choice) {
    case 'required':
      return 'auto';
    case 'auto':
    case 'none':
      return choice;
    default: {
      const unexpected: never = choice;
      return unexpected;
    }
  }
}

function isTool(spec: ToolSpec): spec is Tool<unknown> {
  return !isProviderTool(spec) && typeof (spec as Partial<Tool<unknown>>).validate === 'function';
}

/** What a run without tools offers (one map for all of them: a run keeps its plan for its whole length). */
const NOTHING_OFFERED: ReadonlyMap<string, ToolSpec> = new Map();

/**
 * Who answers each call of a run: the registry, the run's own handlers, the client, or
 * nobody (an unknown tool). A class, not closures over the planning's scope: a run keeps it
 * for its whole length.
 */
class ToolPlan {
  readonly #offered: ReadonlyMap<string, ToolSpec>;
  readonly #registry: ToolRegistry | undefined;
  readonly #offeredByRegistry: boolean;
  /** Offered tools with handlers that the registry does not run (a registry of their own, made only when there are some). */
  readonly #direct: ToolRegistry | undefined;

  constructor(tools: readonly ToolSpec[], registry: ToolRegistry | undefined, offeredByRegistry: boolean) {
    let offered: Map<string, ToolSpec> | undefined;
    for (const spec of tools) (offered ??= new Map()).set(spec.name, spec);
    this.#offered = offered ?? NOTHING_OFFERED;
    this.#registry = registry;
    this.#offeredByRegistry = offeredByRegistry;
    let direct: ToolRegistry | undefined;
    for (const spec of tools) {
      if (isTool(spec) && spec.execute && !this.#ownedByRegistry(spec.name) && !direct?.get(spec.name)) (direct ??= new ToolRegistry()).register(spec);
    }
    this.#direct = direct;
  }

  /**
   * What the model was offered decides: the registry runs a name only when the registry's
   * own tool was offered. A caller's own spec with a registry tool's name stays the
   * caller's, and with an explicit `tools` list a registry tool left out is unknown. When
   * the offer is the registry's list, a tool left out of it was not permitted: the
   * registry answers with `permission_denied`.
   */
  #ownedByRegistry(name: string): boolean {
    const held = this.#registry?.get(name);
    if (held === undefined) return false;
    const spec = this.#offered.get(name);
    return spec === held || (spec === undefined && this.#offeredByRegistry);
  }

  /** A call the client answers: its tool has no `execute` (and its arguments pass validation). */
  isClientCall(call: ToolCall): boolean {
    if (call.invalid || this.#ownedByRegistry(call.name)) return false;
    const spec = this.#offered.get(call.name);
    if (!spec || isProviderTool(spec)) return false;
    if (!isTool(spec)) return true;
    return !spec.execute && spec.validate(call.arguments).success;
  }

  async execute(call: ToolCall, context: { options: RunToolsOptions; signal: AbortSignal | undefined; history: readonly Message[] }): Promise<ToolResult> {
    const { options, signal, history } = context;
    const direct = this.#direct;
    const owner = this.#ownedByRegistry(call.name) ? this.#registry : direct?.get(call.name) ? direct : undefined;
    const common = { principal: options.principal, signal, timeoutMs: options.timeoutMs, messages: history, maxResultChars: options.maxResultChars };
    if (owner) return executeToolCall(call, { registry: owner, ...common, ...(options.onToolAudit ? { onAudit: options.onToolAudit } : {}) });
    const spec = this.#offered.get(call.name);
    if (spec && !isProviderTool(spec)) {
      // A client tool whose call cannot go to the client (unreadable or invalid arguments):
      // a registry of its own gives the model the validation message.
      const tool = isTool(spec) ? spec : { ...spec, validate: (args: unknown) => ({ success: true as const, value: args }) };
      return executeToolCall(call, { registry: new ToolRegistry({ tools: [tool] }), ...common });
    }
    const names = [...this.#offered.keys()];
    const list = names.length > 0 ? names.join(', ') : '(none)';
    // Traced and audited like a registry's unknown name, so that metrics and traces see it.
    return answerUnknownTool(call, `Unknown tool "${call.name}". Available tools: ${list}. Call one of these instead.`, { principal: options.principal, onAudit: options.onToolAudit, maxResultChars: options.maxResultChars });
  }
}
