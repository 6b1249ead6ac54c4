import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, Message, ToolSpec } from '@toolwire/core';
import { emitEvent } from '../events.ts';
import type { CodeInterpreterEventHandler } from '../events.ts';
import { toContainerExpiredError } from './expired-container.ts';
import type { MemoryLimit } from './memory-limit.ts';

/** Options of `withContainerRecovery`. */
export interface ContainerRecoveryOptions {
  /**
   * Retry once in a fresh auto container when OpenAI says the container has expired. Only
   * applies when every code interpreter tool of the request uses an auto container (a named
   * container cannot be replaced behind the caller's back). Default `true`.
   */
  recreate?: boolean;
  /** Name of the code interpreter tool. Default `'code_interpreter'`. */
  toolName?: string;
  onEvent?: CodeInterpreterEventHandler;
}

interface AutoInfo {
  auto: boolean;
  memoryLimit: MemoryLimit | undefined;
}

function codeInterpreterAuto(tools: readonly ToolSpec[] | undefined, toolName: string): AutoInfo | undefined {
  let found: AutoInfo | undefined;
  for (const tool of tools ?? []) {
    if (tool.type !== 'provider' || tool.name !== toolName) continue;
    const wire = (tool.config as { wireTool?: { container?: unknown } }).wireTool;
    const container = wire?.container;
    if (typeof container === 'object' && container !== null && (container as { type?: unknown }).type === 'auto') {
      const limit = (container as { memory_limit?: MemoryLimit }).memory_limit;
      found = { auto: found?.auto ?? true, memoryLimit: limit ?? '1g' };
    } else {
      found = { auto: false, memoryLimit: undefined };
    }
  }
  return found;
}

/**
 * The history without the provider-executed code interpreter calls and results that tie it
 * to an expired container (OpenAI answers 400 "Expected container_id" while they are replayed).
 * Assistant text, including file citations, is kept.
 */
export function withoutCodeInterpreterCalls(messages: readonly Message[], toolName = 'code_interpreter'): Message[] {
  return messages.map((message) => {
    if (message.role !== 'assistant') return message;
    const toolCalls = message.toolCalls?.filter((call) => !(call.providerExecuted === true && call.name === toolName));
    const toolResults = message.toolResults?.filter((result) => result.name !== toolName);
    const copy = { ...message };
    if (toolCalls === undefined || toolCalls.length === 0) delete copy.toolCalls;
    else copy.toolCalls = toolCalls;
    if (toolResults === undefined || toolResults.length === 0) delete copy.toolResults;
    else copy.toolResults = toolResults;
    return copy;
  });
}

/**
 * Wraps an OpenAI Responses model so an expired code interpreter container becomes a
 * `ContainerExpiredError`, and, for auto containers when allowed, is replaced transparently:
 * the stale calls are dropped from the history and the request is sent once more, so OpenAI
 * starts a fresh container. Files of the old container are gone either way.
 *
 * @example const model = withContainerRecovery(openai.responses('gpt-5'), { onEvent: console.log });
 */
export function withContainerRecovery(model: ChatModel, options: ContainerRecoveryOptions = {}): ChatModel {
  const { recreate = true, toolName = 'code_interpreter', onEvent } = options;

  function recovery(request: ChatRequest, error: unknown): ChatRequest {
    const expired = toContainerExpiredError(error);
    if (expired === undefined) throw error;
    emitEvent(onEvent, { type: 'container-expired', containerId: expired.containerId });
    const auto = codeInterpreterAuto(request.tools, toolName);
    if (!recreate || auto === undefined || !auto.auto) throw expired;
    emitEvent(onEvent, {
      type: 'container-recreated',
      previousContainerId: expired.containerId,
      containerId: undefined,
      memoryLimit: auto.memoryLimit,
    });
    return { ...request, messages: withoutCodeInterpreterCalls(request.messages, toolName) };
  }

  async function* stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
    let retried = false;
    let current = request;
    for (;;) {
      let delivered = false;
      try {
        for await (const event of model.stream(current)) {
          // An expiry arrives before any output; once output has been delivered, pass everything on.
          if (!delivered && !retried && event.type === 'error' && toContainerExpiredError(event.error) !== undefined) {
            throw event.error;
          }
          delivered = true;
          if (event.type === 'error') {
            yield { type: 'error', error: toContainerExpiredError(event.error) ?? event.error };
          } else {
            yield event;
          }
        }
        return;
      } catch (error) {
        if (delivered || retried) throw toContainerExpiredError(error) ?? error;
        current = recovery(current, error);
        retried = true;
      }
    }
  }

  return {
    provider: model.provider,
    modelId: model.modelId,
    async generate(request: ChatRequest): Promise<ChatResponse> {
      try {
        return await model.generate(request);
      } catch (error) {
        const retry = recovery(request, error);
        try {
          return await model.generate(retry);
        } catch (second) {
          throw toContainerExpiredError(second) ?? second;
        }
      }
    },
    stream,
  };
}
