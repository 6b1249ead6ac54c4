import { InvalidRequestError } from '@toolwire/core';

import { PROVIDER_NAME } from './constants.ts';
import type { ChatGPTToolMode } from './tools/wire-tool.ts';

/** Reasoning effort levels; which ones a model accepts depends on the model. */
export type ChatGPTReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * Settings of one model (`chatgpt.chat(model, settings)`). Each can also be given per
 * request as `providerOptions.chatgpt.<name>`, which wins.
 */
export interface ChatGPTChatSettings {
  /**
   * `'passthrough'` (default): tools go to the backend as function tools. `'codex'`: only
   * Codex's `shell` and `update_plan`, for tools named bash/shell/command/execute and
   * TodoWrite/update_plan/plan/todo; other tools are left out with a warning, or offered
   * as `toolwire-tool` commands when `cliTools` is on.
   */
  toolMode?: ChatGPTToolMode;
  /**
   * Codex mode only: offer the tools without a Codex equivalent as commands the model runs
   * through `shell` (`["toolwire-tool", "<name>", "<json>"]`). Such calls come back as
   * ordinary calls of those tools. Default false.
   */
  cliTools?: boolean;
  /**
   * Default: the model's default from the account's model catalog (`'medium'` when the
   * catalog does not list it). A level the model does not take is replaced by the nearest
   * one it takes, with a warning.
   */
  reasoningEffort?: ChatGPTReasoningEffort;
  /** Reasoning summaries streamed as `reasoning-delta` (default `'auto'`). */
  reasoningSummary?: 'auto' | 'concise' | 'detailed' | 'none';
  textVerbosity?: 'low' | 'medium' | 'high';
  /**
   * Replaces the model's base instructions. If the backend answers "Instructions are not
   * valid", the request is sent again with the base instructions and a warning.
   */
  instructions?: string;
  /** The conversation id for `prompt_cache_key` (default: derived from the conversation's opening). */
  conversationId?: string;
}

const EFFORTS: readonly string[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];
const SUMMARIES: readonly string[] = ['auto', 'concise', 'detailed', 'none'];
const VERBOSITIES: readonly string[] = ['low', 'medium', 'high'];

/**
 * The model's settings with the request's `providerOptions.chatgpt` over them. Only these
 * settings are read (the body's `model`, `input` and `tools` cannot be replaced this way);
 * an unknown reasoning effort is refused, other mistyped keys are ignored.
 */
export function resolveSettings(settings: ChatGPTChatSettings, overrides: Record<string, unknown> | undefined): ChatGPTChatSettings {
  if (overrides === undefined) return settings;
  const result: ChatGPTChatSettings = { ...settings };
  const { toolMode, cliTools, reasoningEffort, reasoningSummary, textVerbosity, instructions, conversationId } = overrides;
  if (toolMode === 'passthrough' || toolMode === 'codex') result.toolMode = toolMode;
  if (typeof cliTools === 'boolean') result.cliTools = cliTools;
  if (reasoningEffort !== undefined) {
    if (typeof reasoningEffort !== 'string' || !EFFORTS.includes(reasoningEffort)) {
      throw new InvalidRequestError({
        provider: PROVIDER_NAME,
        message: `providerOptions.chatgpt.reasoningEffort must be one of ${EFFORTS.join(', ')}; got ${JSON.stringify(reasoningEffort)}.`,
      });
    }
    result.reasoningEffort = reasoningEffort as ChatGPTReasoningEffort;
  }
  if (typeof reasoningSummary === 'string' && SUMMARIES.includes(reasoningSummary)) {
    result.reasoningSummary = reasoningSummary as NonNullable<ChatGPTChatSettings['reasoningSummary']>;
  }
  if (typeof textVerbosity === 'string' && VERBOSITIES.includes(textVerbosity)) {
    result.textVerbosity = textVerbosity as NonNullable<ChatGPTChatSettings['textVerbosity']>;
  }
  if (typeof instructions === 'string') result.instructions = instructions;
  if (typeof conversationId === 'string' && conversationId !== '') result.conversationId = conversationId;
  return result;
}
