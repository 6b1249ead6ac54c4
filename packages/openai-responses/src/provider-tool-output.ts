import type { ProviderTool, ProviderToolContext, ToolResult } from '@toolwire/core';

/** A finished call of a provider tool, waiting for its `tool-result` (after the response completed). */
export interface ProviderToolOutput {
  toolCallId: string;
  tool: ProviderTool;
  /** The raw output item as the API sent it, e.g. a `code_interpreter_call`. */
  item: Record<string, unknown>;
}

const NOT_ARGUMENTS = new Set(['id', 'type', 'status', 'outputs', 'output', 'results', 'result']);

/**
 * The arguments of a provider-executed call: `{ code, containerId }` for the code
 * interpreter; for other tools the item's fields except id, type, status and results.
 */
export function providerCallArguments(item: Record<string, unknown>): Record<string, unknown> {
  if (item['type'] === 'code_interpreter_call') {
    return { code: typeof item['code'] === 'string' ? item['code'] : '', containerId: item['container_id'] };
  }
  const args: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) if (!NOT_ARGUMENTS.has(key)) args[key] = value;
  return args;
}

function outputsText(outputs: unknown): string | undefined {
  if (!Array.isArray(outputs)) return undefined;
  const lines: string[] = [];
  for (const output of outputs as unknown[]) {
    if (typeof output !== 'object' || output === null) continue;
    const entry = output as Record<string, unknown>;
    if (typeof entry['logs'] === 'string') lines.push(entry['logs']);
    else if (typeof entry['url'] === 'string') lines.push(`image: ${entry['url']}`);
    else lines.push(JSON.stringify(entry));
  }
  return lines.join('\n');
}

/** The result used when a provider tool has no `handleProviderOutput`: success, its outputs/logs as text, the item as value. */
export function defaultProviderToolResult(output: ProviderToolOutput): ToolResult {
  const { item } = output;
  const text = outputsText(item['outputs']) ?? (typeof item['output'] === 'string' ? item['output'] : undefined) ?? JSON.stringify(item);
  return { toolCallId: output.toolCallId, name: output.tool.name, success: true, message: text, value: item, providerExecuted: true };
}

/**
 * Turns a provider tool's output into its `ToolResult` through the tool's
 * `handleProviderOutput` (or the default). A handler that throws gives an
 * `execution_error` result, not a failed call.
 */
export async function resolveProviderToolResult(
  output: ProviderToolOutput,
  context: Omit<ProviderToolContext, 'toolCallId' | 'toolName' | 'provider'>,
): Promise<ToolResult> {
  const handler = output.tool.handleProviderOutput;
  if (!handler) return defaultProviderToolResult(output);
  try {
    const result = await handler(output.item, { ...context, toolCallId: output.toolCallId, toolName: output.tool.name, provider: output.tool.provider });
    return { ...result, providerExecuted: true };
  } catch (error) {
    const message = `Handling the output of "${output.tool.name}" failed: ${error instanceof Error ? error.message : String(error)}`;
    return {
      toolCallId: output.toolCallId,
      name: output.tool.name,
      success: false,
      message,
      error: { type: 'execution_error', message },
      providerExecuted: true,
    };
  }
}
