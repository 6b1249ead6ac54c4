import type { ChatRequest, Warning } from '@toolwire/core';
import { answerUnansweredToolCalls } from '@toolwire/core/provider';
import { prepareResponsesTools, toResponsesInput } from '@toolwire/openai-responses';
import type { ResolvedProviderTool } from '@toolwire/openai-responses';
import type { ResponseCreateParamsBase, ResponseIncludable } from 'openai/resources/responses/responses';
import { readOpenAIOptions } from './openai-provider-options.ts';

/** A Responses body, the provider tools it offers, and what could not be mapped. */
export interface BuiltResponsesRequest {
  body: ResponseCreateParamsBase;
  providerTools: ResolvedProviderTool[];
  warnings: Warning[];
}

/** Reasoning items come back only with this include value when nothing is stored (`store: false`). */
const ENCRYPTED_REASONING = 'reasoning.encrypted_content';

/**
 * Builds the Responses API body for a core request (pure). `providerOptions.openai`
 * entries are checked and merged (wire names: `store`, `previous_response_id`, `reasoning`,
 * …; they cannot replace `model`, `input` or `tools`), and its `include` is merged with what
 * provider tools ask for. With `store: false`, `reasoning.encrypted_content` is included and
 * the reasoning items of earlier turns are sent back, so reasoning survives tool round trips.
 */
export function buildResponsesRequest(options: { modelId: string; request: ChatRequest }): BuiltResponsesRequest {
  const { request, modelId } = options;
  const { options: extra, warnings: optionWarnings } = readOpenAIOptions(request.providerOptions?.['openai'], 'responses');
  const prepared = prepareResponsesTools(request.tools, request.toolChoice, { provider: 'openai' });
  const store = extra['store'] !== false;
  const answered = answerUnansweredToolCalls(request.messages);
  const mapped = toResponsesInput(answered.messages, { provider: 'openai', metadataKey: 'openai', systemMessages: 'instructions', store });
  const warnings: Warning[] = [...optionWarnings, ...answered.warnings, ...mapped.warnings];
  const body: ResponseCreateParamsBase = { model: modelId, input: mapped.input as unknown as ResponseCreateParamsBase['input'] };
  if (mapped.instructions !== undefined) body.instructions = mapped.instructions;
  if (prepared.tools) {
    body.tools = prepared.tools as unknown as NonNullable<ResponseCreateParamsBase['tools']>;
    if (prepared.toolChoice !== undefined) body.tool_choice = prepared.toolChoice as NonNullable<ResponseCreateParamsBase['tool_choice']>;
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
  if (!store) include.push(ENCRYPTED_REASONING);
  const extraInclude = extra['include'];
  if (Array.isArray(extraInclude)) for (const value of extraInclude) if (typeof value === 'string' && !include.includes(value)) include.push(value);
  const { include: _include, ...rest } = extra;
  const merged: ResponseCreateParamsBase = { ...body, ...rest };
  if (include.length > 0) merged.include = include as ResponseIncludable[];
  return { body: merged, providerTools: prepared.providerTools, warnings };
}
