import { ProviderToolMismatchError } from './errors.ts';
import type { ToolSpec } from './types/chat-request.ts';
import type { ProviderTool } from './types/provider-tool.ts';
import type { FunctionToolSpec } from './types/tool.ts';

/** True when a tool is a `ProviderTool` (run by the provider) rather than a function tool. */
export function isProviderTool(tool: ToolSpec): tool is ProviderTool {
  return tool.type === 'provider';
}

/**
 * Splits a request's tools into function tools and provider tools, and throws
 * `ProviderToolMismatchError` for a provider tool bound to another provider.
 * Providers call this while building a request, before anything is sent.
 *
 * @example const { functionTools, providerTools } = partitionTools(request.tools, 'openai');
 */
export function partitionTools(
  tools: readonly ToolSpec[] | undefined,
  provider: string,
): { functionTools: FunctionToolSpec[]; providerTools: ProviderTool[] } {
  const functionTools: FunctionToolSpec[] = [];
  const providerTools: ProviderTool[] = [];
  for (const tool of tools ?? []) {
    if (isProviderTool(tool)) {
      if (tool.provider !== provider) {
        throw new ProviderToolMismatchError({ toolName: tool.name, toolProvider: tool.provider, provider });
      }
      providerTools.push(tool);
    } else {
      functionTools.push(tool);
    }
  }
  return { functionTools, providerTools };
}
