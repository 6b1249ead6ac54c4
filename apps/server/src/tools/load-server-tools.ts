import type { Tool } from '@toolwire/core';
import { createGuardedFetch } from '@toolwire/sandbox';
import type { Logger } from 'pino';
import type { ServerToolsConfig } from '../config/server-config.ts';
import { loadCustomTools } from './custom-tools.ts';
import { createBuiltinTools } from './server-tool-set.ts';

/** Options of `loadServerTools`. */
export interface LoadServerToolsOptions {
  config: ServerToolsConfig;
  extraTools: readonly Tool[];
  logger: Logger;
  /** Told the outcome of every sandbox run (`ok`, `timeout`, `memory`, …), for metrics. */
  onSandboxRun?: (outcome: string) => void;
}

/** The loaded server tools by name, and how to release what they hold (the sandbox). */
export interface LoadedServerTools {
  tools: Map<string, Tool>;
  /** Worker processes of the custom tools' sandbox (0 without custom tools). */
  sandboxPoolSize: number;
  dispose(): Promise<void>;
}

/** The server tools by name: built-ins, custom tools from `customToolsPath`, then extras. */
export async function loadServerTools(options: LoadServerToolsOptions): Promise<LoadedServerTools> {
  const domains = options.config.allowedDomains ?? [];
  const fetch = domains.length > 0 ? createGuardedFetch({ allowedDomains: domains }) : undefined;
  const tools = new Map<string, Tool>();
  const add = (tool: Tool): void => {
    if (tools.has(tool.name)) options.logger.warn({ tool: tool.name }, 'a later server tool replaces an earlier one with the same name');
    tools.set(tool.name, tool);
  };
  for (const tool of createBuiltinTools(fetch ? { config: options.config, fetch } : { config: options.config })) add(tool);
  let dispose = (): Promise<void> => Promise.resolve();
  let sandboxPoolSize = 0;
  if (options.config.customToolsPath !== undefined) {
    const custom = await loadCustomTools({
      path: options.config.customToolsPath,
      allowedDomains: domains,
      timeoutMs: options.config.timeoutMs ?? 30_000,
      onAudit: (event) => {
        options.logger.info({ audit: event }, 'sandbox execution');
        options.onSandboxRun?.(event.outcome);
      },
    });
    for (const tool of custom.tools) add(tool);
    dispose = () => custom.dispose();
    sandboxPoolSize = custom.poolSize;
  }
  for (const tool of options.extraTools) add(tool);
  return { tools, sandboxPoolSize, dispose };
}
