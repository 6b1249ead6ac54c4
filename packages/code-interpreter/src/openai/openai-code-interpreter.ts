import { InvalidToolConfigError } from '@toolwire/core';
import type { ProviderTool, ProviderToolContext, ToolResult } from '@toolwire/core';
import { emitEvent } from '../events.ts';
import type { CodeInterpreterEventHandler } from '../events.ts';
import { codeInterpreterResult } from './code-interpreter-result.ts';
import { readCodeInterpreterCall } from './code-interpreter-call.ts';
import { toWireContainer } from './container-config.ts';
import type { CodeInterpreterContainer, WireContainer } from './container-config.ts';
import type { MemoryLimit } from './memory-limit.ts';

/** The name code interpreter calls carry. */
export const CODE_INTERPRETER_TOOL_NAME = 'code_interpreter';

/** The `include` value that makes OpenAI return a call's logs and images. */
export const CODE_INTERPRETER_OUTPUTS_INCLUDE = 'code_interpreter_call.outputs';

/**
 * A handler that sees the raw `code_interpreter_call` item first. Return a `ToolResult` to
 * use it, or `undefined` to fall back to the default mapping (`codeInterpreterResult`).
 */
export type CodeInterpreterOutputHandler = (
  output: unknown,
  context: ProviderToolContext,
) => ToolResult | undefined | Promise<ToolResult | undefined>;

/** Options of `openAICodeInterpreter`. */
export interface OpenAICodeInterpreterOptions {
  /** An existing container id (`'cntr_…'`) or an auto container's options. Default: an auto container. */
  container?: CodeInterpreterContainer;
  /** Ask OpenAI for each call's logs and images (`include: ['code_interpreter_call.outputs']`). Default `true`. */
  includeOutputs?: boolean;
  /** Runs before the default mapping, with the same context. */
  handleProviderOutput?: CodeInterpreterOutputHandler;
  /** Reports the container id and memory tier of every call. */
  onEvent?: CodeInterpreterEventHandler;
}

/** The `config` of the code interpreter `ProviderTool`, read by provider-openai. */
export interface OpenAICodeInterpreterConfig extends Record<string, unknown> {
  /** Put in the Responses `tools` array as is. */
  wireTool: { type: 'code_interpreter'; container: WireContainer };
  /** Merged into the request's `include`. */
  include: string[];
}

/**
 * OpenAI's code interpreter as a Toolwire `ProviderTool`: OpenAI runs the Python the model
 * writes in a container and returns logs, images and files. Pass it in `tools` of an
 * `openai.responses(…)` model. Throws `InvalidToolConfigError` for a bad container id,
 * memory tier or file id.
 *
 * @example
 * const tools = [openAICodeInterpreter({ container: { memoryLimit: '4g' } })];
 * const response = await openai.responses('gpt-5').generate({ messages, tools });
 */
export function openAICodeInterpreter(options: OpenAICodeInterpreterOptions = {}): ProviderTool<OpenAICodeInterpreterConfig> {
  const { container, includeOutputs = true, handleProviderOutput, onEvent } = options;
  if (typeof includeOutputs !== 'boolean') {
    throw new InvalidToolConfigError({ toolName: CODE_INTERPRETER_TOOL_NAME, problem: 'includeOutputs must be true or false.' });
  }
  if (handleProviderOutput !== undefined && typeof handleProviderOutput !== 'function') {
    throw new InvalidToolConfigError({
      toolName: CODE_INTERPRETER_TOOL_NAME,
      problem: 'handleProviderOutput must be a function (output, context) => ToolResult | undefined.',
    });
  }
  const wireContainer = toWireContainer(container, CODE_INTERPRETER_TOOL_NAME);
  // A named container's tier was fixed at creation and is not known here.
  const memoryLimit: MemoryLimit | undefined =
    typeof wireContainer === 'string' ? undefined : (wireContainer.memory_limit ?? '1g');

  return {
    type: 'provider',
    provider: 'openai',
    id: 'openai.code_interpreter',
    name: CODE_INTERPRETER_TOOL_NAME,
    config: {
      wireTool: { type: 'code_interpreter', container: wireContainer },
      include: includeOutputs ? [CODE_INTERPRETER_OUTPUTS_INCLUDE] : [],
    },
    async handleProviderOutput(output, context) {
      const item = readCodeInterpreterCall(output);
      if (item !== undefined && item.container_id !== '') {
        emitEvent(onEvent, { type: 'container-used', containerId: item.container_id, memoryLimit, toolCallId: context.toolCallId });
      }
      if (handleProviderOutput !== undefined) {
        const custom = await handleProviderOutput(output, context);
        if (custom !== undefined) return custom;
      }
      return codeInterpreterResult(output, context);
    },
  };
}
