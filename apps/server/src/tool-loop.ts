import { addUsage, generateId, runTools, runToolsStream, toolOutput } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatStreamEvent, FinishReason, RunToolsOptions, RunToolsResult, Tool, ToolMessage, Usage } from '@toolwire/core';
import type { HiddenToolTurn } from './hidden-tool-turns.ts';
import { specOf } from './tools/server-tool-set.ts';
import type { ServerTool } from './tools/server-tool.ts';
import type { ToolExecutor } from './tools/tool-executor.ts';

/** Options of `runGatewayLoop`. */
export interface GatewayLoopOptions {
  model: ChatModel;
  /** The request as the model should see it: client tools and offered server tools together. */
  request: ChatRequest;
  /** The server tools offered in this request, by name; calls to them run here. */
  serverTools: ReadonlyMap<string, ServerTool>;
  executor: ToolExecutor;
  principal: string;
  signal: AbortSignal;
  /** The HTTP request's id, for audit events. */
  requestId?: string;
  /** Model calls per client request (default 8). */
  maxSteps?: number;
  /** Stream from the model (`true`) or call `generate` (`false`). */
  stream: boolean;
  /**
   * Told about a last turn that called server and client tools together: the server
   * calls ran, the client gets only its own, and this is the rest of the turn.
   */
  onHiddenTurn?: (turn: HiddenToolTurn) => void;
}

/** `call_` + [A-Za-z0-9_-]: the ids clients expect; anything else is replaced. */
function isClientCallId(id: string): boolean {
  if (id.length < 6 || id.length > 64 || !id.startsWith('call_')) return false;
  for (let i = 5; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45)) return false;
  }
  return true;
}

/** A server tool as a core tool whose handler goes through the executor (cap, timeout, audit). */
function asCoreTool(tool: ServerTool, options: GatewayLoopOptions): Tool {
  const { executor, principal, requestId } = options;
  return {
    ...specOf(tool),
    // The tool checks its own arguments and says what is wrong in its error.
    validate: (args) => ({ success: true, value: args as Record<string, unknown> }),
    execute: async (args, context) => {
      const call = { id: context.toolCallId, name: tool.name, arguments: args };
      const result = await executor.execute({ tool, call, principal, signal: context.signal, ...(requestId === undefined ? {} : { requestId }) });
      return toolOutput({
        message: result.message,
        value: result.value,
        success: result.success,
        ...(result.error === undefined ? {} : { errorType: result.error.type }),
      });
    },
  };
}

/** The options of core's loop for this request: the client's tools stay without handlers. */
function loopOptions(options: GatewayLoopOptions): RunToolsOptions {
  const { messages, tools, toolChoice, parallelToolCalls, signal: _signal, ...settings } = options.request;
  const offered = (tools ?? []).map((spec) => {
    const serverTool = options.serverTools.get(spec.name);
    return serverTool === undefined ? spec : asCoreTool(serverTool, options);
  });
  return {
    model: options.model,
    messages,
    tools: offered,
    maxSteps: options.maxSteps ?? 8,
    signal: options.signal,
    settings,
    ...(toolChoice === undefined ? {} : { toolChoice }),
    ...(parallelToolCalls === undefined ? {} : { parallelToolCalls }),
  };
}

/**
 * What the client sees of core's events: the text of every step (separated by a blank
 * line), reasoning and warnings; client calls whole (at their `tool-call` event, so a
 * call the loop sent back to the model for bad arguments never reaches the client) with
 * `call_…` ids; nothing of server calls or results; one `finish` at the end.
 */
