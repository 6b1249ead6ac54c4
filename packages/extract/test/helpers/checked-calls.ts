import { expect } from 'vitest';
import type { ExtractOptions } from '../../src/extract-options.ts';
import { extractToolCalls } from '../../src/extract-tool-calls.ts';
import { streamInPieces } from './stream-in-pieces.ts';

/** A call's name and arguments (what the format tests compare). */
export type CheckedCall = { name: string; arguments: Record<string, unknown> };

/** Batch result, checked against streaming at several chunk sizes (calls, ids and the text invariant). */
export function checked(text: string, options?: ExtractOptions): CheckedCall[] {
  const batch = extractToolCalls(text, options);
  for (const size of [1, 2, 3, 5, 7, 13, text.length || 1]) {
    const events = streamInPieces(text, size, options);
    expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(batch);
    expect(events.map((e) => ('text' in e ? e.text : '')).join('')).toBe(text);
  }
  return batch.map((c) => ({ name: c.name, arguments: c.arguments }));
}

/** An output that never closes: no call in batch, `incomplete` (and no call) in streaming. */
export function incomplete(text: string, options?: ExtractOptions): void {
  expect(extractToolCalls(text, options)).toEqual([]);
  for (const size of [1, 3, text.length]) {
    const events = streamInPieces(text, size, options);
    expect(events.some((e) => e.type === 'tool-call')).toBe(false);
    expect(events.some((e) => e.type === 'incomplete')).toBe(true);
  }
}
