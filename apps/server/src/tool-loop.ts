import { addUsage, generateId } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, FinishReason, Message, ToolCall, Usage } from '@toolwire/core';
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

/** A whole response replayed as the events its stream would have had. */
function* responseEvents(response: ChatResponse): Generator<ChatStreamEvent> {
  if (response.reasoning !== undefined && response.reasoning !== '') yield { type: 'reasoning-delta', delta: response.reasoning };
  if (response.text !== '') yield { type: 'text-delta', delta: response.text };
  for (const warning of response.warnings) yield { type: 'warning', warning };
  for (const toolCall of response.toolCalls) {
    yield { type: 'tool-call-start', id: toolCall.id, name: toolCall.name };
    yield { type: 'tool-call', toolCall };
  }
  const finish: ChatStreamEvent = { type: 'finish', finishReason: response.finishReason };
  if (response.usage) finish.usage = response.usage;
  yield finish;
}

/** The model's events for one step: its stream as is (no extra generator per event), or its response replayed. */
async function eventsOf(model: ChatModel, request: ChatRequest, stream: boolean): Promise<AsyncIterable<ChatStreamEvent> | Iterable<ChatStreamEvent>> {
  return stream ? model.stream(request) : responseEvents(await model.generate(request));
}

/**
 * The gateway's tool loop, as one event stream for the client: it calls the model,
 * runs calls to server tools (hidden from the client), feeds their results back, and
 * repeats until the model answers, calls a client tool, is cut off, or `maxSteps` runs
 * out. Text of every step is passed through; client tool calls get `call_…` ids. The last
 * event is one `finish` (usage summed over the steps) or an `error`.
 *
 * A turn that mixes server and client calls is returned with only the client calls: the
 * client's next request carries no trace of the server calls, so running them would
 * produce results the model never sees.
 */
export async function* runGatewayLoop(options: GatewayLoopOptions): AsyncGenerator<ChatStreamEvent> {
  const { model, serverTools, executor, principal, signal } = options;
  const maxSteps = options.maxSteps ?? 8;
  const messages: Message[] = [...options.request.messages];
  let request: ChatRequest = { ...options.request, messages, signal };
  let usage: Usage | undefined;
  let textSoFar = false;

  for (let step = 1; ; step++) {
    signal.throwIfAborted();
    const idMap = new Map<string, string>();
    const clientId = (id: string): string => {
      let mapped = idMap.get(id);
      if (mapped === undefined) {
        mapped = isClientCallId(id) ? id : generateId('call_');
        idMap.set(id, mapped);
      }
      return mapped;
    };
    const serverCallIds = new Set<string>();
    const serverCalls: ToolCall[] = [];
    let clientCalls = 0;
    let stepText = '';
    let finishReason: FinishReason = 'stop';

    for await (const event of await eventsOf(model, request, options.stream)) {
      switch (event.type) {
        case 'text-delta':
          if (event.delta === '') break;
          // Separate the text of consecutive steps the way a reader expects.
          if (stepText === '' && textSoFar) yield { type: 'text-delta', delta: '\n\n' };
          stepText += event.delta;
          textSoFar = true;
          yield event;
          break;
        case 'reasoning-delta':
        case 'warning':
          yield event;
          break;
        case 'tool-call-start':
          if (serverTools.has(event.name)) serverCallIds.add(event.id);
          else yield { type: 'tool-call-start', id: clientId(event.id), name: event.name };
          break;
        case 'tool-call-delta':
          if (!serverCallIds.has(event.id)) yield { type: 'tool-call-delta', id: clientId(event.id), argumentsDelta: event.argumentsDelta };
          break;
        case 'tool-call': {
          const call = event.toolCall;
          if (call.providerExecuted === true) break;
          if (serverTools.has(call.name)) {
            serverCallIds.add(call.id);
            serverCalls.push(call);
          } else {
            clientCalls++;
            yield { type: 'tool-call', toolCall: { ...call, id: clientId(call.id) } };
          }
          break;
        }
        case 'tool-result':
          break;
        case 'finish':
          finishReason = event.finishReason;
          usage = addUsage(usage, event.usage);
          break;
        case 'error':
          yield event;
          return;
        default: {
          const unexpected: never = event;
          throw new Error(`Unknown stream event ${JSON.stringify(unexpected)}`);
        }
      }
    }

    const runServerTools = serverCalls.length > 0 && clientCalls === 0 && finishReason !== 'length' && step < maxSteps;
    if (!runServerTools) {
      const reason: FinishReason = clientCalls > 0 ? 'tool-calls' : finishReason === 'tool-calls' ? 'stop' : finishReason;
      const finish: ChatStreamEvent = { type: 'finish', finishReason: reason };
      if (usage) finish.usage = usage;
      yield finish;
      return;
    }

    const results = await Promise.all(
      serverCalls.map((call) => {
        const tool = serverTools.get(call.name);
        if (tool === undefined) throw new Error(`server tool ${call.name} vanished`);
        return executor.execute({ tool, call, principal, signal, ...(options.requestId === undefined ? {} : { requestId: options.requestId }) });
      }),
    );
    messages.push({ role: 'assistant', content: stepText, toolCalls: serverCalls });
    for (const result of results) {
      messages.push({ role: 'tool', toolCallId: result.toolCallId, toolName: result.name, content: result.message, result });
    }
    // A forced call has been made; forcing again would loop until maxSteps.
    const choice = request.toolChoice;
    request = { ...request, messages, ...(choice === 'required' || typeof choice === 'object' ? { toolChoice: 'auto' as const } : {}) };
  }
}
