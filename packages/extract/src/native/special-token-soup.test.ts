import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExtractOptions } from '../extract-options.ts';
import { extractToolCalls } from '../extract-tool-calls.ts';
import { streamInPieces } from '../../test/helpers/stream-in-pieces.ts';

// Pieces of the special-token formats (and reasoning) in any order: every mix must read the
// same in batch and streaming, and the events must give back the text. Such a mix found a name
// running into Gemma's `<|channel>thought` opener.
const PIECES = [
  '<think>',
  '</think>',
  'I think ',
  ' ',
  '\n',
  '<|tool_calls_section_begin|>',
  '<|tool_calls_section_end|>',
  '<|tool_call_begin|>',
  'functions.f:0',
  'g:1',
  '<|tool_call_argument_begin|>',
  '{"a": 1}',
  '{"b": "x}"}',
  '<|tool_call_end|>',
  ' to=functions.f',
  '<|channel|>analysis<|message|>',
  '<|channel|>commentary to=functions.g <|constrain|>json<|message|>',
  '<|channel|>final<|message|>',
  '<|start|>assistant',
  '<|end|>',
  '<|call|>',
  '<|channel|>',
  '<|tool_call>call:h{x:<|"|>y<|"|>}<tool_call|>',
  '<start_function_call>call:k{x:<escape>y<escape>}<end_function_call>',
  '<|channel>thought',
  '<channel|>',
  '<\uff5ctool\u2581calls\u2581begin\uff5c>',
  '<\uff5ctool\u2581call\u2581begin\uff5c>',
  'function',
  '<\uff5ctool\u2581sep\uff5c>',
  'd\n```json\n{"c": 2}\n```',
  '<\uff5ctool\u2581call\u2581end\uff5c>',
  '<\uff5ctool\u2581calls\u2581end\uff5c>',
  'f(a=1)',
  '<steptml:invoke name="s"><steptml:parameter name="q">v</steptml:parameter></steptml:invoke>',
  '<\uff5ctool_call_begin\uff5c>',
];

const OPTIONS: readonly (ExtractOptions | undefined)[] = [
  undefined,
  { startInReasoning: true },
  { tools: ['f', 'g', 'h', 'k', 'd'] },
  { callsInReasoning: true },
  { callsInReasoning: true, startInReasoning: true },
  { format: 'kimi-k2' },
  { format: 'harmony' },
];

const stream = streamInPieces;

describe('special-token formats mixed', () => {
  it('read the same in batch and at every chunking, and the events give back the text', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 12 }), fc.constantFrom(...OPTIONS), fc.integer({ min: 1, max: 9 }), (pieces, options, size) => {
        const text = pieces.join('');
        const batch = extractToolCalls(text, options);
        const events = stream(text, size, options);
        expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(batch);
        expect(events.map((e) => ('text' in e ? e.text : '')).join('')).toBe(text);
      }),
      { numRuns: 1500 },
    );
  });
});
