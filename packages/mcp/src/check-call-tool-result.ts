import { ContentBlockSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { McpCallToolAnswer } from './map-call-tool-result.ts';

/** A `tools/call` answer checked, or what is wrong with it. */
export type CheckedCallToolResult = { ok: true; answer: McpCallToolAnswer } | { ok: false; problem: string };

/**
 * Checks a `tools/call` result as the server sent it, block by block, stopping at the first
 * problem: the SDK's schema collects an issue for every bad block and words them all into
 * one message (200 000 bad blocks held the event loop 6 s, took 1.2 GB and then threw
 * "Invalid string length"). The problem names the first bad part only.
 */
export function checkCallToolResult(result: Record<string, unknown>): CheckedCallToolResult {
  // A value nested past the stack would throw a RangeError in whoever serializes it later
  // (JSON.stringify of the result, a turn store), far from here.
  if (nestedDeeperThan(result, MAX_RESULT_DEPTH)) return problem(`it is nested more than ${MAX_RESULT_DEPTH} levels deep`);
  // A pre-2024-11 server answers `{ toolResult }` without content.
  if ('toolResult' in result && result.content === undefined) return { ok: true, answer: { toolResult: result.toolResult } };
  const rawContent = result.content ?? [];
  if (!Array.isArray(rawContent)) return problem(`its "content" is ${kind(rawContent)}, not a list of content blocks`);
  const content: ContentBlock[] = [];
  for (let i = 0; i < rawContent.length; i++) {
    const parsed = ContentBlockSchema.safeParse(rawContent[i]);
    if (!parsed.success) {
      const type = (rawContent[i] as { type?: unknown } | null)?.type;
      return problem(`content[${i}] is not a valid content block (${typeof type === 'string' ? `type "${type.slice(0, 40)}"` : kind(rawContent[i])})`);
    }
    content.push(parsed.data);
  }
  const { structuredContent, isError } = result;
  if (structuredContent !== undefined && !isPlainObject(structuredContent)) {
    return problem(`its "structuredContent" is ${kind(structuredContent)}; it must be a JSON object`);
  }
  if (isError !== undefined && typeof isError !== 'boolean') return problem(`its "isError" is ${kind(isError)}, not true or false`);
  return {
    ok: true,
    answer: {
      content,
      ...(structuredContent === undefined ? {} : { structuredContent }),
      ...(isError === undefined ? {} : { isError }),
    },
  };
}

const MAX_RESULT_DEPTH = 100;

/** Whether `value` has objects or arrays nested deeper than `max`; iterative, so any depth is safe to check. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const pending: [node: unknown, depth: number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return true;
    const children = Array.isArray(node) ? (node as unknown[]) : Object.values(node);
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return false;
}

function problem(text: string): CheckedCallToolResult {
  return { ok: false, problem: text };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
