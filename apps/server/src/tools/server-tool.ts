import type { JsonSchema, ToolExecutionContext } from '@toolwire/core';

/**
 * A tool the gateway runs itself (a built-in or a configured custom tool). The model sees
 * its name, description and schema; its calls never reach the client.
 */
export interface ServerTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** Runs the tool; throw an `Error` whose message tells the model what to fix. */
  execute(args: Record<string, unknown>, context: ToolExecutionContext): Promise<unknown>;
}
