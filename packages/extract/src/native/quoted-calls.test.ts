import { describe, expect, it } from 'vitest';
import type { ExtractableTool } from '../extract-options.ts';
import { extractToolCalls } from '../extract-tool-calls.ts';
import { createToolCallParser } from '../tool-call-parser.ts';
import type { ToolCallParserEvent } from '../tool-call-parser-event.ts';
import { quotedOpens } from './native-opener.ts';

describe('quotedOpens', () => {
  it('counts calls quoted in a value, not a next call after </function>', () => {
    expect(quotedOpens('x = """\n<tool_call>\n<function=f>', 0, 30, 0)).toBe(1);
    expect(quotedOpens('</function>\n<tool_call>\n<function=g>', 0, 40, 0)).toBe(0);
    expect(quotedOpens('the <tool_call> tag', 0, 19, 0)).toBe(0);
  });
});

describe('a Qwen3-XML value quoting a whole call', () => {
  const tools: ExtractableTool[] = [{ name: 'write_file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } } }];
  const quoted = 'doc = """\n<tool_call>\n<function=write_file>\n<parameter=path>\nx.txt\n</parameter>\n</function>\n</tool_call>\n"""';
  const call = (content: string, after = ''): string =>
    `<tool_call>\n<function=write_file>\n<parameter=path>\nfixture.py\n</parameter>\n<parameter=content>\n${content}\n</parameter>\n</function>\n</tool_call>${after}`;
  // One chunk per character (the texts are ASCII), as a token stream of single characters.
  const characters = (s: string): string[] => Array.from({ length: s.length }, (_, i) => s.charAt(i));

  function streamed(chunks: readonly string[]): { args: unknown[]; text: string } {
    const parser = createToolCallParser({ tools });
    const events: ToolCallParserEvent[] = [];
    for (const chunk of chunks) events.push(...parser.push(chunk));
    events.push(...parser.end());
    return {
      args: events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall.arguments] : [])),
      text: events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join(''),
    };
  }

  it('keeps the quoted call in the value, in batch and streaming', () => {
    const text = call(quoted, '\nDone.');
    expect(extractToolCalls(text, { tools }).map((c) => c.arguments)).toEqual([{ path: 'fixture.py', content: quoted }]);
    for (const chunks of [[text], characters(text)]) expect(streamed(chunks)).toEqual({ args: [{ path: 'fixture.py', content: quoted }], text: '\nDone.' });
  });

  it('ends the block at the first </tool_call> when the quoted call never closes', () => {
    const open = 'x = "<tool_call>\n<function=f>"';
    const text = call(open, '\nafter');
    expect(extractToolCalls(text, { tools }).map((c) => c.arguments)).toEqual([{ path: 'fixture.py', content: open }]);
    for (const chunks of [[text], characters(text)]) expect(streamed(chunks)).toEqual({ args: [{ path: 'fixture.py', content: open }], text: '\nafter' });
  });

  it('reads a next call written after a forgotten </tool_call> as before', () => {
    const text = '<tool_call>\n<function=write_file>\n<parameter=path>\na\n</parameter>\n</function>\n<tool_call>\n<function=write_file>\n<parameter=path>\nb\n</parameter>\n</function>\n</tool_call>\nDone.';
    expect(extractToolCalls(text, { tools }).map((c) => c.arguments)).toEqual([{ path: 'a' }, { path: 'b' }]);
    expect(streamed(characters(text))).toEqual({ args: [{ path: 'a' }, { path: 'b' }], text: '\nDone.' });
  });
});
