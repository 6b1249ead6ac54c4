export { createScriptedModel } from './scripted-model.ts';
export type { ScriptedCall, ScriptedModel, ScriptedModelOptions, ScriptedStep } from './scripted-model.ts';
export { toChatResponse, toStreamEvents } from './scripted-response.ts';
export type { ScriptedResponse, ScriptedToolCall } from './scripted-response.ts';
export { createReplayModel } from './replay-model.ts';
export type { ReplayModelOptions } from './replay-model.ts';
export { parseReplayTranscript } from './replay-transcript.ts';
export type { ReplayStreamEvent, ReplayTranscript, ReplayTurn } from './replay-transcript.ts';
export { InvalidTranscriptError, ReplayMismatchError, ScriptExhaustedError } from './testing-errors.ts';
export { createProviderConformanceSuite } from './provider-conformance.ts';
export type {
  ConformanceCheck,
  ConformanceScenario,
  ConformanceUsage,
  ConformanceWire,
  ProviderConformanceOptions,
  ProviderConformanceSuite,
} from './provider-conformance.ts';
export { startConformanceServer } from './conformance-server.ts';
export type { ConformanceRequest, ConformanceServer, ReplyPacing, WireReply } from './conformance-server.ts';
export { ConformanceError } from './testing-errors.ts';
