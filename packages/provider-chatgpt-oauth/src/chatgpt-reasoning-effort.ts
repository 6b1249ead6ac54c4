import { InvalidRequestError } from '@toolwire/core';
import type { Warning } from '@toolwire/core';

import type { CatalogModel } from './backend/model-catalog.ts';
import type { ChatGPTReasoningEffort } from './chatgpt-settings.ts';
import { PROVIDER_NAME } from './constants.ts';

/** From least to most reasoning. */
const ORDER: readonly ChatGPTReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];

/** Used when neither the caller nor the catalog names one (Codex's own fallback). */
const FALLBACK_EFFORT: ChatGPTReasoningEffort = 'medium';

/**
 * The reasoning effort to send. Unset: the model's `default_reasoning_level` from the
 * catalog, as Codex does (openai/codex, codex-rs/core/src/codex.rs,
 * `effective_reasoning_effort`). Set to a level the catalog says the model does not take:
 * the nearest level it does take (a higher one first), with a warning. A level the
 * backend does not know at all is refused before any request.
 */
export function resolveReasoningEffort(options: {
  modelId: string;
  requested: string | undefined;
  model: CatalogModel | undefined;
}): { effort: ChatGPTReasoningEffort; warning?: Warning } {
  const supported = options.model?.supportedEfforts ?? [];
  if (options.requested === undefined) {
    const fallback = options.model?.defaultEffort ?? FALLBACK_EFFORT;
    return { effort: fallback };
  }
  const requested = options.requested as ChatGPTReasoningEffort;
  if (!ORDER.includes(requested)) {
    throw new InvalidRequestError({
      provider: PROVIDER_NAME,
      message: `Reasoning effort "${options.requested}" does not exist. Use one of ${ORDER.join(', ')}${supported.length > 0 ? ` (${options.modelId} takes ${supported.join(', ')})` : ''}.`,
    });
  }
  if (supported.length === 0 || supported.includes(requested)) return { effort: requested };
  const index = ORDER.indexOf(requested);
  const higher = ORDER.slice(index + 1).find((level) => supported.includes(level));
  const lower = [...ORDER.slice(0, index)].reverse().find((level) => supported.includes(level));
  const effort = higher ?? lower ?? supported[0] ?? FALLBACK_EFFORT;
  return {
    effort,
    warning: {
      type: 'unsupported-setting',
      setting: 'reasoningEffort',
      message: `${options.modelId} does not take reasoning effort "${requested}" (it takes ${supported.join(', ')}); "${effort}" was sent instead.`,
    },
  };
}
