import type { FunctionToolSpec } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FORMATS, OPT_IN_FORMATS } from './extract-options.ts';
import type { ExtractOptions } from './extract-options.ts';
import { extractToolCalls } from './extract-tool-calls.ts';
import { renderToolCall } from './render-tool-call.ts';
import { renderToolPrompt } from './render-tool-prompt.ts';
import { renderToolResult } from './render-tool-result.ts';
import { TEXT_TOOL_FORMATS } from './text-tool-format.ts';

const search: FunctionToolSpec = {
  type: 'function',
  name: 'search',
  description: 'Search the docs.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to look for.' },
      limit: { type: 'integer' },
      sort: { enum: ['asc', 'desc'] },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['query'],
  },
};

describe('renderToolPrompt', () => {
  it('lists each tool with its parameters, teaches call syntax with an example, and says how to answer without a tool', () => {
    expect(renderToolPrompt([search])).toBe(
      [
        'You can call these tools:',
        '- search(query: string, limit?: integer, sort?: "asc" | "desc", tags?: string[]): Search the docs.',
        '    query: What to look for.',
        '',
        'To call a tool, write the call on its own line with named arguments and JSON values (strings in double quotes), e.g.:',
        'search(query="...")',
        'Write one call per line (several if needed), then stop: the results come back in the next message.',
        'If no tool is needed, answer in plain text without any call.',
      ].join('\n'),
    );
  });

  it('teaches <tool_call> JSON as an option', () => {
    const prompt = renderToolPrompt([search], { format: 'json-tag' });
    expect(prompt).toContain('inside <tool_call></tool_call> tags');
    expect(prompt).toContain('<tool_call>{"name": "search", "arguments": {"query": "..."}}</tool_call>');
  });

  it('says a call is required, or which tool must be called', () => {
    expect(renderToolPrompt([search], { toolChoice: 'required' })).toContain('You must call at least one of these tools');
    expect(renderToolPrompt([search], { toolChoice: { type: 'tool', name: 'search' } })).toContain('You must call the tool search');
  });

  it('asks for one call at most when parallel calls are off', () => {
    expect(renderToolPrompt([search], { parallelToolCalls: false })).toContain('Call at most one tool per answer');
  });

  it('renders nothing without tools or for toolChoice none', () => {
    expect(renderToolPrompt([])).toBe('');
    expect(renderToolPrompt([search], { toolChoice: 'none' })).toBe('');
  });

  it('gives an example the extractor reads back', () => {
    const example = renderToolPrompt([search]).split('\n')[5] ?? '';
    expect(extractToolCalls(example, { tools: [search] })).toEqual([{ id: 'search_0', name: 'search', arguments: { query: '...' } }]);
  });
});

describe('renderToolResult', () => {
  it('renders a success with the call it answers', () => {
    expect(renderToolResult({ toolCallId: 'c1', name: 'search', success: true, message: '3 hits' })).toBe('Result of search (call c1):\n3 hits');
  });

  it('renders a failure with its error type so the model can react', () => {
    expect(
      renderToolResult({
        toolCallId: 'c2',
        name: 'search',
        success: false,
        message: 'failed',
        error: { type: 'validation_error', message: 'limit: must be <= 100, got 500' },
      }),
    ).toBe('Error from search (call c2, validation_error):\nlimit: must be <= 100, got 500');
  });
});

describe('renderToolCall', () => {
  const call = { name: 'search', arguments: { query: 'a "b" (c)', limit: 5, tags: ['x'], filter: { max: 1 } } };

  it('writes call syntax that parses back to the same call', () => {
    const text = renderToolCall(call);
    expect(text).toBe('search(query="a \\"b\\" (c)", limit=5, tags=["x"], filter={"max":1})');
    expect(extractToolCalls(text)[0]?.arguments).toEqual(call.arguments);
  });

  it('writes <tool_call> JSON that parses back to the same call', () => {
    expect(extractToolCalls(renderToolCall(call, 'json-tag'))[0]?.arguments).toEqual(call.arguments);
  });

  it('uses the object form for keys that are not identifiers', () => {
    const text = renderToolCall({ name: 'f', arguments: { 'a b': 1 } });
    expect(text).toBe('f({"a b":1})');
    expect(extractToolCalls(text)[0]?.arguments).toEqual({ 'a b': 1 });
  });
});

describe('renderToolCall in every text format', () => {
  const call = { name: 'set_alarm', arguments: { time: '07:00 <b> "x"', label: 'gym, {a}: b', minutes: 45, repeat: false, days: ['mon'] } };
  const schema = {
    type: 'object' as const,
    properties: {
      time: { type: 'string' as const },
      label: { type: 'string' as const },
      minutes: { type: 'integer' as const },
      repeat: { type: 'boolean' as const },
      days: { type: 'array' as const, items: { type: 'string' as const } },
    },
  };

  /** The formats to read `format` back with: the default set, and a format read only when asked for. */
  const readBack = (format: string): ExtractOptions => {
    const optIn = OPT_IN_FORMATS.find((known) => known === format);
    return optIn === undefined ? {} : { formats: [...DEFAULT_FORMATS, optIn] };
  };

  it.each(TEXT_TOOL_FORMATS)('%s parses back to the same call', (format) => {
    const text = `Sure.\n${renderToolCall(call, format)}\nDone.`;
    expect(extractToolCalls(text, { tools: [{ name: 'set_alarm', inputSchema: schema }], ...readBack(format) }).map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual([call]);
  });

  it.each(TEXT_TOOL_FORMATS)('renderToolPrompt teaches %s with an example that parses', (format) => {
    const prompt = renderToolPrompt([search], { promptFormat: format });
    const exampleLine = prompt.split('e.g.:\n')[1] ?? '';
    expect(extractToolCalls(exampleLine, { tools: [search], ...readBack(format) }).map((c) => c.name)).toEqual(['search']);
  });
});
