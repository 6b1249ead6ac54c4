import type { ChatRequest, Warning } from '@toolwire/core';

import type { ChatGPTChatSettings } from '../chatgpt-settings.ts';
import { prepareTools } from '../tools/prepare-tools.ts';
import type { ToolMapping } from '../tools/wire-tool.ts';
import { convertMessages } from './convert-messages.ts';
import type { InputItem } from './convert-messages.ts';

/** A request body for `POST {baseURL}/codex/responses`, with what the response decoder needs. */
export interface PreparedRequest {
  body: Record<string, unknown>;
  warnings: Warning[];
  mapping: ToolMapping;
  /** Tools left out in codex mode. */
  leftOut: string[];
}

/**
 * Builds the backend request: `store: false`, `stream: true` and `instructions` always
 * (the backend's contract), the conversation as Responses items, tools per the tool mode,
 * and reasoning settings. Settings the backend does not take (`max_output_tokens`,
 * `temperature`, `top_p`, `stop`, `seed`) are dropped with a warning.
 */
export function buildRequestBody(options: {
  modelId: string;
  request: ChatRequest;
  settings: ChatGPTChatSettings;
  instructions: string;
  conversationId: string;
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

  const input: InputItem[] = [];
  if (prepared.cliToolsPrompt !== undefined) {
    input.push({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: prepared.cliToolsPrompt }] });
  }
  input.push(...convertMessages(request.messages, prepared.mapping));

  const effort = settings.reasoningEffort ?? 'medium';
  const summary = settings.reasoningSummary ?? 'auto';
  const reasoning: Record<string, unknown> = { effort };
  if (summary !== 'none' && effort !== 'none') reasoning.summary = summary;

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
    include: effort !== 'none' ? ['reasoning.encrypted_content'] : [],
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
