import type { FinishReason } from './finish-reason.ts';
import type { ProviderMetadata } from './provider-metadata.ts';
import type { ToolCall } from './tool-call.ts';
import type { ToolResult } from './tool-result.ts';
import type { Usage } from './usage.ts';
import type { Warning } from './warning.ts';

/**
 * One event of a streamed model call. A tool call goes `tool-call-start`, then
 * `tool-call-delta`s with argument text, then `tool-call` once its arguments are complete.
 * `error` is always the last event of a stream that fails after it started.
 */
export type ChatStreamEvent =
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'tool-call-start'; id: string; name: string; providerExecuted?: boolean }
  | { type: 'tool-call-delta'; id: string; argumentsDelta: string }
  | { type: 'tool-call'; toolCall: ToolCall }
  | { type: 'tool-result'; result: ToolResult }
  | {
      type: 'finish';
      finishReason: FinishReason;
      usage?: Usage;
      responseId?: string;
      modelId?: string;
      providerMetadata?: ProviderMetadata;
    }
  | { type: 'warning'; warning: Warning }
  | { type: 'error'; error: Error };
