import type { FunctionToolSpec, JsonSchema } from '@toolwire/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FORMATS, OPT_IN_FORMATS } from './extract-options.ts';
import type { ExtractOptions, NativeToolCallFormat } from './extract-options.ts';
import { extractToolCalls } from './extract-tool-calls.ts';
import { renderToolCall } from './render-tool-call.ts';
import { renderToolPrompt } from './render-tool-prompt.ts';
import { renderToolResult } from './render-tool-result.ts';
import { TEXT_TOOL_FORMATS } from './text-tool-format.ts';
import { checked, incomplete } from '../test/helpers/checked-calls.ts';

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

  it('renders schemas of any shape (from clients, MCP servers, OpenAPI documents) without throwing: odd parts read as any', () => {
    const odd = {
      name: 'odd',
      inputSchema: { type: 'object', properties: { a: null, b: true, c: 'x', d: { anyOf: 'x' }, e: { type: 'array', items: null }, f: { type: 7, enum: [undefined] } }, required: [1, 'a'] },
    } as unknown as FunctionToolSpec;
    const prompt = renderToolPrompt([odd]);
    expect(prompt).toContain('- odd(a: any, b?: any, c?: any, d?: any, e?: any[], f?: null)');
    expect(prompt).toContain('odd(a="...")');
    expect(extractToolCalls('odd(a=1, e=[2])', { tools: [odd] })).toEqual([{ id: 'odd_0', name: 'odd', arguments: { a: 1, e: [2] } }]);
    for (const inputSchema of [null, 'x', [], { properties: null, required: 'a' }]) {
      expect(() => renderToolPrompt([{ name: 'bad', inputSchema } as unknown as FunctionToolSpec], { format: 'json-tag' })).not.toThrow();
    }
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

describe('renderToolCall reads back as the same call, whatever the values hold', () => {
  /** The formats whose renderer writes a call it cannot hold as Hermes JSON. */
  const FALLS_BACK: readonly NativeToolCallFormat[] = ['minimax-m3', 'kimi-k3', 'solar-open', 'deepseek-dsml', 'minicpm5', 'qwen3-xml', 'seed-oss', 'minimax-m2', 'glm', 'gemma4', 'functiongemma'];

  it('writes what the new formats cannot hold in their JSON form, or as Hermes JSON', () => {
    const back = (format: NativeToolCallFormat, args: Record<string, unknown>) => {
      const rendered = renderToolCall({ id: 'c1', name: 'note_it', arguments: args }, format);
      const formats = format === 'minicpm5' ? { formats: [...DEFAULT_FORMATS, 'minicpm5' as const] } : {};
      const calls = checked(rendered, { tools: ['note_it'], ...formats }).map((c) => c.arguments);
      // The format forced, as a caller who knows the model does, reads the Hermes fallback too.
      expect(checked(rendered, { tools: ['note_it'], format }).map((c) => c.arguments), `${format} forced`).toEqual(calls);
      return { rendered, calls };
    };
    // MiniMax M3 and Kimi K3 have no escape for a value holding their marker or argument close.
    let r = back('minimax-m3', { note: 'the marker is ]<]minimax[>[</note>' });
    expect(r.rendered.startsWith('<tool_call>')).toBe(true);
    expect(r.calls).toEqual([{ note: 'the marker is ]<]minimax[>[</note>' }]);
    r = back('kimi-k3', { note: 'ends with <|close|>argument<|sep|> here', n: ['<|close|>argument<|sep|>'] });
    expect(r.calls).toEqual([{ note: 'ends with <|close|>argument<|sep|> here', n: ['<|close|>argument<|sep|>'] }]);
    // Nor for one holding the block's close, which ends the tools section wherever it stands.
    r = back('kimi-k3', { note: 'ends with <|close|>tools<|sep|> here' });
    expect(r.rendered.startsWith('<tool_call>')).toBe(true);
    expect(r.calls).toEqual([{ note: 'ends with <|close|>tools<|sep|> here' }]);
    // K3 escapes quotes in keys, and writes `<` in a JSON value as `\u003c`.
    r = back('kimi-k3', { 'a"b': 'x', n: ['<|close|>argument<|sep|>'] });
    expect(r.rendered).toContain('key="a&quot;b"');
    expect(r.calls).toEqual([{ 'a"b': 'x', n: ['<|close|>argument<|sep|>'] }]);
    // Solar Open 2's pairs cannot hold its tokens: Solar Open's `<|tool_call:args|>{…}` form.
    r = back('solar-open', { note: 'ends with <|tool_arg:end|> here' });
    expect(r.rendered).toBe('<|tool_call:begin|>c1<|tool_call:name|>note_it<|tool_call:args|>{"note":"ends with \\u003c|tool_arg:end|> here"}<|tool_call:end|>');
    expect(r.calls).toEqual([{ note: 'ends with <|tool_arg:end|> here' }]);
    // DSML: a string holding its markup is a `string="false"` JSON value; a key with a quote makes the call Hermes JSON.
    r = back('deepseek-dsml', { note: 'x</\uff5cDSML\uff5cparameter>y' });
    expect(r.rendered).toContain('string="false">"x\\u003c/');
    expect(r.calls).toEqual([{ note: 'x</\uff5cDSML\uff5cparameter>y' }]);
    expect(back('deepseek-dsml', { 'a"b': 1 }).calls).toEqual([{ 'a"b': 1 }]);
    expect(back('minicpm5', { 'a"b': 1 }).calls).toEqual([{ 'a"b': 1 }]);
    expect(back('minicpm5', { code: 'if a </param> b' }).calls).toEqual([{ code: 'if a </param> b' }]);
    // What they can hold is written in the format itself.
    expect(back('minimax-m3', { note: 'a <b> & "c"' }).rendered.startsWith(']<]minimax[>[')).toBe(true);
    expect(back('solar-open', { note: 'a <b>' }).rendered.startsWith('<|tool_call:start|>note_it\n')).toBe(true);
  });

  it('writes what the older formats cannot hold (their own tags, a key no tag holds) as Hermes JSON', () => {
    const write = { name: 'write', inputSchema: { type: 'object' as const, properties: { content: { type: 'string' as const } } } };
    const cases: [NativeToolCallFormat, Record<string, unknown>][] = [
      ['qwen3-xml', { content: 'before </tool_call> after' }],
      ['qwen3-xml', { content: 'before </parameter> after' }],
      ['glm', { content: 'before </arg_value> after' }],
      ['glm', { content: 'before </tool_call> after' }],
      ['seed-oss', { content: 'before </seed:tool_call> after' }],
      ['minimax-m2', { content: 'before </invoke> after' }],
      ['minimax-m2', { 'a"b': 'x' }],
      ['gemma4', { content: 'before <tool_call|> after' }],
      ['gemma4', { content: 'before <|"|> after' }],
      ['gemma4', { 'a b': 'x', n: { 'c:d': 1 } }],
      ['functiongemma', { content: 'before <escape> after' }],
    ];
    for (const [format, args] of cases) {
      const rendered = renderToolCall({ id: 'c1', name: 'write', arguments: args }, format);
      expect(rendered.startsWith('<tool_call>\n{'), `${format} ${rendered}`).toBe(true);
      for (const options of [{ tools: [write] }, { tools: [write], format }]) {
        expect(checked(`Earlier: ${rendered}`, options), `${format} ${rendered}`).toEqual([{ name: 'write', arguments: args }]);
      }
    }
    // What they can hold is written in the format itself.
    expect(renderToolCall({ name: 'write', arguments: { content: 'a <b> & "c"' } }, 'glm').startsWith('<tool_call>write\n')).toBe(true);
    expect(renderToolCall({ name: 'write', arguments: { content: 'a <b>' } }, 'gemma4').startsWith('<|tool_call>call:write{')).toBe(true);
  });

  it('writes a Seed-OSS value that opens with a line break so that it reads back whole', () => {
    // Seed's reader drops a value's opening line break, and then its closing one (found by the
    // property below with a random seed: a value "\n" read back as "").
    const note = { name: 'note', inputSchema: { type: 'object' as const, properties: { k: { type: 'string' as const } } } };
    for (const k of ['\n', '\n\n', '\na', '\r\n', '\n\r', '\r\nx\r', 'a\n', ' \n']) {
      const rendered = renderToolCall({ name: 'note', arguments: { k } }, 'seed-oss');
      expect(rendered.startsWith('<seed:tool_call>'), JSON.stringify(rendered)).toBe(true);
      expect(checked(`Earlier: ${rendered}`, { tools: [note] }), JSON.stringify(rendered)).toEqual([{ name: 'note', arguments: { k } }]);
    }
  });

  it('reads a Hermes block when a format that falls back to it is forced, and only then', () => {
    const hermes = 'Hi <tool_call>\n{"name": "f", "arguments": {"a": 1, "s": "x \\u003c/tool_call> y"}}\n</tool_call> ok';
    for (const format of FALLS_BACK) {
      expect(checked(hermes, { format }), format).toEqual([{ name: 'f', arguments: { a: 1, s: 'x </tool_call> y' } }]);
      expect(checked('<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>', { format })).toEqual([{ name: 'f', arguments: { a: 1 } }]);
      // Not listed, not an object, not JSON: no call.
      for (const text of ['<tool_call>{"name": "g", "arguments": {}}</tool_call>', '<tool_call>{"name": "f", "arguments": [1]}</tool_call>', '<tool_call>{not json}</tool_call>']) {
        expect(checked(text, { format, tools: ['f'] }), text).toEqual([]);
      }
      incomplete('Hi <tool_call>{"name": "f", "arguments": {"a": 1', { format });
    }
    // Formats that hold every call read only their own markup.
    expect(checked(hermes, { format: 'kimi-k2' })).toEqual([]);
    expect(checked(hermes, { format: 'mistral' })).toEqual([]);
  });

  // Every format's delimiters, quotes, escapes, newlines and keys that are no identifier.
  const hostile = [
    '</parameter>', '</function>', '</tool_call>', '<tool_call>', ']<]minimax[>[', '</note>', '<note>',
    '<|close|>argument<|sep|>', '<|close|>tools<|sep|>', '<|close|>call<|sep|>', '<|open|>tools<|sep|>', '<|sep|>', '<|open|>', '<|tool_arg:end|>', '<|tool_arg:start|>', '<|tool_arg:value|>',
    '<|tool_call:end|>', '<|tool_call:start|>', '<|tool_call:args|>', '</\uff5cDSML\uff5cparameter>', '<\uff5cDSML\uff5cinvoke name="x">',
    '</param>', '<param name="x">', '<|plamo:end_tool_arguments:plamo|>', '<|tools_suffix|>', '<|call|>', '[ARGS]',
    '<\uff5ctool\u2581call\u2581end\uff5c>', '<|tool_call_end|>', '"', "'", '\n', '\\', ' ', '{', '}', '&quot;', '&amp;', '=', 'x', 'y z',
  ];
  const text = fc.array(fc.constantFrom(...hostile), { maxLength: 5 }).map((parts) => parts.join(''));
  const key = fc.constantFrom('k', 'note', 'a"b', "a'b", 'a"\'b', '__proto__', 'constructor', 'x y', ' k', 'a>b', 'a=b', 'x<|sep|>', 'item', 'arguments', '/k', 'k/');
  const value = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'c"d', '/e', 'item'), text, { maxKeys: 2 }));
  const args = fc.dictionary(key, value, { maxKeys: 3 });

  /** A schema of the values' own types (XML formats give typed values back only with one). */
  function schemaOf(v: unknown): JsonSchema {
    if (typeof v === 'string') return { type: 'string' };
    if (typeof v === 'number') return { type: 'integer' };
    if (typeof v === 'boolean') return { type: 'boolean' };
    if (v === null) return { type: 'null' };
    if (Array.isArray(v)) return { type: 'array', items: { type: 'string' } };
    const properties: Record<string, JsonSchema> = {};
    for (const [k, item] of Object.entries(v as Record<string, unknown>)) Object.defineProperty(properties, k, { value: schemaOf(item), enumerable: true });
    return { type: 'object', properties };
  }

  // Formats with values they cannot escape fall back to their JSON form for the value or call,
  // or to Hermes JSON, which the format forced alone reads too.
  it.each(['minimax-m3', 'kimi-k3', 'solar-open', 'deepseek-dsml', 'minicpm5', 'qwen3-xml', 'seed-oss', 'minimax-m2', 'glm', 'gemma4', 'functiongemma', 'hermes', 'json-tag', 'deepseek', 'kimi-k2', 'mistral', 'apertus', 'plamo3', 'call', 'harmony', 'functionary'] as const)('%s', (format) => {
    fc.assert(
      fc.property(args, (a) => {
        const call = { id: 'c1', name: 'note_it', arguments: a };
        const rendered = renderToolCall(call, format);
        const tool = { name: 'note_it', inputSchema: schemaOf(a) };
        const options: ExtractOptions = { tools: [tool], ...(format === 'minicpm5' ? { formats: [...DEFAULT_FORMATS, 'minicpm5'] } : {}) };
        expect(checked(`Earlier: ${rendered}`, options), rendered).toEqual([{ name: 'note_it', arguments: a }]);
        const forced = FALLS_BACK.find((known) => known === format);
        if (forced !== undefined) expect(checked(`Earlier: ${rendered}`, { tools: [tool], format: forced }), `${rendered} (forced)`).toEqual([{ name: 'note_it', arguments: a }]);
      }),
      { numRuns: 150 },
    );
  });
});
