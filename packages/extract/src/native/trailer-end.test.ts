import { describe, expect, it } from 'vitest';
import { extractToolCalls } from '../extract-tool-calls.ts';
import { createToolCallParser } from '../tool-call-parser.ts';
import type { ToolCallParserEvent } from '../tool-call-parser-event.ts';
import { trailerEnd } from './native-opener.ts';

describe('trailerEnd', () => {
  it('takes the trailer after space, and nothing before other text', () => {
    expect(trailerEnd('x\n</tool_call>ok', 1, '</tool_call>', false)).toBe(14);
    expect(trailerEnd('x</tool_call>', 1, '</tool_call>', false)).toBe(13);
    expect(trailerEnd('x\nok', 1, '</tool_call>', false)).toBe(1);
    expect(trailerEnd('x\n</tool>', 1, '</tool_call>', false)).toBe(1);
  });

  it('waits while the text ends in space or inside the trailer, unless it is final', () => {
    expect(trailerEnd('x\n', 1, '</tool_call>', false)).toBe(-1);
    expect(trailerEnd('x\n</tool_c', 1, '</tool_call>', false)).toBe(-1);
    expect(trailerEnd('x\n</tool_c', 1, '</tool_call>', true)).toBe(1);
  });

  it('reads at most a few spaces before the trailer', () => {
    expect(trailerEnd(`x${' '.repeat(40)}</tool_call>`, 1, '</tool_call>', false)).toBe(1);
  });
});

describe('a Qwen3 XML call written without <tool_call> but closed with </tool_call>', () => {
  const text = 'Let me call it.\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>\nDone.';

  // One chunk per character (the texts are ASCII), as a token stream of single characters.
  const characters = (s: string): string[] => Array.from({ length: s.length }, (_, i) => s.charAt(i));

  function streamed(chunks: readonly string[]): { calls: string[]; text: string } {
    const parser = createToolCallParser();
    const events: ToolCallParserEvent[] = [];
    for (const chunk of chunks) events.push(...parser.push(chunk));
    events.push(...parser.end());
    return {
      calls: events.flatMap((e) => (e.type === 'tool-call' ? [e.text] : [])),
      text: events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join(''),
    };
  }

  it('takes the closing tag into the call, in batch and streaming', () => {
    expect(extractToolCalls(text)).toEqual([{ id: 'f_0', name: 'f', arguments: { a: '1' } }]);
    for (const chunks of [[text], characters(text)]) {
      const out = streamed(chunks);
      expect(out.text).toBe('Let me call it.\n\nDone.');
      expect(out.calls).toEqual(['<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>']);
    }
  });

  it('ends the call at </function> when the text ends there or goes on otherwise', () => {
    for (const tail of ['', '\n', '\n</tool_c', '\nok']) {
      const whole = `<function=f>\n<parameter=a>\n1\n</parameter>\n</function>${tail}`;
      expect(extractToolCalls(whole)).toEqual([{ id: 'f_0', name: 'f', arguments: { a: '1' } }]);
      expect(streamed(characters(whole)).text).toBe(tail);
      expect(streamed([whole]).text).toBe(tail);
    }
  });
});

describe('a bare Qwen3 XML call whose </function> came inside a longer chunk', () => {
  it('comes out as soon as text other than its trailer follows, one character at a time', () => {
    const parser = createToolCallParser();
    expect(parser.push('<function=f>\n<parameter=a>\n1\n</parameter>\n</function>').map((e) => e.type)).toEqual([]);
    expect(parser.push('\n').map((e) => e.type)).toEqual([]);
    // `H` cannot begin `</tool_call>`: the call ends at `</function>`, before end().
    const atH = parser.push('H');
    expect(atH.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual([{ id: 'f_0', name: 'f', arguments: { a: '1' } }]);
    const rest = [...parser.push('i'), ...parser.end()];
    expect(rest.some((e) => e.type === 'tool-call')).toBe(false);
    expect([...atH, ...rest].flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('')).toBe('\nHi');
  });
});
