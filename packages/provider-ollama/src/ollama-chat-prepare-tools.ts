import { partitionTools, UnknownToolError } from '@toolwire/core';
import type { FunctionToolSpec, ToolChoice, ToolSpec, Warning } from '@toolwire/core';
import type { OllamaWireTool } from './ollama-wire.ts';

/** What native mode sends for a request's tools and `toolChoice`. */
export interface PreparedTools {
  /** The tools on the wire; absent when none are sent (`toolChoice: 'none'`, no tools). */
  tools: OllamaWireTool[] | undefined;
  /** The function tools offered, after the choice narrowed them. */
  offered: FunctionToolSpec[];
  /** Set when the model must call one of these tools (`'required'` or a named tool). */
  forced: FunctionToolSpec[] | undefined;
  warnings: Warning[];
}

/**
 * Maps core tools and `toolChoice` to Ollama, which ignores `tool_choice` itself:
 * `'none'` sends no tools, a named tool is the only one sent, and both a named tool and
 * `'required'` mark the call as forced so the caller enforces it.
 */
export function prepareTools(options: { tools: readonly ToolSpec[] | undefined; toolChoice: ToolChoice | undefined }): PreparedTools {
  const { functionTools, providerTools } = partitionTools(options.tools, 'ollama');
  const warnings: Warning[] = providerTools.map((tool) => ({
    type: 'unsupported-tool',
    toolName: tool.name,
    message: `Ollama runs no provider tools; "${tool.name}" was not sent.`,
  }));
  const choice = options.toolChoice ?? 'auto';
  if (functionTools.length === 0 || choice === 'none') {
    return { tools: undefined, offered: [], forced: undefined, warnings };
  }
  if (choice === 'auto') return { tools: functionTools.map(toWireTool), offered: functionTools, forced: undefined, warnings };
  if (choice === 'required') {
    return { tools: functionTools.map(toWireTool), offered: functionTools, forced: functionTools, warnings };
  }
  const named = functionTools.find((tool) => tool.name === choice.name);
  if (named === undefined) {
    throw new UnknownToolError({ toolName: choice.name, availableTools: functionTools.map((tool) => tool.name) });
  }
  return { tools: [toWireTool(named)], offered: [named], forced: [named], warnings };
}

function toWireTool(tool: FunctionToolSpec): OllamaWireTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.inputSchema,
    },
  };
}
