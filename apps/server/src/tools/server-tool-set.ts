import type { Tool } from '@toolwire/core';
import type { BuiltinToolName, ServerToolsConfig } from '../config/server-config.ts';
import { calculateTool } from './calculate-tool.ts';
import { createCurrentTimeTool } from './current-time-tool.ts';
import { createFetchUrlTool } from './fetch-url-tool.ts';
import type { RestrictedFetch } from './fetch-url-tool.ts';

/** Options of `createBuiltinTools`. */
export interface BuiltinToolsOptions {
  config: ServerToolsConfig;
  /** The allow-listed fetch for `fetch_url`; without it `fetch_url` is not offered. */
  fetch?: RestrictedFetch;
}

/** The built-in tools the config enables, as core `Tool`s (schema-validated arguments, a handler). */
export function createBuiltinTools(options: BuiltinToolsOptions): Tool[] {
  const domains = options.config.allowedDomains ?? [];
  const wanted: readonly BuiltinToolName[] =
    options.config.builtins ?? (domains.length > 0 ? ['get_current_time', 'calculate', 'fetch_url'] : ['get_current_time', 'calculate']);
  const tools: Tool[] = [];
  for (const name of wanted) {
    switch (name) {
      case 'get_current_time':
        tools.push(createCurrentTimeTool());
        break;
      case 'calculate':
        tools.push(calculateTool);
        break;
      case 'fetch_url':
        if (options.fetch) tools.push(createFetchUrlTool({ fetch: options.fetch, allowedDomains: domains }));
        break;
      default: {
        const unexpected: never = name;
        throw new Error(`Unknown built-in tool ${String(unexpected)}`);
      }
    }
  }
  return tools;
}
