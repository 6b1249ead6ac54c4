// Batch extraction reads a call's arguments in one pass from its `(` (core's
// `parseCallArguments`), falling back to the frame scanner and `parseArguments` when that
// reading fails. Both ways must find the same calls, with the same arguments, in the same
// order, on any text: random call-like text full of near misses, rendered calls with text
// cut off or added, and the real corpus.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { JsonSchema, ToolCall } from '@toolwire/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveExtractOptions } from './extract-options.ts';
import type { ExtractOptions } from './extract-options.ts';
import { renderToolCall } from './render-tool-call.ts';
import { ToolCallScanner } from './tool-call-scanner.ts';

function calls(text: string, options: ExtractOptions | undefined, onePass: boolean): ToolCall[] {
  const scanner = new ToolCallScanner(resolveExtractOptions(options), false, onePass);
  scanner.scanWhole(text);
  return scanner.calls;
}

/** The same calls both ways: equal values (`-0` too) and the same key order. */
function expectSame(text: string, options?: ExtractOptions): void {
  const one = calls(text, options, true);
  const two = calls(text, options, false);
  if (!isDeepStrictEqual(one, two) || JSON.stringify(one) !== JSON.stringify(two)) {
    expect({ text, one }).toStrictEqual({ text, one: two });
  }
}

// Pieces of call syntax and its near misses: unclosed strings, `)` inside strings, nested
// calls, triple quotes, comments, apostrophes, escapes, mismatched brackets, JSON objects.
const PIECES = [
  'f(',
  'get_weather(',
  'a.b(',
  'x=',
  'q: ',
  '"',
  "'",
  '"""',
  ')',
  '(',
  '[',
  ']',
  '{',
  '}',
  ',',
  ' ',
  '\n',
  '\\',
  '\\"',
  '#',
  '# comment )\n',
  "don't",
  'x',
  '1',
  '-3',
  '1.5e3',
  'True',
  'None',
  'null',
  '"a)b"',
  "'(c'",
  '{"k": 1}',
  '=',
  '==',
  'é',
  '东京',
  '\u00a0',
  "\u00a0'",
  '\ufeff',
  'def f(',
  '<tool_call>',
  '__proto__=',
];
const nearMiss = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(''));

const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,5}$/);
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ unit: fc.constantFrom('a', '(', ')', '"', "'", '\\', ',', '{', '}', '[', ']', '=', ' ', '\n', '#'), maxLength: 10 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const call = fc.record({ name: fc.constantFrom('f', 'get_weather', 'a.b'), arguments: fc.dictionary(key, value, { maxKeys: 4 }) });

/** Rendered calls with text around them, some cut short or with a piece spliced in. */
const rendered = fc
  .tuple(fc.array(fc.tuple(call, nearMiss), { minLength: 1, maxLength: 3 }), fc.nat(), fc.nat(), nearMiss)
  .map(([parts, cut, at, splice]) => {
    const text = parts.map(([c, after]) => renderToolCall(c, 'call') + after).join(' ');
    const end = cut % 3 === 0 ? text.length : cut % (text.length + 1);
    const place = at % (end + 1);
    return text.slice(0, place) + (at % 4 === 0 ? splice : '') + text.slice(place, end);
  });

const TOOLS = ['f', 'get_weather', 'a.b'];
const SCHEMA: JsonSchema = {
  type: 'object',
  properties: { x: { type: 'integer' }, q: { type: 'string' }, a: { type: 'array' }, b: { type: 'boolean' }, o: { type: 'object' } },
};
const TYPED = TOOLS.map((name) => ({ name, inputSchema: SCHEMA }));

interface CorpusEntry {
  tools: string[];
  text: string;
  functions: { name: string; parameters: JsonSchema }[];
}

const entries: CorpusEntry[] = gunzipSync(readFileSync(new URL('./__fixtures__/bfcl-airev-agent-0.8b.jsonl.gz', import.meta.url)))
  .toString('utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as CorpusEntry);

describe('one-pass reading of call arguments', () => {
  it('finds the same calls as the two-pass reading on random near-miss text', () => {
    fc.assert(
      fc.property(nearMiss, (text) => {
        expectSame(text);
        expectSame(text, { tools: TOOLS });
        expectSame(text, { tools: TYPED });
      }),
      { numRuns: 3000 },
    );
  });

  it('finds the same calls as the two-pass reading on rendered calls cut short or spliced', () => {
    fc.assert(
      fc.property(rendered, (text) => {
        expectSame(text);
        expectSame(text, { tools: TYPED });
      }),
      { numRuns: 2000 },
    );
  });

  it('finds the same calls as the two-pass reading on the corpus, whole and cut at random points', () => {
    let cut = 7;
    for (const entry of entries) {
      const typed = entry.functions.map((f) => ({ name: f.name, inputSchema: f.parameters }));
      expectSame(entry.text);
      expectSame(entry.text, { tools: entry.tools });
      expectSame(entry.text, { tools: typed });
      cut = (cut * 1_103_515_245 + 12_345) % 2_147_483_648;
      const short = entry.text.slice(0, cut % (entry.text.length + 1));
      expectSame(short);
      expectSame(`${short})`, { tools: typed });
    }
  });

  it('reads the documented edge cases the same way', () => {
    for (const text of [
      'f(a="x)")',
      "f(a='it)s', b=don't)",
      'f(a="""x)""")',
      'f(a=1) # f(b=2)',
      'f(a=g(h(1)), b=[1, (2, 3)])',
      'f(a=g(h(1), b=2)',
      'f(a="unclosed) and more',
      'f(a=[1, 2)] f(b=1)',
      'f({"a": 1}) f({"a": 1},)',
      'f(a=1,) f(1, 2, x=3) f() f( )',
      'f(x=) f(=1) f(x=1 y=2) f(x=1, , y)',
      'f(a="\\")") f(a="\\\\")',
      'f(__proto__=1)',
      'a(a(a(a(',
      '[f(a=1), f(a=1), g(b="x")]',
      // A quote after a no-break space opens a string, in the scan as in the reading.
      "f(a=\u00a0'x)') f(a=\u00a0'x)', b=[[1]]) f(a=\ufeff'y ', b=[[2]]) g(c=3)",
      // A string with its own quotes inside, read on past a bracket of the wrong kind (`(]`,
      // where the scan gives up on the call): no call either way.
      'f()f(" f(_a={"a":0}, _="(]\\"")',
    ]) {
      expectSame(text);
      expectSame(text, { tools: TYPED });
    }
  });

  it('reads calls longer than a one-pass reading goes, and calls after many broken ones, the same way', () => {
    const long = `f(a="${'x)'.repeat(20_000)}", b=[${'1, '.repeat(10_000)}2])`;
    expectSame(`${long} g(x=1)`);
    expect(calls(long, undefined, true)).toHaveLength(1);
    const broken = `${'f(x=[1)] '.repeat(50)}g(y=2) ${'h(z=1]) '.repeat(3)}g(y=3)`;
    expectSame(broken);
    expect(calls(broken, undefined, true).map((c) => c.arguments)).toEqual([{ y: 2 }, { y: 3 }]);
  });
});
