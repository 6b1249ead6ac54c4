import { createGuardedFetch } from '@toolwire/sandbox';
import type { Logger } from 'pino';
import type { ServerToolsConfig } from '../config/server-config.ts';
import { createBuiltinTools } from './server-tool-set.ts';
import type { ServerTool } from './server-tool.ts';

/** Options of `loadServerTools`. */
export interface LoadServerToolsOptions {
  config: ServerToolsConfig;
  extraTools: readonly ServerTool[];
  logger: Logger;
}

/** The server tools by name: built-ins, custom tools from `customToolsPath`, then extras. */
export async function loadServerTools(options: LoadServerToolsOptions): Promise<Map<string, ServerTool>> {
  const domains = options.config.allowedDomains ?? [];
  const fetch = domains.length > 0 ? createGuardedFetch({ allowedDomains: domains }) : undefined;
  const tools = new Map<string, ServerTool>();
  const add = (tool: ServerTool): void => {
    if (tools.has(tool.name)) options.logger.warn({ tool: tool.name }, 'a later server tool replaces an earlier one with the same name');
    tools.set(tool.name, tool);
  };
  for (const tool of createBuiltinTools(fetch ? { config: options.config, fetch } : { config: options.config })) add(tool);
  await Promise.resolve();
  for (const tool of options.extraTools) add(tool);
  return tools;
}
