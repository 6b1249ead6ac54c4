// `@toolwire/core/provider`: what provider packages share. Not part of the everyday API.
export { toToolCall, invalidToolCall } from './to-tool-call.ts';
export type { ToolCallInput } from './to-tool-call.ts';
export { parseRetryAfter, retryDelayFromText } from './retry-after.ts';
export type { RetryAfterSource } from './retry-after.ts';
export { isContextLengthMessage, mapProviderError } from './map-status-error.ts';
export type { ProviderErrorHints, ProviderFailure } from './map-status-error.ts';
export { guardStream } from './guard-stream.ts';
export type { GuardStreamOptions } from './guard-stream.ts';
export { abortReason } from './abort-reason.ts';
export { answerUnansweredToolCalls, UNANSWERED_TOOL_CALL_OUTPUT } from './answer-unanswered-tool-calls.ts';
export { attachBodyReader, takeBodyReader, BODY_READER } from './body-reader.ts';
export type { BodyReader, ClaimableBody } from './body-reader.ts';
export { NEXT_THEN, handOn, nextThen } from './next-then.ts';
export type { ChainedAsyncIterator, NextThenCallbacks } from './next-then.ts';
export { FETCH_SIGNAL, fetchSignalOf, markFetchSignal, readsFetchSignal } from './fetch-signal.ts';
export type { FetchSignalFetch } from './fetch-signal.ts';
export { Utf8ChunkDecoder } from './utf8-chunk-decoder.ts';
