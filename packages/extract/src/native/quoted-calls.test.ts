import { describe, expect, it } from 'vitest';
import type { ExtractableTool } from '../extract-options.ts';
import { extractToolCalls } from '../extract-tool-calls.ts';
import { createToolCallParser } from '../tool-call-parser.ts';
import type { ToolCallParserEvent } from '../tool-call-parser-event.ts';
import { quotedOpens } from './native-opener.ts';
import { quotedCallSpans } from './xml-calls.ts';

describe('quotedOpens', () => {
  it('counts calls quoted in a value, not a next call after </function>', () => {
    expect(quotedOpens('x = """\n<tool_call>\n<function=f>', 0, 30, 0)).toBe(1);
    expect(quotedOpens('</function>\n<tool_call>\n<function=g>', 0, 40, 0)).toBe(0);
    expect(quotedOpens('the <tool_call> tag', 0, 19, 0)).toBe(0);
  });
});

describe('quotedCallSpans', () => {
  it('spans each quoted call through its own closing token, not the block opener or closer', () => {
    const q = '<tool_call>\n<function=g>\n</function>\n</tool_call>';
    const text = `<tool_call>\n<function=f>\n<parameter=a>\n${q} ${q}\n</parameter>\n</function>\n</tool_call>`;
    const first = text.indexOf(q, 1);
    const second = text.indexOf(q, first + 1);
    expect(quotedCallSpans(text, 0, text.length)).toEqual([first, first + q.length, second, second + q.length]);
  });

  it('makes no span for a quoted call that never closes inside the block', () => {
    const text = '<tool_call>\n<function=f>\n<parameter=a>\nx = "<tool_call>\n<function=g>"\n</parameter>\n</function>\n</tool_call>';
    expect(quotedCallSpans(text, 0, text.length)).toEqual([]);
  });
});

describe('a Qwen3-XML value quoting a whole call', () => {
  const tools: ExtractableTool[] = [{ name: 'write_file', inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } } }];
  const quoted = 'doc = """\n<tool_call>\n<function=write_file>\n<parameter=path>\nx.txt\n</parameter>\n</function>\n</tool_call>\n"""';
  const call = (content: string, after = ''): string =>
    `<tool_call>\n<function=write_file>\n<parameter=path>\nfixture.py\n</parameter>\n<parameter=content>\n${content}\n</parameter>\n</function>\n</tool_call>${after}`;
  // One chunk per character (the texts are ASCII), as a token stream of single characters.
  const characters = (s: string): string[] => Array.from({ length: s.length }, (_, i) => s.charAt(i));

  function streamed(chunks: readonly string[]): { args: unknown[]; text: string; incomplete?: string } {
    const parser = createToolCallParser({ tools });
    const events: ToolCallParserEvent[] = [];
    for (const chunk of chunks) events.push(...parser.push(chunk));
    events.push(...parser.end());
    const incomplete = events.flatMap((e) => (e.type === 'incomplete' ? [e.text] : []));
    return {
      args: events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall.arguments] : [])),
      text: events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join(''),
      ...(incomplete.length === 0 ? {} : { incomplete: incomplete.join('') }),
    };
  }

  it('keeps the quoted call in the value, in batch and streaming', () => {
    const text = call(quoted, '\nDone.');
    expect(extractToolCalls(text, { tools }).map((c) => c.arguments)).toEqual([{ path: 'fixture.py', content: quoted }]);
    for (const chunks of [[text], characters(text)]) expect(streamed(chunks)).toEqual({ args: [{ path: 'fixture.py', content: quoted }], text: '\nDone.' });
  });

  it('is incomplete when the text ends right after a quoted call: never a guessed call', () => {
    const quotedRun = '<tool_call>\n<function=run>\n<parameter=path>\nx\n</parameter>\n</function>\n</tool_call>';
    const text = `<tool_call>\n<function=write_file>\n<parameter=path>\nt.py\n</parameter>\n<parameter=content>\nA = """\n${quotedRun}`;
    expect(extractToolCalls(text, { tools })).toEqual([]);
    for (const chunks of [[text], characters(text)]) expect(streamed(chunks)).toEqual({ args: [], text: '', incomplete: text });
  });

  it('waits for one more </tool_call> when a quoted call never closes, and is incomplete without it', () => {
    const open = 'x = "<tool_call>\n<function=f>"';
    const text = call(open, '\nafter');
    expect(extractToolCalls(text, { tools })).toEqual([]);
    for (const chunks of [[text], characters(text)]) expect(streamed(chunks)).toEqual({ args: [], text: '', incomplete: text });
  });

  it('keeps two quoted calls in the value: neither becomes a call', () => {
    const run = (v: string): string => `<tool_call>\n<function=run>\n<parameter=path>\n${v}\n</parameter>\n</function>\n</tool_call>`;
    const content = `A = """\n${run('x')}\n"""\nB = """\n${run('rm -rf /')}\n"""`;
    const text = call(content, '\nDone.');
    expect(extractToolCalls(text, { tools }).map((c) => [c.name, c.arguments])).toEqual([['write_file', { path: 'fixture.py', content }]]);
    for (const chunks of [[text], characters(text)]) expect(streamed(chunks)).toEqual({ args: [{ path: 'fixture.py', content }], text: '\nDone.' });
  });

  it('does not take a parameter of a quoted call into the outer call, without a schema or with names only', () => {
    const content = 'doc = """\n<tool_call>\n<function=run>\n<parameter=command>\nrm -rf /\n</parameter>\n</function>\n</tool_call>\n"""';
    const text = call(content);
    expect(extractToolCalls(text).map((c) => c.arguments)).toEqual([{ path: 'fixture.py', content }]);
    expect(extractToolCalls(text, { tools: [{ name: 'write_file' }] }).map((c) => c.arguments)).toEqual([{ path: 'fixture.py', content }]);
  });

  it('reads a next call written after a forgotten </tool_call> as before', () => {
    const text = '<tool_call>\n<function=write_file>\n<parameter=path>\na\n</parameter>\n</function>\n<tool_call>\n<function=write_file>\n<parameter=path>\nb\n</parameter>\n</function>\n</tool_call>\nDone.';
    expect(extractToolCalls(text, { tools }).map((c) => c.arguments)).toEqual([{ path: 'a' }, { path: 'b' }]);
    expect(streamed(characters(text))).toEqual({ args: [{ path: 'a' }, { path: 'b' }], text: '\nDone.' });
  });
});
