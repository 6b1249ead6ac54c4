import type { FinishReason } from './finish-reason.ts';
import type { AssistantMessage } from './message.ts';
import type { ProviderMetadata } from './provider-metadata.ts';
import type { ToolCall } from './tool-call.ts';
import type { ToolResult } from './tool-result.ts';
import type { Usage } from './usage.ts';
import type { Warning } from './warning.ts';

/** The whole answer of one model call. */
export interface ChatResponse {
  text: string;
  toolCalls: ToolCall[];
  /** Results of tools the provider ran itself. */
  toolResults: ToolResult[];
  reasoning?: string;
  refusal?: string;
  finishReason: FinishReason;
  usage?: Usage;
  warnings: Warning[];
  /** The turn as a message, ready to append to the history. */
  message: AssistantMessage;
  responseId?: string;
  modelId?: string;
  providerMetadata?: ProviderMetadata;
}
