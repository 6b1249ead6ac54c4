export { toResponsesInput, toImageUrl } from './responses-input.ts';
export type { ResponsesInput, ResponsesInputOptions } from './responses-input.ts';
export {
  checkToolName,
  findProviderTool,
  mapResponsesToolChoice,
  prepareResponsesTools,
  resolveProviderTools,
  toResponsesFunctionTool,
} from './responses-tools.ts';
export type { PreparedResponsesTools, PrepareResponsesToolsOptions, ResolvedProviderTool, ResponsesProviderToolConfig } from './responses-tools.ts';
export { createResponsesStreamDecoder } from './responses-stream.ts';
export type { ResponsesStreamDecoder, ResponsesStreamDecoderOptions, ResponsesStreamPart } from './responses-stream.ts';
export { mapResponsesResponse } from './responses-response.ts';
export type { MappedResponsesResponse, MapResponsesResponseOptions } from './responses-response.ts';
export { mapResponsesUsage } from './responses-usage.ts';
export { mapResponsesFinishReason } from './responses-finish-reason.ts';
export { recordedReasoningItems, replayableReasoningItem } from './responses-reasoning.ts';
export type { ResponsesCallMapping, WireFunctionCall } from './responses-call-mapping.ts';
export { droppedCallsWarning } from './dropped-calls-warning.ts';
export { normalizeToolSchema } from './normalize-tool-schema.ts';
export { removeStrictNulls, toStrictJsonSchema } from './strict-json-schema.ts';
export { createStrictCallRestorer, restoreEventCall, restoreResponseCalls } from './strict-tool-calls.ts';
export type { StrictCallRestorer } from './strict-tool-calls.ts';
export { defaultProviderToolResult, providerCallArguments, resolveProviderToolResult } from './provider-tool-output.ts';
export type { ProviderToolOutput } from './provider-tool-output.ts';
export { isRecord } from './responses-wire.ts';
export type {
  ResponsesFunctionTool,
  ResponsesInputItem,
  ResponsesStreamEvent,
  ResponsesTool,
  ResponsesToolChoice,
  ResponsesUsage,
} from './responses-wire.ts';
