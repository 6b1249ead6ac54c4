import type { Tool, ToolRegistry } from '@toolwire/core';
import { mcpTools } from '@toolwire/mcp';
import type { McpToolSet } from '@toolwire/mcp';
import { openApiTools } from '@toolwire/openapi';
import type { Logger } from 'pino';
import type { McpServerConfig, OpenApiSourceConfig } from '../config/dynamic-tools-config.ts';
import { DynamicToolsStartError } from './dynamic-tools-start-error.ts';

/** Options of `loadDynamicTools`. */
export interface LoadDynamicToolsOptions {
  mcpServers: Readonly<Record<string, McpServerConfig>>;
  openApi: Readonly<Record<string, OpenApiSourceConfig>>;
  logger: Logger;
}

/** The tools of the configured MCP servers and OpenAPI documents, not yet in a registry. */
export interface DynamicTools {
  /** Registers every source's tools as server tools, and keeps an MCP server's in step with its `tools/list_changed`. */
  attach(registry: ToolRegistry): void;
  /** The tool names each source has now (`mcp:github` → names), for the startup log. */
  summary(): Record<string, string[]>;
  /** Stops the MCP servers (stdio processes, HTTP sessions). */
  close(): Promise<void>;
}

interface LoadedSource {
  /** `mcp:<name>` or `openapi:<name>`. */
  label: string;
  tools: Tool[];
  /** MCP only: the live set behind `tools`. */
  set?: McpToolSet;
}

/**
 * Starts every configured MCP server (`mcpTools`, stdio ones in the shell sandbox) and reads
 * every OpenAPI document (`openApiTools`), all at once, with `<name>_` as the tools' prefix.
 * A source that fails is logged and left out when it is `optional`; otherwise everything
 * started is stopped again and `DynamicToolsStartError` says which sources failed and why.
 */
export async function loadDynamicTools(options: LoadDynamicToolsOptions): Promise<DynamicTools> {
  const { logger } = options;
  const starts: { label: string; optional: boolean; start: () => Promise<LoadedSource> }[] = [];
  for (const [name, config] of Object.entries(options.mcpServers)) {
    const label = `mcp:${name}`;
    const { optional, ...source } = config;
    starts.push({
      label,
      optional: optional === true,
      start: async () => {
        const set = await mcpTools(source, { name, namePrefix: `${name}_`, onWarning: (message) => logger.warn({ source: label }, message) });
        return { label, tools: set.tools, set };
      },
    });
  }
  for (const [name, config] of Object.entries(options.openApi)) {
    const label = `openapi:${name}`;
    const { optional, document, ...rest } = config;
    starts.push({
      label,
      optional: optional === true,
      start: async () => {
        const tools = await openApiTools(document, { ...rest, namePrefix: `${name}_`, onWarning: (message) => logger.warn({ source: label }, message) });
        return { label, tools };
      },
    });
  }

  const settled = await Promise.allSettled(starts.map((entry) => entry.start()));
  const sources: LoadedSource[] = [];
  const fatal: { source: string; problem: string }[] = [];
  settled.forEach((outcome, i) => {
    const entry = starts[i];
    if (entry === undefined) return;
    if (outcome.status === 'fulfilled') {
      sources.push(outcome.value);
      return;
    }
    const reason = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
    if (entry.optional) logger.error({ source: entry.label }, `${entry.label} is left out (optional): ${reason}`);
    else fatal.push({ source: entry.label, problem: reason });
  });
  const close = async (): Promise<void> => {
    await Promise.all(sources.map((source) => source.set?.close() ?? Promise.resolve()));
  };
  if (fatal.length > 0) {
    await close();
    throw new DynamicToolsStartError({ failures: fatal });
  }

  return {
    attach(registry) {
      for (const source of sources) {
        let names = register(registry, source.label, source.tools, logger);
        // A server's changed list replaces what it registered before, and only that.
        source.set?.onToolsChanged((tools) => {
          for (const name of names) registry.unregister(name);
          names = register(registry, source.label, tools, logger);
          source.tools = tools;
          logger.info({ source: source.label, tools: [...names] }, 'server tools changed');
        });
      }
    },
    summary() {
      return Object.fromEntries(sources.map((source) => [source.label, source.tools.map((tool) => tool.name)]));
    },
    close,
  };
}

function register(registry: ToolRegistry, label: string, tools: readonly Tool[], logger: Logger): Set<string> {
  const names = new Set<string>();
  for (const tool of tools) {
    if (registry.get(tool.name) !== undefined) {
      // Taken by a built-in, a custom tool or another source: the first one keeps it.
      logger.warn({ source: label, tool: tool.name }, 'a server tool with this name exists already; this one is left out');
      continue;
    }
    registry.register(tool);
    names.add(tool.name);
  }
  return names;
}
