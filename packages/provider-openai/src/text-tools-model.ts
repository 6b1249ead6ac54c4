import { partitionTools, UnsupportedFeatureError } from '@toolwire/core';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent, Warning } from '@toolwire/core';
import { withTextToolCalling } from '@toolwire/extract';
import type { TextToolCallingOptions } from '@toolwire/extract';
import { isToolsUnsupportedError } from './is-tools-unsupported-error.ts';

/** Options of `withTextToolsSetting`. */
export interface TextToolsSettingOptions {
  /** `true`: always text tools; `'auto'`: native first, text tools once the server rejects `tools`. */
  mode: true | 'auto';
  format?: 'call' | 'json-tag';
  /** The text-tools wrapper; `withTextToolCalling` from `@toolwire/extract` unless a test swaps it. */
  wrap?: (model: ChatModel, options: TextToolCallingOptions) => ChatModel;
}

function hasTools(request: ChatRequest): boolean {
  return (request.tools?.length ?? 0) > 0;
}

/** The native model seen as text-only: whatever reaches it carries no native tools. */
function textOnly(native: ChatModel): ChatModel {
  const strip = (request: ChatRequest): ChatRequest => {
    const { tools: _tools, toolChoice: _toolChoice, parallelToolCalls: _parallel, ...rest } = request;
    return rest;
  };
  return {
    provider: native.provider,
    modelId: native.modelId,
    generate: (request) => native.generate(strip(request)),
    stream: (request) => native.stream(strip(request)),
  };
}

function switchWarning(modelId: string, error: Error): Warning {
  return {
    type: 'other',
    message:
      `The server rejected native tools for "${modelId}" (${error.message}); this model now uses text tools ` +
      "(tool definitions in the prompt, calls parsed from the text). Set textTools: true to skip the first attempt.",
  };
}

/**
 * Applies the `textTools` setting to a native model: tool calling through the prompt
 * (extract's `withTextToolCalling` around the text-only native model) always (`true`), or
 * from the first time the server rejects `tools` as unsupported (`'auto'`, once per
 * model, with a `warning`). Requests without tools always go to the native model.
 */
export function withTextToolsSetting(native: ChatModel, options: TextToolsSettingOptions): ChatModel {
  const wrap = options.wrap ?? withTextToolCalling;
  const textModel = wrap(textOnly(native), options.format !== undefined ? { format: options.format } : {});
  let useText = options.mode === true;

  function checkNoProviderTools(request: ChatRequest): void {
    const { providerTools } = partitionTools(request.tools, native.provider);
    const first = providerTools[0];
    if (first) {
      throw new UnsupportedFeatureError({
        feature: 'textTools',
        message: `"${first.name}" is run by OpenAI and cannot be offered through text tools. Use a model with native tools (textTools: false) for it.`,
      });
    }
  }

  async function generate(request: ChatRequest): Promise<ChatResponse> {
    if (!hasTools(request)) return native.generate(request);
    if (useText) {
      checkNoProviderTools(request);
      return textModel.generate(request);
    }
    try {
      return await native.generate(request);
    } catch (error) {
      if (!isToolsUnsupportedError(error)) throw error;
      checkNoProviderTools(request);
      useText = true;
      const response = await textModel.generate(request);
      return { ...response, warnings: [switchWarning(native.modelId, error as Error), ...response.warnings] };
    }
  }

  async function* stream(request: ChatRequest): AsyncGenerator<ChatStreamEvent> {
    if (!hasTools(request)) {
      yield* native.stream(request);
      return;
    }
    if (useText) {
      checkNoProviderTools(request);
      yield* textModel.stream(request);
      return;
    }
    const iterator = native.stream(request)[Symbol.asyncIterator]();
    let first: IteratorResult<ChatStreamEvent>;
    try {
      first = await iterator.next();
    } catch (error) {
      // Errors that stop a call from starting come from the first next(), before any event.
      if (!isToolsUnsupportedError(error)) throw error;
      checkNoProviderTools(request);
      useText = true;
      yield { type: 'warning', warning: switchWarning(native.modelId, error as Error) };
      yield* textModel.stream(request);
      return;
    }
    try {
      for (let step = first; step.done !== true; step = await iterator.next()) yield step.value;
    } finally {
      await iterator.return?.();
    }
  }

  return { provider: native.provider, modelId: native.modelId, generate, stream };
}
