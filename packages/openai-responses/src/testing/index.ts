// `@toolwire/openai-responses/testing`: the Responses wire format for core's provider conformance suite.
export { responsesConformanceWire } from './responses-conformance-wire.ts';
export type { ResponsesConformanceWireOptions } from './responses-conformance-wire.ts';
