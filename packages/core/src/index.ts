export type { ChatModel } from './types/chat-model.ts';
export type { ChatRequest, ResponseFormat, ToolSpec } from './types/chat-request.ts';
export type { ChatResponse } from './types/chat-response.ts';
export type { ChatStreamEvent } from './types/chat-stream-event.ts';
export type { FinishReason } from './types/finish-reason.ts';
export type { JsonSchema, JsonSchemaTypeName } from './types/json-schema.ts';
export type {
  AssistantMessage,
  Message,
  SystemMessage,
  ToolMessage,
  UserContentPart,
  UserMessage,
} from './types/message.ts';
export type { ProviderMetadata } from './types/provider-metadata.ts';
export type { ProviderTool, ProviderToolContext } from './types/provider-tool.ts';
export type { FunctionToolSpec, Tool, ToolExecutionContext, ToolValidationResult } from './types/tool.ts';
export type { ToolCall } from './types/tool-call.ts';
export type { ToolCallAudit } from './types/tool-call-audit.ts';
export type { ToolChoice } from './types/tool-choice.ts';
export type { ToolErrorType, ToolResult } from './types/tool-result.ts';
export type { Usage } from './types/usage.ts';
export type { Warning } from './types/warning.ts';
export {
  AnswerTooLargeError,
  AuthenticationError,
  AuthExpiredError,
  ContextLengthExceededError,
  InvalidArgumentsError,
  InvalidRequestError,
  InvalidToolConfigError,
  InvalidToolDefinitionError,
  ModelNotFoundError,
  PermissionDeniedError,
  ProviderError,
  ProviderServerError,
  ProviderToolMismatchError,
  ProviderUnavailableError,
  RateLimitError,
  StreamError,
  ToolwireError,
  UnknownToolError,
  UnsupportedFeatureError,
  UpstreamMessageTooLargeError,
  UpstreamTimeoutError,
  UsageLimitError,
} from './errors.ts';
export type { AnswerLimitKind, ProviderErrorOptions, UpstreamMessagePart } from './errors.ts';
export { AnswerLimit, DEFAULT_MAX_ANSWER_CHARS, DEFAULT_MAX_TOOL_CALLS_PER_ANSWER, resolveAnswerLimits } from './answer-limit.ts';
export type { AnswerLimitOptions, AnswerLimits, AnswerLimitSettings } from './answer-limit.ts';
export { collectStream, createResponseCollector } from './collect-stream.ts';
export type { ResponseCollector } from './collect-stream.ts';
export { generateId } from './generate-id.ts';
export { parseArguments, parseCallArguments } from './parse-arguments.ts';
export { jsonTextDepth } from './validation/value-depth.ts';
export type { CallArguments, ParseArgumentsOptions, ParseCallArgumentsOptions } from './parse-arguments.ts';
export { isProviderTool, partitionTools } from './provider-tools.ts';
export { isToolNameUnit, isValidToolName, TOOL_NAME_RULE } from './tool-name.ts';
export type { ToolNameRuleOptions } from './tool-name.ts';
export { defineTool } from './define-tool.ts';
export type { ToolDefinition } from './define-tool.ts';
export { ToolRegistry } from './tool-registry.ts';
export type { ToolRegistryOptions } from './tool-registry.ts';
export { TokenBucket } from './token-bucket.ts';
export type { RateLimit, TakeResult } from './token-bucket.ts';
export { globMatch } from './glob-match.ts';
export { executeToolCall } from './execute-tool-call.ts';
export { genAiProviderName, TRACER_NAME } from './tracing.ts';
export type { ToolSpanOutcome } from './tracing.ts';
export type { ExecuteToolCallOptions } from './execute-tool-call.ts';
export { runTools } from './run-tools.ts';
export { runToolsStream } from './run-tools-stream.ts';
export type { RunToolsStream } from './run-tools-stream.ts';
export type {
  RunToolsEvent,
  RunToolsOptions,
  RunToolsResult,
  RunToolsSettings,
  RunToolsStep,
  RunToolsStoppedBy,
} from './run-tools-types.ts';
export { isToolOutput, toolOutput } from './tool-results.ts';
export type { ToolOutput } from './tool-results.ts';
export { addUsage } from './add-usage.ts';
