/** Why a tool call failed; the model sees this type and can react to it. */
export type ToolErrorType =
  | 'unknown_tool'
  | 'permission_denied'
  | 'rate_limited'
  | 'validation_error'
  | 'execution_error'
  | 'timeout'
  | 'unsupported';

/**
 * The outcome of one tool call. A failed tool is a result sent back to the model,
 * not an exception that ends the loop.
 */
export interface ToolResult {
  toolCallId: string;
  name: string;
  success: boolean;
  /** What the model reads: the value as text, or the error explained. */
  message: string;
  /** The structured value for the caller (JSON-compatible). */
  value?: unknown;
  error?: { type: ToolErrorType; message: string };
  /** True when the provider ran the tool (the result came back from the provider). */
  providerExecuted?: boolean;
}