function createClientView(clientTools: ReadonlySet<string>) {
  const ids = new Map<string, string>();
  let textSoFar = false;
  let stepHasText = false;
  let usage: Usage | undefined;
  return {
    clientId(id: string): string {
      let mapped = ids.get(id);
      if (mapped === undefined) {
        mapped = isClientCallId(id) ? id : generateId('call_');
        ids.set(id, mapped);
      }
      return mapped;
    },
    /** The events to pass on for one of core's. */
    map(event: ChatStreamEvent): ChatStreamEvent | undefined {
      switch (event.type) {
        case 'text-delta':
          if (event.delta === '') return undefined;
          if (stepHasText) return event;
          stepHasText = true;
          if (!textSoFar) {
            textSoFar = true;
            return event;
          }
          // The first text of a later step: set apart from the previous step's.
          return { type: 'text-delta', delta: `\n\n${event.delta}` };
        case 'reasoning-delta':
        case 'warning':
        case 'error':
          return event;
        case 'tool-call': {
          const call = event.toolCall;
          // The loop answers the rest itself: server calls, unknown tools, unreadable arguments.
          if (call.providerExecuted === true || !clientTools.has(call.name) || call.invalid !== undefined) return undefined;
          return { type: 'tool-call', toolCall: { ...call, id: this.clientId(call.id) } };
        }
        case 'finish':
          // One per step; the client gets one at the end.
          usage = addUsage(usage, event.usage);
          stepHasText = false;
          return undefined;
        case 'tool-call-start':
        case 'tool-call-delta':
        case 'tool-result':
          return undefined;
        default: {
          const unexpected: never = event;
          throw new Error(`Unknown stream event ${JSON.stringify(unexpected)}`);
        }
      }
    },
    /** The closing `finish`, from how the run ended. */
    finish(result: RunToolsResult): ChatStreamEvent {
      const last = result.finishReason;
      const finishReason: FinishReason =
        result.stoppedBy === 'client-tool-calls' ? 'tool-calls' : result.stoppedBy === 'max-steps' || last === 'tool-calls' ? 'stop' : last;
      return { type: 'finish', finishReason, ...(usage === undefined ? {} : { usage }) };
    },
  };
}

/** A finished run's steps as the events a stream of it would have had. */
function* stepEvents(result: RunToolsResult): Generator<ChatStreamEvent> {
  for (const step of result.steps) {
    const { response } = step;
    if (response.reasoning !== undefined && response.reasoning !== '') yield { type: 'reasoning-delta', delta: response.reasoning };
    if (response.text !== '') yield { type: 'text-delta', delta: response.text };
    for (const warning of response.warnings) yield { type: 'warning', warning };
    for (const toolCall of response.toolCalls) yield { type: 'tool-call', toolCall };
    yield { type: 'finish', finishReason: response.finishReason, ...(response.usage === undefined ? {} : { usage: response.usage }) };
  }
}

/**
 * The hidden half of a last turn that also called client tools: the calls the loop
 * answered itself (server tools, and unknown tools or unreadable arguments it refused) and
 * their results, with the client's ids on the client's calls.
 */
function hiddenTurn(result: RunToolsResult, clientId: (id: string) => string): HiddenToolTurn | undefined {
  const step = result.steps.at(-1);
  if (step === undefined || result.stoppedBy !== 'client-tool-calls') return undefined;
  const pending = new Set(step.pendingToolCalls.map((call) => call.id));
  const answeredHere = new Set(step.toolCalls.filter((call) => call.providerExecuted !== true && !pending.has(call.id)).map((call) => call.id));
  const results = result.newMessages.filter((message): message is ToolMessage => message.role === 'tool' && answeredHere.has(message.toolCallId));
  if (results.length === 0) return undefined;
  return {
    clientCallIds: step.pendingToolCalls.map((call) => clientId(call.id)),
    toolCalls: step.toolCalls.filter((call) => call.providerExecuted !== true).map((call) => (pending.has(call.id) ? { ...call, id: clientId(call.id) } : call)),
    results,
  };
}

/**
 * The gateway's tool loop, as one event stream for the client: core's `runTools` /
 * `runToolsStream` with the request's server tools as handlers (run through the
 * executor) and the client's tools without, seen through the client's view: calls to
 * server tools and their results stay hidden, client calls come out with `call_…` ids,
 * and the last event is one `finish` (usage summed over the steps) or an `error`.
 *
 * A last turn that called server and client tools together runs the server calls and
 * returns the client's; `onHiddenTurn` gets the rest, so the next request can restore it.
 * When `maxSteps` runs out the text so far is the answer (finish reason `stop`).
 */
export async function* runGatewayLoop(options: GatewayLoopOptions): AsyncGenerator<ChatStreamEvent> {
  const clientTools = new Set((options.request.tools ?? []).filter((spec) => !options.serverTools.has(spec.name)).map((spec) => spec.name));
  const view = createClientView(clientTools);
  const loop = loopOptions(options);
  let result: RunToolsResult;
  if (options.stream) {
    const run = runToolsStream(loop);
    for await (const event of run) {
      const mapped = view.map(event);
      if (mapped === undefined) continue;
      yield mapped;
      if (mapped.type === 'error') return;
    }
    result = await run.result;
  } else {
    result = await runTools(loop);
    for (const event of stepEvents(result)) {
      const mapped = view.map(event);
      if (mapped !== undefined) yield mapped;
    }
  }
  const turn = hiddenTurn(result, (id) => view.clientId(id));
  if (turn !== undefined) options.onHiddenTurn?.(turn);
  yield view.finish(result);
}
