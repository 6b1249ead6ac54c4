import type { JsonSchema } from './json-schema.ts';
import type { Message } from './message.ts';

/** A function tool as the model sees it: name, description and a JSON Schema for its arguments. */
export interface FunctionToolSpec {
  type: 'function';
  name: string;
  description?: string;
  /** JSON Schema of the arguments object (`type: "object"`). */
  inputSchema: JsonSchema;
  /** Ask the provider to constrain arguments to the schema exactly (OpenAI strict mode). */
  strict?: boolean;
}

/** What a tool handler receives besides its arguments. */
export interface ToolExecutionContext {
  toolCallId: string;
  /** Fires on timeout or when the caller aborts; long-running handlers should stop. */
  signal: AbortSignal;
  /** Who asked (an API key id, a user); used for permissions and rate limits. */
  principal?: string;
  /** The conversation so far, when the tool runs inside `runTools`. */
  messages?: readonly Message[];
}

/** The outcome of validating arguments against a tool's schema. */
export type ToolValidationResult<TArgs> =
  | { success: true; value: TArgs }
  | { success: false; message: string; issues: { path: string; message: string }[] };

/**
 * A function tool with validation and, optionally, a handler. Created by `defineTool`;
 * it can be passed directly in `ChatRequest.tools`.
 */
export interface Tool<TArgs = Record<string, unknown>, TResult = unknown> extends FunctionToolSpec {
  /** Checks (and, for zod schemas, transforms) arguments; messages are written for the model. */
  validate(args: unknown): ToolValidationResult<TArgs>;
  /**
   * Runs the tool. A tool without `execute` is answered by the caller (a client-side tool).
   * Declared as a method (bivariant) so a `Tool<{ q: string }>` fits where a
   * `Tool<unknown>` is expected; `this: void` keeps it safe to pass around unbound.
   */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- `this: void` is the unbound-method remedy
  execute?(this: void, args: TArgs, context: ToolExecutionContext): TResult | Promise<TResult>;
}
