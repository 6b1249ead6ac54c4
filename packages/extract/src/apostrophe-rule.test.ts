import { describe, expect, it } from 'vitest';
import { parseArguments } from '@toolwire/core';
import { isWordUnit } from './identifier.ts';
import { extractToolCalls } from './extract-tool-calls.ts';
import { createToolCallParser } from './tool-call-parser.ts';
import type { ExtractableTool } from './extract-options.ts';

/*
 * Core's argument reading and this package's call scan must agree on which characters make a
 * following `'` an apostrophe (core keeps its own copy of `isWordUnit`, as it cannot depend on
 * this package): where they differ, a call read in one pass (batch with a schema) and a call
 * whose `)` the scan found (streaming) end at different places.
 */
const SYNTAX = Array.from(`"'\\,()[]{}=:`, (ch) => ch.charCodeAt(0));

describe("the apostrophe rule: core's reading and the call scan agree", () => {
  const tools: ExtractableTool[] = [{ name: 'f', inputSchema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } } }];

  it('for every UTF-16 code unit before a quote', () => {
    const disagree: number[] = [];
    for (let c = 0; c < 0x10000; c++) {
      // Lone surrogates aside, and the characters that are syntax to both readings.
      if ((c >= 0xd800 && c <= 0xdfff) || SYNTAX.includes(c)) continue;
      const ch = String.fromCharCode(c);
      const word = isWordUnit(c);
      // Unquoted text: an apostrophe after `ch` leaves `, c=` a second argument; a quote
      // opens a string that holds it.
      const unquoted = Object.keys(parseArguments(`a=y${ch}'b, c=1'`)).length === 2;
      // The quote rule's search after `'x'y`: an apostrophe after `ch` leaves the search at
      // `, b=` (two arguments); a quote opens a string there, and the last `'` ends the value.
      const searched = Object.keys(parseArguments(`a='x'y${ch}'z, b=1'`)).length === 2;
      if (unquoted !== word || searched !== word) disagree.push(c);
    }
    expect(disagree).toEqual([]);
  });

  it('batch and streamed alike for the characters at the edges', () => {
    for (const c of [0x20, 0x41, 0x5f, 0x7f, 0x80, 0xa0, 0xe9, 0x2028, 0x3000, 0xfeff, 0xff5c]) {
      const text = `f(a='x'y${String.fromCharCode(c)}', b=1) done`;
      const batch = extractToolCalls(text, { tools });
      const parser = createToolCallParser({ tools });
      const events = [...Array.from(text).flatMap((ch) => parser.push(ch)), ...parser.end()];
      expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(batch);
    }
  });
});
