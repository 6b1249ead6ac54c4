import type { ToolCall } from '@toolwire/core';

/**
 * What the streaming parser reports. Concatenating the `text` of every event (text,
 * reasoning, calls' source spans, discarded and incomplete spans) gives back the input exactly.
 */
export type ToolCallParserEvent =
  /** Text that is not part of any call. */
  | { type: 'text'; text: string }
  /** A reasoning block opens (`<think>`, harmony `analysis`, …); `text` is its opening delimiter. */
  | { type: 'reasoning-start'; text: string }
  /** Reasoning text (calls written in it are reasoning too, unless `callsInReasoning`). */
  | { type: 'reasoning'; text: string }
  /** The reasoning block closes; `text` is its closing delimiter. */
  | { type: 'reasoning-end'; text: string }
  /** A call syntax `name(` was seen; arguments follow as deltas. */
  | { type: 'tool-call-start'; id: string; name: string }
  /** Raw argument text of the open call, as it arrives. */
  | { type: 'tool-call-delta'; id: string; argumentsText: string }
  /** A complete call; `text` is its source span in the input. */
  | { type: 'tool-call'; toolCall: ToolCall; text: string }
  /**
   * A started call that turned out not to be one (its arguments do not parse) or that
   * repeats an earlier call (same name and arguments); `text` is its source span.
   */
  | { type: 'tool-call-discarded'; id: string; text: string; reason: 'invalid-arguments' | 'duplicate' }
  /**
   * A call (or JSON object, or native call block) that never closed, reported instead of a
   * guess: at `end()`, or, with `reason: 'too-long'`, as soon as it is `maxCallChars` long
   * (`text` is then its first `maxCallChars` characters, one fewer where the bound would split
   * a surrogate pair, and what follows is read as a text of its own). `id` when it was a started
   * call; a started call's deltas may have run past the bound by up to a chunk (or 1,024
   * characters streamed one at a time) before it is given up. Show `text` as text: it is part
   * of the answer, in no other event.
   */
  | { type: 'incomplete'; text: string; id?: string; reason?: 'too-long' };
