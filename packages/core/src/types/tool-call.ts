/**
 * One tool call, whatever the model emitted it as (native `tool_calls`, a Responses
 * `function_call`, or text such as `search(query="x")`).
 */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Set when the provider runs the tool itself (e.g. OpenAI's code interpreter): never execute it locally. */
  providerExecuted?: boolean;
  /**
   * Set when the model's argument text could not be parsed. The call is still part of the
   * conversation (the model must get an answer), and `executeToolCall` answers it with a
   * `validation_error` result instead of running the tool.
   */
  invalid?: { rawArguments: string; message: string };
}
