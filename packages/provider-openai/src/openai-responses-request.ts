import type { ChatRequest, Warning } from '@toolwire/core';
import type { ResponseCreateParamsBase, ResponseIncludable } from 'openai/resources/responses/responses';
import { toResponsesInput } from './openai-responses-input.ts';
import { prepareResponsesTools } from './openai-responses-prepare-tools.ts';
import type { ResolvedProviderTool } from './openai-responses-prepare-tools.ts';

/** A Responses body, the provider tools it offers, and what could not be mapped. */
export interface BuiltResponsesRequest {
  body: ResponseCreateParamsBase;
  providerTools: ResolvedProviderTool[];
  warnings: Warning[];
}

/**
 * Builds the Responses API body for a core request (pure). `providerOptions.openai`
 * entries are merged as given (wire names: `store`, `previous_response_id`, `reasoning`),
 * and its `include` is merged with what provider tools ask for.
 */
export function buildResponsesRequest(options: { modelId: string; request: ChatRequest }): BuiltResponsesRequest {
  const { request, modelId } = options;
  const extra = request.providerOptions?.['openai'] ?? {};
  const prepared = prepareResponsesTools(request.tools, request.toolChoice);
  const mapped = toResponsesInput(request.messages, { store: extra['store'] !== false });
  const warnings: Warning[] = [...mapped.warnings];
  const body: ResponseCreateParamsBase = { model: modelId, input: mapped.input };
  if (mapped.instructions !== undefined) body.instructions = mapped.instructions;
  if (prepared.tools) {
    body.tools = prepared.tools;
    if (prepared.toolChoice !== undefined) body.tool_choice = prepared.toolChoice;
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop !== undefined) {
    warnings.push({ type: 'unsupported-setting', setting: 'stop', message: 'The Responses API has no stop sequences; use openai.chat(modelId).' });
  }
  if (request.seed !== undefined) {
    warnings.push({ type: 'unsupported-setting', setting: 'seed', message: 'The Responses API has no seed; use openai.chat(modelId).' });
  }
  const format = request.responseFormat;
  if (format?.type === 'json') {
    body.text = {
      format: format.schema
        ? {
            type: 'json_schema',
            name: format.name ?? 'response',
            ...(format.description !== undefined ? { description: format.description } : {}),
            schema: format.schema,
            strict: false,
          }
        : { type: 'json_object' },
    };
  }
  const include = [...prepared.include];
  const extraInclude = extra['include'];
  if (Array.isArray(extraInclude)) for (const value of extraInclude) if (typeof value === 'string' && !include.includes(value)) include.push(value);
  const merged: ResponseCreateParamsBase = { ...body, ...extra };
  if (include.length > 0) merged.include = include as ResponseIncludable[];
  return { body: merged, providerTools: prepared.providerTools, warnings };
}
