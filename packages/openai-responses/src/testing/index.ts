// `@toolwire/openai-responses/testing`: the Responses wire format for core's provider conformance
// suite, and builders of Responses payloads for tests of code that reads them.
export { responsesConformanceWire } from './responses-conformance-wire.ts';
export type { ResponsesConformanceWireOptions } from './responses-conformance-wire.ts';
export { openAIErrorReply } from './openai-error-reply.ts';
export { eventLines, functionCallEvents, functionCallItem, responseObject } from './responses-events.ts';
export type { ResponsesEventObject, ResponsesResponseObject } from './responses-events.ts';
