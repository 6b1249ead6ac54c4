import type { FinishReason } from '@toolwire/core';
import type { WireFinishReason } from './openai-wire-types.ts';

/**
 * Core's finish reason → OpenAI's. `length` wins; otherwise `tool_calls` whenever the
 * answer carries calls (clients branch on it), whatever the upstream said.
 */
export function toWireFinishReason(reason: FinishReason, hasToolCalls: boolean): WireFinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'content-filter':
      return hasToolCalls ? 'tool_calls' : 'content_filter';
    case 'tool-calls':
    case 'stop':
    case 'error':
    case 'other':
      return hasToolCalls ? 'tool_calls' : 'stop';
    default: {
      const unexpected: never = reason;
      throw new Error(`Unknown finish reason ${String(unexpected)}`);
    }
  }
}
