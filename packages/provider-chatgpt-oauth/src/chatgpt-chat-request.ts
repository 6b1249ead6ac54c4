import type { ChatRequest, Warning } from '@toolwire/core';
import { answerUnansweredToolCalls } from '@toolwire/core/provider';
import { toResponsesInput } from '@toolwire/openai-responses';
import type { ResponsesInputItem } from '@toolwire/openai-responses';

import { prepareTools } from './chatgpt-chat-prepare-tools.ts';
import { resolveReasoningEffort } from './chatgpt-reasoning-effort.ts';
import type { ChatGPTChatSettings } from './chatgpt-settings.ts';
import type { CatalogModel } from './backend/model-catalog.ts';
import { PROVIDER_NAME } from './constants.ts';
import { callMappingFor } from './tools/map-tool-calls.ts';
import type { ToolMapping } from './tools/wire-tool.ts';

/** A request body for `POST {baseURL}/codex/responses`, with what the response decoder needs. */
export interface PreparedRequest {
  body: Record<string, unknown>;
  warnings: Warning[];
  mapping: ToolMapping;
  /** Tools left out in codex mode. */
  leftOut: string[];
}

/**
 * Builds the backend request (pure): `store: false`, `stream: true` and `instructions`
 * always (the backend's contract), the conversation as Responses items (system messages
 * as developer messages, reasoning items replayed, calls without a result answered first),
 * tools per the tool mode, and the reasoning effort (the model's catalog default unless
 * set; a level the model does not take is remapped with a warning). Settings the backend
 * does not take (`max_output_tokens`, `temperature`, `top_p`, `stop`, `seed`) are dropped
 * with a warning.
 */
export function buildChatGPTRequest(options: {
  modelId: string;
  request: ChatRequest;
  settings: ChatGPTChatSettings;
  instructions: string;
  conversationId: string;
  /** The model's catalog entry, when the catalog lists it. */
  model?: CatalogModel | undefined;
}): PreparedRequest {
  const { request, settings } = options;
  const warnings: Warning[] = [];
  const mode = settings.toolMode ?? 'passthrough';
  const prepared = prepareTools({ tools: request.tools, toolChoice: request.toolChoice, mode, cliTools: settings.cliTools === true && mode === 'codex' });
  warnings.push(...prepared.warnings);

  const dropped: [keyof ChatRequest, string, string][] = [
    ['maxOutputTokens', 'max_output_tokens', 'the backend rejects it ("Unsupported parameter: max_output_tokens")'],
    ['temperature', 'temperature', 'Codex models do not take it'],
    ['topP', 'top_p', 'Codex models do not take it'],
    ['stop', 'stop', 'the backend does not take stop sequences'],
    ['seed', 'seed', 'the backend does not take a seed'],
  ];
  for (const [setting, wireName, reason] of dropped) {
    if (request[setting] !== undefined) {
      warnings.push({ type: 'unsupported-setting', setting, message: `${setting} (${wireName}) was not sent: ${reason}.` });
    }
  }

  // Codex's backend refuses a history with a call and no output ("No tool output found").
  const answered = answerUnansweredToolCalls(request.messages);
  warnings.push(...answered.warnings);
  const input: ResponsesInputItem[] = [];
  if (prepared.cliToolsPrompt !== undefined) {
    input.push({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: prepared.cliToolsPrompt }] });
  }
  input.push(
    ...toResponsesInput(answered.messages, {
      provider: PROVIDER_NAME,
      metadataKey: PROVIDER_NAME,
      systemMessages: 'developer',
      store: false,
      callMapping: callMappingFor(prepared.mapping),
      requireCallBeforeOutput: true,
    }).input,
  );

  const effort = resolveReasoningEffort({ modelId: options.modelId, requested: settings.reasoningEffort, model: options.model });
  if (effort.warning) warnings.push(effort.warning);
  const summary = settings.reasoningSummary ?? 'auto';
  const reasoning: Record<string, unknown> = { effort: effort.effort };
  if (summary !== 'none' && effort.effort !== 'none') reasoning.summary = summary;

  const body: Record<string, unknown> = {
    model: options.modelId,
    instructions: options.instructions,
    input,
    tools: prepared.tools,
    tool_choice: prepared.toolChoice ?? 'auto',
    parallel_tool_calls: request.parallelToolCalls ?? false,
    reasoning,
    store: false,
    stream: true,
    include: effort.effort !== 'none' ? ['reasoning.encrypted_content'] : [],
    prompt_cache_key: options.conversationId,
  };
  const text: Record<string, unknown> = {};
  if (settings.textVerbosity !== undefined) text.verbosity = settings.textVerbosity;
  if (request.responseFormat?.type === 'json') {
    const format = request.responseFormat;
    // Codex sends this shape for `--output-schema`.
    text.format =
      format.schema !== undefined
        ? { type: 'json_schema', strict: true, schema: format.schema, name: format.name ?? 'codex_output_schema', ...(format.description !== undefined ? { description: format.description } : {}) }
        : { type: 'json_object' };
  }
  if (Object.keys(text).length > 0) body.text = text;
  return { body, warnings, mapping: prepared.mapping, leftOut: prepared.leftOut };
}
