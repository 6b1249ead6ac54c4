import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';

/** One entry of a `tools/list` page checked, or what is wrong with it. */
export type CheckedListedTool = { ok: true; tool: McpTool } | { ok: false; name: string; problem: string };

/**
 * Checks one tool a server listed. Each tool on its own, so that one malformed tool is left
 * out rather than failing the whole list (the SDK's schema refuses the page, and with it
 * every tool of the server).
 */
export function checkListedTool(entry: unknown): CheckedListedTool {
  const name = typeof (entry as { name?: unknown } | null)?.name === 'string' ? (entry as { name: string }).name : '(no name)';
  let parsed;
  try {
    parsed = ToolSchema.safeParse(entry);
  } catch (error) {
    // A schema nested deeper than the stack.
    return { ok: false, name, problem: error instanceof RangeError ? 'it is nested too deeply' : String(error) };
  }
  if (parsed.success) return { ok: true, tool: parsed.data };
  const issue = parsed.error.issues[0];
  const path = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.slice(0, 6).join('.')}: `;
  return { ok: false, name, problem: `it is not a valid MCP tool (${path}${(issue?.message ?? 'invalid').slice(0, 200)})` };
}
