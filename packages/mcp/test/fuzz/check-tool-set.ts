// What every fuzzed run must end with, whatever the server sent.
import { isToolOutput } from '@toolwire/core';
import type { Tool } from '@toolwire/core';
import { expect } from 'vitest';
import { McpConnectionError, mcpTools } from '../../src/index.ts';
import type { McpServerSource, McpToolSet, McpToolsOptions } from '../../src/index.ts';

const ERROR_TYPES = ['unknown_tool', 'permission_denied', 'rate_limited', 'validation_error', 'execution_error', 'timeout', 'unsupported'];
// What a JavaScript error of our own reads like when it leaks into a message.
const LEAKS = /TypeError|ReferenceError|RangeError|Cannot read propert|is not a function|is not iterable|undefined is not|null is not|\[object Object\]/;

/** Errors nobody caught, collected while a property runs (`install` in `beforeAll`, `take` after each run). */
export function uncaughtCollector(): { install(): () => void; take(): unknown[] } {
  const seen: unknown[] = [];
  const onError = (error: unknown) => seen.push(error);
  return {
    install() {
      process.on('uncaughtException', onError);
      process.on('unhandledRejection', onError);
      return () => {
        process.off('uncaughtException', onError);
        process.off('unhandledRejection', onError);
      };
    },
    take: () => seen.splice(0),
  };
}

/** `promise`, or a failure naming `what` after `ms`: no run may hang. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

// Short waits: a server that never answers is one of the cases, and a run waits them out.
const FUZZ_OPTIONS = { maxResultChars: 5000, maxRestarts: 1 } satisfies McpToolsOptions;

/**
 * Lists the server's tools and calls up to two of them: listing ends with tools or a
 * McpConnectionError with a message, a call with a tool output the model can read (never a
 * throw, never our own TypeError in its text), and the set is closed at the end. Returns the
 * warnings, which must be short.
 */
export async function exercise(source: McpServerSource, waits: Pick<McpToolsOptions, 'connectTimeoutMs' | 'callTimeoutMs'>): Promise<{ connected: boolean; warnings: string[] }> {
  const warnings: string[] = [];
  let set: McpToolSet;
  try {
    set = await mcpTools(source, { ...FUZZ_OPTIONS, ...waits, onWarning: (message) => warnings.push(message) });
  } catch (error) {
    expect(McpConnectionError.isInstance(error), `listing threw ${String(error)}`).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(/^MCP server ".+" is not usable: \S/);
    expect(message).not.toMatch(LEAKS);
    expect(message.length).toBeLessThan(6000);
    return { connected: false, warnings };
  }
  try {
    for (const warning of warnings) expect(warning.length).toBeLessThan(1200);
    expect(Array.isArray(set.tools)).toBe(true);
    for (const tool of set.tools) {
      expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
      expect(typeof tool.inputSchema).toBe('object');
      expect(() => JSON.stringify(tool.inputSchema)).not.toThrow();
    }
    for (const tool of set.tools.slice(0, 2)) await checkCall(tool);
  } finally {
    await set.close();
  }
  return { connected: true, warnings };
}

let callNumber = 0;

async function checkCall(tool: Tool): Promise<void> {
  const output: unknown = await tool.execute?.({}, { toolCallId: `fuzz_${++callNumber}`, signal: new AbortController().signal });
  expect(isToolOutput(output), `execute answered ${String(output)}`).toBe(true);
  if (!isToolOutput(output)) return;
  expect(typeof output.message).toBe('string');
  expect(output.message.length).toBeLessThanOrEqual(FUZZ_OPTIONS.maxResultChars + 200);
  if (!output.success) {
    expect(ERROR_TYPES).toContain(output.errorType);
    expect(output.message).not.toMatch(LEAKS);
  }
  // What a turn store and the next model request carry.
  expect(() => JSON.stringify(output)).not.toThrow();
}
