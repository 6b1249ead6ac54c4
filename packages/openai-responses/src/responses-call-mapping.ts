import type { ToolCall } from '@toolwire/core';
import type { ToolCallInput } from '@toolwire/core/provider';

/**
 * How wire calls relate to the caller's tools when they differ (the Codex backend's
 * `shell` standing for the caller's `bash`). Without one, names pass through and
 * arguments follow core's `toToolCall` rule.
 */
export interface ResponsesCallMapping {
  /** The caller's tool name for a wire name. */
  userName(wireName: string): string;
  /** Whether the call's `tool-call-start` waits for the finished call (its target is known only then). */
  defer(wireName: string): boolean;
  /** The caller's `ToolCall` for a finished wire call (`name` is the wire name). */
  toToolCall(call: ToolCallInput & { rawArguments: string }): ToolCall;
  /** The wire call to replay for a `ToolCall` of the history (`recorded`: the wire form the response kept). */
  toWireCall(toolCall: ToolCall, recorded: WireFunctionCall | undefined): WireFunctionCall;
}

/** A `function_call` as it travels on the wire. */
export interface WireFunctionCall {
  callId: string;
  name: string;
  /** JSON text. */
  arguments: string;
}
