import { ToolRegistry } from '@toolwire/core';
import type { Tool } from '@toolwire/core';
import type { ApiKeyConfig } from '../auth/api-key-store.ts';

/** Options of `createServerToolRegistry`. */
export interface ServerToolRegistryOptions {
  tools: Iterable<Tool>;
  /** The configured keys: each key's `tools` list becomes its permissions (absent: every tool). */
  keys: readonly ApiKeyConfig[];
  /** Tool executions running at once across all keys and requests. */
  maxConcurrent: number;
}

/**
 * The server's tools in one core `ToolRegistry`: permissions per API key id (the key's
 * `tools` patterns), and one concurrency cap shared by every key, so that core's
 * `executeToolCall` enforces both. Without keys (loopback only) everyone may call everything.
 */
export function createServerToolRegistry(options: ServerToolRegistryOptions): ToolRegistry {
  const restricted = options.keys.some((key) => key.tools !== undefined);
  const permissions: Record<string, readonly string[]> = {};
  for (const key of options.keys) permissions[key.id] = key.tools ?? ['*'];
  return new ToolRegistry({
    tools: [...options.tools],
    maxConcurrency: options.maxConcurrent,
    ...(restricted ? { permissions } : {}),
  });
}
