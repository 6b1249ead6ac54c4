import { TOOL_NAME_RULE } from './tool-name.ts';

/** What the span name and metrics say for a tool name nobody registered or offered. */
export const UNKNOWN_TOOL_LABEL = '(unknown)';

/**
 * A tool name the model invented, cut to the tool-name rule's 64 characters (with `…` when
 * cut) for spans and audit events: the model writes it, so it can be any length. The answer
 * the model gets back keeps the name as written.
 */
export function foldUnknownToolName(name: string): string {
  const limit = TOOL_NAME_RULE.maxLength;
  if (name.length <= limit) return name;
  // Never half a surrogate pair at the cut.
  const code = name.charCodeAt(limit - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
  return `${name.slice(0, end)}…`;
}
