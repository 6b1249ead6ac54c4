import { describe, expect, it } from 'vitest';
import { CallTextCleaner } from './call-text-cleaner.ts';
import { ALL_FORMATS } from './extract-options.ts';
import type { ExtractOptions } from './extract-options.ts';
import { extractToolCalls } from './extract-tool-calls.ts';
import { renderToolCall } from './render-tool-call.ts';
import { createToolCallParser } from './tool-call-parser.ts';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';
import { checked, incomplete } from '../test/helpers/checked-calls.ts';

// Spellings of the native formats by newer model families (DeepSeek V4.1, GigaChat 3.5,
// Hunyuan HY v3/v4, IQuest Coder V2, K2 Horizon, dots, FunctionGemma), from the syntax their
// vLLM parsers document.


function stream(text: string, size: number, options?: ExtractOptions): ToolCallParserEvent[] {
  const parser = createToolCallParser(options);
  const events: ToolCallParserEvent[] = [];
  for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
  events.push(...parser.end());
  return events;
}


/** The text events of a stream, joined: what is left outside the calls. */
function textOutside(text: string, options?: ExtractOptions): string {
  return stream(text, 4, options)
    .flatMap((e) => (e.type === 'text' ? [e.text] : []))
    .join('');
}

const weather = {
  name: 'get_weather',
  inputSchema: {
    type: 'object' as const,
    properties: {
      city: { type: 'string' as const },
      days: { type: 'integer' as const },
      metric: { type: 'boolean' as const },
      filters: { type: 'object' as const },
      tags: { type: 'array' as const, items: { type: 'string' as const } },
    },
  },
};

describe('DeepSeek V4.1 DSML (a space after the marker, `calls`)', () => {
  const D = '\uff5cDSML\uff5c ';
  const calls = (body: string) => `<${D}calls>\n${body}</${D}calls>`;
  const invoke = (name: string, params: string) => `<${D}invoke name="${name}">\n${params}</${D}invoke>\n`;
  const param = (name: string, value: string, string = true) => `<${D}parameter name="${name}" string="${String(string)}">${value}</${D}parameter>\n`;

  it('reads several invokes with text around them, JSON for string="false" and verbatim text for string="true"', () => {
    const text = `Let me check. ${calls(
      invoke('get_weather', param('city', 'Hangzhou') + param('filters', '{"lang": "en", "nested": {"a": [1, "}"]}}', false)) + invoke('calc', param('x', '2', false)),
    )} Done.`;
    expect(checked(text)).toEqual([
      { name: 'get_weather', arguments: { city: 'Hangzhou', filters: { lang: 'en', nested: { a: [1, '}'] } } } },
      { name: 'calc', arguments: { x: 2 } },
    ]);
    expect(textOutside(text)).toBe('Let me check.  Done.');
  });

  it('keeps a value holding the format’s own tags, and unwraps a lone arguments parameter', () => {
    const value = `a </${D}invoke> b <${D}parameter name="x" string="true">c`;
    expect(checked(calls(invoke('note', param('body', value))))).toEqual([{ name: 'note', arguments: { body: value } }]);
    expect(checked(calls(invoke('f', param('arguments', '{"a": 1}', false))))).toEqual([{ name: 'f', arguments: { a: 1 } }]);
  });

  it('reports truncated output as incomplete', () => {
    incomplete(`Sure. <${D}calls>\n<${D}invoke name="f">\n<${D}parameter name="a" string="true">x`);
  });

  it('reads namespaced names (ns::tool) as written, in V4.1 and V4 DSML', () => {
    const v41 = calls(invoke('fs::read_file', param('path', '/tmp/a')));
    expect(checked(v41)).toEqual([{ name: 'fs::read_file', arguments: { path: '/tmp/a' } }]);
    expect(checked(v41, { tools: ['fs::read_file'] })).toEqual([{ name: 'fs::read_file', arguments: { path: '/tmp/a' } }]);
    expect(checked(v41, { tools: ['read_file'] })).toEqual([]);
    const V4 = '\uff5cDSML\uff5c';
    const v4 = `<${V4}tool_calls><${V4}invoke name="mcp.github::create_issue"><${V4}parameter name="title" string="true">x</${V4}parameter></${V4}invoke></${V4}tool_calls>`;
    expect(checked(v4)).toEqual([{ name: 'mcp.github::create_issue', arguments: { title: 'x' } }]);
    // Not a name: empty parts, a single colon, or call syntax (C++ scope).
    expect(checked(calls(invoke('::f', '') + invoke('a:::b', '') + invoke('a:b', '')))).toEqual([]);
    expect(checked('std::sort(v) is C++').map((c) => c.name)).not.toContain('std::sort');
  });
});

describe('GigaChat 3.5 (GCML)', () => {
  const G = '\uff5cGCML\uff5c';

  it('reads invokes like DSML, several in one block', () => {
    const text = `I will check.<${G}tool_calls><${G}invoke name="get_weather"><${G}parameter name="city" string="true">Tokyo</${G}parameter></${G}invoke><${G}invoke name="store"><${G}parameter name="payload" string="false">{"a": 1, "b": [true, null]}</${G}parameter></${G}invoke></${G}tool_calls></s>`;
    expect(checked(text)).toEqual([
      { name: 'get_weather', arguments: { city: 'Tokyo' } },
      { name: 'store', arguments: { payload: { a: 1, b: [true, null] } } },
    ]);
    expect(checked(text, { format: 'deepseek-dsml' }).map((c) => c.name)).toEqual(['get_weather', 'store']);
    expect(checked(text, { format: 'json' })).toEqual([]);
  });

  it('reports truncated output as incomplete', () => {
    incomplete(`<${G}tool_calls><${G}invoke name="f"><${G}parameter name="a" string="true">x</${G}parameter>`);
  });
});

describe('Hunyuan HY v3 / v4', () => {
  it('reads HY v3: the GLM body with <tool_sep> after the name, in a <tool_calls> wrapper', () => {
    const text =
      'Checking.<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>';
    expect(checked(text)).toEqual([
      { name: 'get_weather', arguments: { city: 'Beijing', days: '3' } },
      { name: 'get_current_date', arguments: {} },
    ]);
    expect(checked(text, { tools: [weather, 'get_current_date'] })).toEqual([
      { name: 'get_weather', arguments: { city: 'Beijing', days: 3 } },
      { name: 'get_current_date', arguments: {} },
    ]);
    expect(checked(text, { format: 'glm' })).toHaveLength(2);
  });

  it('reads HY v4 tags with a checkpoint suffix, with and without the wrapper', () => {
    const S = ':opensource';
    const wrapped = `sure!<tool_calls${S}><tool_call${S}>get_weather<arg_key${S}>city</arg_key${S}><arg_value${S}>Beijing</arg_value${S}><arg_key${S}>filters</arg_key${S}><arg_value${S}>{"lang": {"x": [1]}}</arg_value${S}></tool_call${S}><tool_call${S}>get_current_date</tool_call${S}></tool_calls${S}> ok`;
    expect(checked(wrapped)).toEqual([
      { name: 'get_weather', arguments: { city: 'Beijing', filters: '{"lang": {"x": [1]}}' } },
      { name: 'get_current_date', arguments: {} },
    ]);
    expect(checked(wrapped, { tools: [weather, 'get_current_date'] })[0]?.arguments).toEqual({ city: 'Beijing', filters: { lang: { x: [1] } } });
    expect(textOutside(wrapped)).toBe('sure! ok');
    const bare = `<tool_call:6124c78e>get_weather\n<arg_key:6124c78e>city</arg_key:6124c78e>\n<arg_value:6124c78e>Oslo</arg_value:6124c78e>\n</tool_call:6124c78e>`;
    expect(checked(bare)).toEqual([{ name: 'get_weather', arguments: { city: 'Oslo' } }]);
    const v3 = `<tool_calls:x><tool_call:x>f<tool_sep:x><arg_key:x>a</arg_key:x><arg_value:x>1</arg_value:x></tool_call:x></tool_calls:x>`;
    expect(checked(v3)).toEqual([{ name: 'f', arguments: { a: '1' } }]);
  });

  it('reads HY v4’s suffixed <think:SUFFIX> as reasoning, whose calls are not calls by default', () => {
    const S = ':opensource';
    const text = `<think${S}>maybe get_weather(city="x") <tool_call${S}>f</tool_call${S}></think${S}>ok<tool_calls${S}><tool_call${S}>get_weather<arg_key${S}>city</arg_key${S}><arg_value${S}>Paris</arg_value${S}></tool_call${S}></tool_calls${S}>`;
    expect(checked(text)).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    expect(checked(text, { callsInReasoning: true }).map((c) => c.name)).toEqual(['get_weather', 'f', 'get_weather']);
    const events = stream(text, 1);
    expect(events.filter((e) => e.type === 'reasoning-end').map((e) => ('text' in e ? e.text : ''))).toEqual([`</think${S}>`]);
    expect(checked('<think:a b> is text, and so is <think:> here')).toEqual([]);
  });

  it('reads <think:SUFFIX> as reasoning only when Hunyuan (glm) is looked for', () => {
    const text = 'Use <think:deep> mode; search(q="x")';
    const search = [{ name: 'search', arguments: { q: 'x' } }];
    expect(checked(text, { format: 'call' })).toEqual(search);
    expect(checked(text, { formats: ['call', 'json', 'qwen3-xml'] })).toEqual(search);
    expect(stream(text, 1, { format: 'call' }).some((e) => e.type === 'reasoning-start')).toBe(false);
    // With glm, at the start of a line it is Hunyuan's reasoning, never closed: the call in it is reasoning.
    expect(checked(`Plan:\n${text.slice('Use '.length)}`, { formats: ['call', 'glm'] })).toEqual([]);
  });

  it('opens <think:SUFFIX> reasoning only where Hunyuan writes it: the answer start, a line start, after </think…>', () => {
    const call = 'get_weather(city="Paris")';
    const opens = (text: string): boolean => {
      const whole = checked(text, { tools: ['get_weather'] }).length === 0;
      expect(stream(text, 1, { tools: ['get_weather'] }).some((e) => e.type === 'reasoning-start')).toBe(whole);
      return whole;
    };
    // Mid-sentence it is text (L1 of the review of #16): the rest of the answer and its calls stay.
    expect(opens(`In Hunyuan output, reasoning sits in <think:opensource> tags. Now the weather: ${call}`)).toBe(false);
    expect(opens(`a<think:s> ${call}`)).toBe(false);
    expect(opens(`x </think:s> y <think:s> ${call}`)).toBe(false);
    // A `>` after a closing tag and more text is not that tag's end (found by the batch/stream property test).
    expect(opens(`</think:opensource>f(a=1)><think:s> ${call}`)).toBe(false);
    // Where Hunyuan writes it.
    expect(opens(`<think:opensource>${call}`)).toBe(true);
    expect(opens(`  \t<think:s> ${call}`)).toBe(true);
    expect(opens(`Answer.\n  <think:s> ${call}`)).toBe(true);
    expect(opens(`Answer.\r\n<think:s> ${call}`)).toBe(true);
    expect(opens(`<think:s>a</think:s>ok\n<think:s> ${call}`)).toBe(true);
    expect(opens(`<think>a</think> <think:s> ${call}`)).toBe(true);
    expect(opens(`<think:s>a</think:s><think:s> ${call}`)).toBe(true);
    // A long run of blank space (past the 32 characters looked back at) is no line start.
    expect(opens(`${' '.repeat(40)}<think:s> ${call}`)).toBe(false);
    expect(opens(`\n${' '.repeat(40)}<think:s> ${call}`)).toBe(false);
  });

  it('keeps values holding the call’s own tags (a value ends at its closing tag)', () => {
    const S = ':s';
    const text = `<tool_calls${S}><tool_call${S}>note<arg_key${S}>body</arg_key${S}><arg_value${S}>see </tool_call${S}> and <arg_key${S}>x</arg_value${S}></tool_call${S}></tool_calls${S}>`;
    expect(checked(text)).toEqual([{ name: 'note', arguments: { body: `see </tool_call${S}> and <arg_key${S}>x` } }]);
  });

  it('reports truncated output as incomplete, and takes no prose for a call', () => {
    incomplete('<tool_calls:s><tool_call:s>f<arg_key:s>a</arg_key:s><arg_value:s>1');
    incomplete('<tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1');
    expect(checked('Tags like <tool_call:SUFFIX> or <tool_calls:a b> and <tool_call:x> tags are text.')).toEqual([]);
    expect(checked('<tool_calls:x> not a call </tool_calls:x>')).toEqual([]);
  });
});

describe('IQuest Coder V2', () => {
  it('reads one call per <iquestcoder_tool_call> block, several in a turn', () => {
    const text =
      'Let me look that up for you.\n<iquestcoder_tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Dallas</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</iquestcoder_tool_call><iquestcoder_tool_call>get_weather<arg_key>city</arg_key><arg_value>Orlando</arg_value><arg_key>tags</arg_key><arg_value>["a", "b"]</arg_value></iquestcoder_tool_call> Bye.';
    expect(checked(text)).toEqual([
      { name: 'get_weather', arguments: { city: 'Dallas', days: '3' } },
      { name: 'get_weather', arguments: { city: 'Orlando', tags: '["a", "b"]' } },
    ]);
    expect(checked(text, { tools: [weather] })).toEqual([
      { name: 'get_weather', arguments: { city: 'Dallas', days: 3 } },
      { name: 'get_weather', arguments: { city: 'Orlando', tags: ['a', 'b'] } },
    ]);
    expect(checked(text, { format: 'glm' })).toHaveLength(2);
    expect(checked(text, { format: 'qwen3-xml' })).toEqual([]);
  });

  it('reports truncated output as incomplete', () => {
    incomplete('<iquestcoder_tool_call>get_weather<arg_key>city</arg_key><arg_value>Dal');
  });
});

describe('K2 Horizon (IFM XML)', () => {
  it('reads the XML form, with and without type tags; the JSON form stays read as JSON', () => {
    const xml =
      'Before <ifm|tool_calls><ifm|tool_call>lookup<ifm|arg_key>query</ifm|arg_key><ifm|arg_value>123</ifm|arg_value><ifm|arg_key>limit</ifm|arg_key><ifm|arg_type>integer</ifm|arg_type><ifm|arg_value>3</ifm|arg_value><ifm|arg_key>opts</ifm|arg_key><ifm|arg_type>object</ifm|arg_type><ifm|arg_value>{"a": {"b": 1}}</ifm|arg_value></ifm|tool_call>\n<ifm|tool_call>ping</ifm|tool_call></ifm|tool_calls> after.';
    expect(checked(xml)).toEqual([
      { name: 'lookup', arguments: { query: '123', limit: 3, opts: { a: { b: 1 } } } },
      { name: 'ping', arguments: {} },
    ]);
    const json = 'Before <ifm|tool_calls><ifm|tool_call>{"name": "lookup", "arguments": {"limit": 2}}</ifm|tool_call></ifm|tool_calls> after.';
    expect(checked(json)).toEqual([{ name: 'lookup', arguments: { limit: 2 } }]);
    expect(checked(xml, { format: 'glm' })).toHaveLength(2);
  });

  it('reports truncated output as incomplete', () => {
    incomplete('<ifm|tool_calls><ifm|tool_call>lookup<ifm|arg_key>q</ifm|arg_key><ifm|arg_value>1');
  });
});

describe('dots (MiniMax-M2 invoke body in <dots_function_call>)', () => {
  it('reads invokes (quoted or bare names), and still reads the JSON body', () => {
    const text =
      'ok<dots_function_call>\n<invoke name="search">\n<parameter name="query">chairs & <tables></parameter>\n</invoke>\n<invoke name=open><parameter name=id>7</parameter></invoke>\n</dots_function_call> then <dots_function_call>{"name": "search", "arguments": {"query": "lamps"}}</dots_function_call>';
    expect(checked(text)).toEqual([
      { name: 'search', arguments: { query: 'chairs & <tables>' } },
      { name: 'open', arguments: { id: '7' } },
      { name: 'search', arguments: { query: 'lamps' } },
    ]);
    expect(checked(text, { format: 'minimax-m2' }).map((c) => c.name)).toEqual(['search', 'open']);
  });

  it('reports truncated output as incomplete', () => {
    incomplete('<dots_function_call><invoke name="search"><parameter name="query">cha');
  });
});

describe('FunctionGemma (functiongemma: the Gemma 4 grammar with <escape> quotes)', () => {
  it('reads calls with escaped strings, bare numbers and nested values; escaped numbers are typed by a schema', () => {
    const text =
      'Let me check. <start_function_call>call:get_weather{city:<escape>San Francisco, {CA}<escape>,days:<escape>10<escape>,metric:true,filters:{lang:<escape>en<escape>,n:[1,2]}}<end_function_call><start_function_call>call:get_time{}<end_function_call> Done.';
    expect(checked(text)).toEqual([
      { name: 'get_weather', arguments: { city: 'San Francisco, {CA}', days: '10', metric: true, filters: { lang: 'en', n: [1, 2] } } },
      { name: 'get_time', arguments: {} },
    ]);
    expect(checked(text, { tools: [weather, 'get_time'] })[0]?.arguments).toEqual({ city: 'San Francisco, {CA}', days: 10, metric: true, filters: { lang: 'en', n: [1, 2] } });
    expect(checked(text, { format: 'functiongemma' })).toHaveLength(2);
    expect(checked(text, { format: 'gemma4' })).toEqual([]);
    expect(textOutside(text)).toBe('Let me check.  Done.');
  });

  it('reports truncated output as incomplete', () => {
    incomplete('<start_function_call>call:get_weather{city:<escape>San Fr');
  });
});

describe('Solar Open 2 / Solar Open (solar-open)', () => {
  const call = (name: string, args: [string, string][]) =>
    `<|tool_call:start|>${name}\n${args.map(([k, v]) => `<|tool_arg:start|>${k}<|tool_arg:value|>${v}<|tool_arg:end|>\n`).join('')}<|tool_call:end|>`;

  it('reads Solar Open 2 calls: the name on the start line, then key/value arguments, text values typed by a schema', () => {
    const text = `I'll check both.${call('get_weather', [
      ['city', 'Seoul'],
      ['days', '3'],
      ['filters', '{"lang": "ko", "n": [1]}'],
    ])}\n${call('search', [['query', 'vLLM <|tool_call: <|tool_arg tutorial\nline two']])} done`;
    expect(checked(text)).toEqual([
      { name: 'get_weather', arguments: { city: 'Seoul', days: '3', filters: '{"lang": "ko", "n": [1]}' } },
      { name: 'search', arguments: { query: 'vLLM <|tool_call: <|tool_arg tutorial\nline two' } },
    ]);
    expect(checked(text, { tools: [weather, 'search'] })[0]?.arguments).toEqual({ city: 'Seoul', days: 3, filters: { lang: 'ko', n: [1] } });
    expect(checked(text, { format: 'solar-open' })).toHaveLength(2);
    expect(checked(text, { format: 'glm' })).toEqual([]);
    expect(textOutside(text)).toBe("I'll check both.\n done");
  });

  it('recovers from dropped end tags as vLLM does, and keeps the first of a repeated key', () => {
    const S = { call: '<|tool_call:start|>', end: '<|tool_call:end|>', arg: '<|tool_arg:start|>', value: '<|tool_arg:value|>', argEnd: '<|tool_arg:end|>' };
    const seoul = `${S.call}get_weather\n${S.arg}city${S.value}Seoul${S.argEnd}\n${S.end}`;
    const weather = { name: 'get_weather', arguments: { city: 'Seoul' } };
    // A value without its end tag ends at the end of the call.
    expect(checked(`${S.call}broken\n${S.arg}a${S.value}oops${S.end}${seoul}`)).toEqual([{ name: 'broken', arguments: { a: 'oops' } }, weather]);
    // A call without its end tag ends where the next one starts (with or without the value's end).
    expect(checked(`${S.call}search\n${S.arg}query${S.value}vLLM${S.argEnd}\n${seoul}`)).toEqual([{ name: 'search', arguments: { query: 'vLLM' } }, weather]);
    expect(checked(`${S.call}search\n${S.arg}query${S.value}vLLM${seoul}`)).toEqual([{ name: 'search', arguments: { query: 'vLLM' } }, weather]);
    // A name that never reaches its newline is no call; a key cut off adds nothing.
    expect(checked(`${S.call}${seoul}`)).toEqual([weather]);
    expect(checked(`${S.call}get_w${S.end}${seoul}`)).toEqual([weather]);
    expect(checked(`${S.call}get_weather\n${S.arg}ci${S.arg}city${S.value}Seoul${S.argEnd}\n${S.end}`)).toEqual([weather]);
    expect(checked(`${S.call}search\n${S.arg}q${S.value}first${S.argEnd}${S.arg}q${S.value}second${S.argEnd}${S.end}`)).toEqual([{ name: 'search', arguments: { q: 'first' } }]);
  });

  it('reads Solar Open calls (id, name, JSON arguments) and keeps the model’s id', () => {
    const text = 'Sure<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>get_weather<|tool_call:args|>{"city": "Seoul", "nested": {"x": ["<|tool_call:end|>"]}}<|tool_call:end|><|calls|>';
    // A value cannot hold the end token itself: the block ends at its first one.
    expect(checked(text)).toEqual([]);
    const plain = 'Sure<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>get_weather<|tool_call:args|>{"city": "Seoul", "nested": {"x": [1, "}"]}}<|tool_call:end|><|calls|>';
    expect(checked(plain)).toEqual([{ name: 'get_weather', arguments: { city: 'Seoul', nested: { x: [1, '}'] } } }]);
    expect(extractToolCalls(plain)[0]?.id).toBe('a1b2c3d4e5');
    expect(checked('<|tool_call:begin|>x<|tool_call:name|>f<|tool_call:args|>not json<|tool_call:end|>')).toEqual([]);
  });

  it('reads no call whose name line a call boundary ends, as vLLM: one-line calls and arguments on the name line are text', () => {
    // vLLM's solar_open2 parser reads the name up to a newline and skips a block in which the
    // end (or the next start) comes first, in batch and streaming; a one-line call is no call there either.
    const seoul = '<|tool_call:start|>get_weather\n<|tool_arg:start|>city<|tool_arg:value|>Seoul<|tool_arg:end|>\n<|tool_call:end|>';
    for (const text of [
      'Checking.<|tool_call:start|>get_time<|tool_call:end|>',
      '<|tool_call:start|>get_weather<|tool_arg:start|>city<|tool_arg:value|>Paris<|tool_arg:end|><|tool_call:end|>',
    ]) {
      expect(checked(text), text).toEqual([]);
      expect(textOutside(text)).toBe(text);
      expect(checked(`${text}${seoul}`), text).toEqual([{ name: 'get_weather', arguments: { city: 'Seoul' } }]);
    }
    expect(checked('Checking.<|tool_call:start|>get_time\n<|tool_call:end|>')).toEqual([{ name: 'get_time', arguments: {} }]);
  });

  it('reports truncated output as incomplete', () => {
    incomplete('<|tool_call:start|>get_weather\n<|tool_arg:start|>city<|tool_arg:value|>Seo');
    incomplete('<|tool_call:begin|>a1<|tool_call:name|>f<|tool_call:args|>{"a": ');
  });
});

describe('Kimi K3 (XTML, kimi-k3)', () => {
  const K = { o: '<|open|>', c: '<|close|>', s: '<|sep|>' };
  const arg = (key: string, type: string, value: string) => `${K.o}argument key="${key}" type="${type}"${K.s}${value}${K.c}argument${K.s}`;
  const call = (name: string, index: number, args: string) => `${K.o}call tool="${name}" index="${index}"${K.s}${args}${K.c}call${K.s}`;
  const tools = (calls: string) => `${K.o}tools${K.s}${calls}${K.c}tools${K.s}`;

  it('reads calls in the tools channel: strings raw, other types as JSON', () => {
    const text = `${K.o}response${K.s}Let me check both.${K.c}response${K.s}${tools(
      call('get_weather', 1, arg('city', 'string', 'Paris {"x"}') + arg('days', 'integer', '3') + arg('filters', 'object', '{"lang": "en", "n": [1, null]}') + arg('note', 'null', 'null')) +
        call('search_docs', 2, arg('query', 'string', ' rain gear\n')),
    )}`;
    expect(checked(text)).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris {"x"}', days: 3, filters: { lang: 'en', n: [1, null] }, note: null } },
      { name: 'search_docs', arguments: { query: ' rain gear\n' } },
    ]);
    expect(textOutside(text)).toBe(`${K.o}response${K.s}Let me check both.${K.c}response${K.s}`);
    expect(checked(text, { format: 'kimi-k3' })).toHaveLength(2);
    expect(checked(text, { format: 'kimi-k2' })).toEqual([]);
  });

  it('undoes the template’s attribute escapes, keeps values holding other markers, and keeps bad JSON as text', () => {
    const text = tools(call('a&amp;b', 1, arg('say &quot;hi&quot;', 'string', `x ${K.c}call${K.s} ${K.o}argument key="y"${K.s}`) + arg('n', 'integer', 'three')));
    expect(checked(text, { tools: ['a&b'] })).toEqual([{ name: 'a&b', arguments: { 'say "hi"': `x ${K.c}call${K.s} ${K.o}argument key="y"${K.s}`, n: 'three' } }]);
  });

  it('finds the closing token, which holds a `<…>` inside it, however a stream cuts it (a long piece, then single characters)', () => {
    const text = `${tools(call('f', 1, arg('a', 'string', 'x') + arg('b', 'array', '[1]')))} after`;
    const batch = extractToolCalls(text);
    expect(batch).toHaveLength(1);
    for (let cut = text.length - 40; cut < text.length; cut++) {
      const parser = createToolCallParser();
      const events = [...parser.push(text.slice(0, cut))];
      for (const c of text.slice(cut)) events.push(...parser.push(c));
      events.push(...parser.end());
      expect(events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []))).toEqual(batch);
    }
  });

  it('reports truncated output as incomplete', () => {
    incomplete(`${K.o}tools${K.s}${K.o}call tool="f" index="1"${K.s}${K.o}argument key="a" type="string"${K.s}unfin`);
  });
});

describe('MiniMax M3 (minimax-m3)', () => {
  const NS = ']<]minimax[>[';
  const el = (tag: string, content: string) => `${NS}<${tag}>${content}${NS}</${tag}>`;
  const order = {
    name: 'create_order',
    inputSchema: {
      type: 'object' as const,
      properties: {
        user_id: { type: 'integer' as const },
        urgent: { type: 'boolean' as const },
        note: { type: 'string' as const },
        shipping: { type: 'object' as const, properties: { city: { type: 'string' as const }, zip: { type: 'integer' as const } } },
        items: { type: 'array' as const, items: { type: 'object' as const, properties: { sku: { type: 'string' as const }, qty: { type: 'integer' as const } } } },
        metadata: { type: 'object' as const, additionalProperties: { type: 'string' as const } },
        duplicate_demo: { type: 'object' as const },
      },
    },
  };
  const invoke = (name: string, body: string) => `${NS}<invoke name="${name}">${body}${NS}</invoke>`;
  const block = (invokes: string) => `${NS}<tool_call>\n${invokes}\n${NS}</tool_call>`;
  const body =
    el('user_id', '42') +
    el('urgent', 'true') +
    el('note', 'Leave at <desk> & "front".') +
    el('shipping', el('city', 'Singapore') + el('zip', '018956')) +
    el('items', el('item', el('sku', 'book-001') + el('qty', '2')) + el('item', el('sku', 'pen-007') + el('qty', '5'))) +
    el('metadata', el('source', 'mobile') + el('campaign', 'may-launch')) +
    el('duplicate_demo', el('tag', 'a') + el('tag', 'b'));

  it('reads nested elements as objects and arrays, typed by the schema', () => {
    const text = `I will create it.\n${block(invoke('create_order', body))} Done.`;
    expect(checked(text, { tools: [order] })).toEqual([
      {
        name: 'create_order',
        arguments: {
          user_id: 42,
          urgent: true,
          note: 'Leave at <desk> & "front".',
          shipping: { city: 'Singapore', zip: 18956 },
          items: [
            { sku: 'book-001', qty: 2 },
            { sku: 'pen-007', qty: 5 },
          ],
          metadata: { source: 'mobile', campaign: 'may-launch' },
          duplicate_demo: { tag: ['a', 'b'] },
        },
      },
    ]);
    // The `]` before the opener's `<` stays in the text.
    expect(textOutside(text, { tools: [order] })).toBe('I will create it.\n] Done.');
  });

  it('keeps text values without a schema, reads item lists as arrays, and several invokes in one block', () => {
    const text = block(`${invoke('create_order', el('user_id', '1') + el('shipping', el('zip', '018956')) + el('tags', el('item', 'x') + el('item', 'y')))}\n${invoke('get_status', el('order_id', 'A-7'))}`);
    expect(checked(text)).toEqual([
      { name: 'create_order', arguments: { user_id: '1', shipping: { zip: '018956' }, tags: ['x', 'y'] } },
      { name: 'get_status', arguments: { order_id: 'A-7' } },
    ]);
    expect(checked(text, { format: 'minimax-m3' })).toHaveLength(2);
    expect(checked(text, { format: 'minimax-m2' })).toEqual([]);
  });

  it('keeps the surrounding space of a plain-string value (indented code), and trims every other value, as MiniMax-M2', () => {
    const code = '    if x:\n        return y\n';
    const edit = {
      name: 'edit',
      inputSchema: {
        type: 'object' as const,
        properties: { old_string: { type: 'string' as const }, new_string: { type: ['string', 'null'] as ('string' | 'null')[] }, mode: { type: 'string' as const, enum: ['a', 'b'] }, line: { type: 'integer' as const } },
      },
    };
    const text = block(invoke('edit', el('old_string', code) + el('new_string', `\n${code}`) + el('mode', ' a\n') + el('line', ' 7 ')));
    expect(checked(text, { tools: [edit] })).toEqual([{ name: 'edit', arguments: { old_string: code, new_string: `\n${code}`, mode: 'a', line: 7 } }]);
    // Without a schema every value is trimmed text, as MiniMax-M2's.
    expect(checked(text)).toEqual([{ name: 'edit', arguments: { old_string: code.trim(), new_string: code.trim(), mode: 'a', line: '7' } }]);
    // Toolwire's own rendering of an earlier call reads back as it was.
    const rendered = renderToolCall({ id: 'c1', name: 'edit', arguments: { old_string: code, new_string: code } }, 'minimax-m3');
    expect(checked(rendered, { tools: [edit] })).toEqual([{ name: 'edit', arguments: { old_string: code, new_string: code } }]);
  });

  it('reads null as null where a string property also allows null, as MiniMax-M2 and MiniCPM5 do', () => {
    const assign = {
      name: 'assign',
      inputSchema: {
        type: 'object' as const,
        properties: { assignee: { type: ['string', 'null'] as ('string' | 'null')[] }, label: { anyOf: [{ type: 'string' as const }, { type: 'null' as const }] }, note: { type: 'string' as const }, meta: { type: 'object' as const, properties: { owner: { type: ['string', 'null'] as ('string' | 'null')[] } } } },
      },
    };
    const text = block(invoke('assign', el('assignee', 'null') + el('label', '\nnull\n') + el('note', 'null')));
    // A plain `string` has no null: there `null` is the text, as vLLM reads it.
    expect(checked(text, { tools: [assign] })).toEqual([{ name: 'assign', arguments: { assignee: null, label: null, note: 'null' } }]);
    for (const format of ['minimax-m3', 'minimax-m2', 'minicpm5'] as const) {
      const rendered = renderToolCall({ id: 'c1', name: 'assign', arguments: { assignee: null, label: null } }, format);
      expect(checked(rendered, { tools: [assign], format })).toEqual([{ name: 'assign', arguments: { assignee: null, label: null } }]);
    }
    expect(checked(block(invoke('assign', el('meta', el('owner', ' null ')))), { tools: [assign] })[0]?.arguments).toEqual({ meta: { owner: null } });
    // Spaces around a nullable string's text are still data.
    expect(checked(block(invoke('assign', el('assignee', ' null x\n'))), { tools: [assign] })[0]?.arguments).toEqual({ assignee: ' null x\n' });
  });

  it('drops a malformed invoke, and reports truncated output as incomplete', () => {
    expect(checked(block(invoke('f', `${NS}</user_id>`)))).toEqual([]);
    incomplete(`plain ${NS}<tool_call>\n${invoke('create_order', el('user_id', '1'))}\n${NS}<invoke name="create_order">${NS}<user_id>2`);
  });
});

describe('Step-Audio 2 (json: `<tool_call>function`, the name on the next line, then JSON)', () => {
  it('reads several calls with text around them and nested JSON', () => {
    const text = '好的，我来查一下。<tool_call>function\nforecast_weather\n{"location": "shanghai", "when": {"days": [1, 2], "note": "</tool_call>"}}</tool_call><tool_call>function\nget_time\n{"tz": "CST"}</tool_call> 完成';
    expect(checked(text)).toEqual([
      { name: 'forecast_weather', arguments: { location: 'shanghai', when: { days: [1, 2], note: '</tool_call>' } } },
      { name: 'get_time', arguments: { tz: 'CST' } },
    ]);
    expect(checked(text, { tools: ['get_time'] }).map((c) => c.name)).toEqual(['get_time']);
    expect(checked(text, { format: 'json' })).toHaveLength(2);
    expect(checked(text, { format: 'glm' })).toEqual([]);
  });

  it('leaves a GLM call named function… to GLM, and reports truncated output as incomplete', () => {
    expect(checked('<tool_call>function_x\n<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>')).toEqual([{ name: 'function_x', arguments: { a: '1' } }]);
    incomplete('<tool_call>function\nget_time\n{"tz": "CS');
  });
});

describe('Step3 (deepseek: steptml invokes in DeepSeek’s tokens)', () => {
  const B = '\uff5c';
  const t = (word: string) => `<${B}${word}${B}>`;
  const call = (name: string, params: string) => `${t('tool_call_begin')}function${t('tool_sep')}<steptml:invoke name="${name}">${params}</steptml:invoke>${t('tool_call_end')}`;
  const param = (name: string, value: string) => `<steptml:parameter name="${name}">${value}</steptml:parameter>`;

  it('reads several invokes, values verbatim and typed by the schema', () => {
    const text = `Let me check.\n\n${t('tool_calls_begin')}${call('get_weather', param('city', ' Tokyo ') + param('days', '3') + param('filters', '{"a": [1]}'))}${call('get_time', param('timezone', 'Asia/Tokyo'))}${t('tool_calls_end')} ok`;
    expect(checked(text)).toEqual([
      { name: 'get_weather', arguments: { city: ' Tokyo ', days: '3', filters: '{"a": [1]}' } },
      { name: 'get_time', arguments: { timezone: 'Asia/Tokyo' } },
    ]);
    expect(checked(text, { tools: [weather, 'get_time'] })[0]?.arguments).toEqual({ city: ' Tokyo ', days: 3, filters: { a: [1] } });
    expect(checked(text, { format: 'deepseek' })).toHaveLength(2);
  });

  it('reports truncated output as incomplete', () => {
    incomplete(`${t('tool_calls_begin')}${t('tool_call_begin')}function${t('tool_sep')}<steptml:invoke name="f">${param('a', '1')}`);
  });
});

describe('MiniCPM5 XML (minicpm5, read only when asked for)', () => {
  const M = { format: 'minicpm5' } as const;

  it('reads function elements with param elements, text around them, values trimmed (but plain strings) and typed by the schema', () => {
    const text = 'Head\n<function name="get_weather"><param name="city"> 北京 </param><param name="filters"> {"a": [1, "</param>"]}\n</param></function>\nTXT\n<function name=\'get_time\'>\n</function>\n';
    expect(checked(text, M)).toEqual([
      { name: 'get_weather', arguments: { city: '北京', filters: '{"a": [1, "</param>"]}' } },
      { name: 'get_time', arguments: {} },
    ]);
    // A property typed as a plain string keeps its space (as MiniMax-M2: indented code is data).
    expect(checked(text, { ...M, tools: [weather, 'get_time'] })[0]?.arguments).toEqual({ city: ' 北京 ', filters: { a: [1, '</param>'] } });
    const code = '    if x:\n        return y\n';
    const rendered = renderToolCall({ id: 'c1', name: 'get_weather', arguments: { city: code } }, 'minicpm5');
    expect(checked(rendered, { ...M, tools: [weather] })).toEqual([{ name: 'get_weather', arguments: { city: code } }]);
    expect(checked(text, { formats: ['json', 'minicpm5'] })).toHaveLength(2);
    expect(checked(text, { format: 'qwen3-xml' })).toEqual([]);
  });

  it('is not auto-detected: XML docs and markup in prose that look like its calls are text', () => {
    // As an XML API reference describes a function, and an element of some markup language.
    const docs = '<function name="open">\n<param name="path" type="string">File path</param>\n</function>\nand <function name="init"></function>.';
    expect(checked(docs)).toEqual([]);
    expect(checked(docs, { tools: ['open', 'init'] })).toEqual([]);
    expect(textOutside(docs)).toBe(docs);
    expect(checked(docs, M)).toEqual([{ name: 'open', arguments: { path: 'File path' } }, { name: 'init', arguments: {} }]);
  });

  it('reads a param tag only when space follows its name, and never a self-closing one', () => {
    // `<parameter …>` and `<params>` are other tags; `<param … />` holds no value.
    const other = '<function name="open">\n<parameter name="path">/tmp</parameter>\n</function>';
    const params = '<function name="open"><params><param name="path">/tmp</param></params></function>';
    const selfClosing = '<function name="open">\n<param name="path" type="string" />\n<param name="mode">r</param>\n</function>';
    for (const text of [other, params, selfClosing]) {
      expect(checked(text, M)).toEqual([]);
      expect(textOutside(text, M)).toBe(text);
    }
    expect(checked('<function name="open"><param\tname="path">/tmp</param><param\nname="mode">r</param></function>', M)).toEqual([{ name: 'open', arguments: { path: '/tmp', mode: 'r' } }]);
  });

  it('takes no prose for a call, and reports truncated output as incomplete', () => {
    expect(checked('In JS, <function name="x"> is not HTML; <function name=f> neither.', M)).toEqual([]);
    incomplete('<function name="get_weather"><param name="city">Pa', M);
  });
});

describe('PLaMo 3 (plamo3)', () => {
  const P = (word: string) => `<|plamo:${word}:plamo|>`;
  const request = (name: string, args: string) =>
    `${P('begin_tool_request')}${P('begin_tool_name')}${name}${P('end_tool_name')}${P('begin_tool_arguments')}${args}${P('end_tool_arguments')}${P('end_tool_request')}`;

  it('reads several requests with JSON arguments, text around them', () => {
    const text = `Before tools.${P('begin_tool_requests')}${request('echo', `{"text": "hi ${P('end_tool_arguments')}", "n": {"a": [1, null]}}`)}${request('sum', '{"a": 1, "b": 2}')}${P('end_tool_requests')}<|plamo:tag|>`;
    expect(checked(text)).toEqual([
      { name: 'echo', arguments: { text: `hi ${P('end_tool_arguments')}`, n: { a: [1, null] } } },
      { name: 'sum', arguments: { a: 1, b: 2 } },
    ]);
    expect(textOutside(text)).toBe('Before tools.<|plamo:tag|>');
    expect(checked(text, { format: 'plamo3' })).toHaveLength(2);
    expect(checked(text, { format: 'json' })).toEqual([]);
  });

  it('drops arguments that are not an object, and reports truncated output as incomplete', () => {
    expect(checked(`${P('begin_tool_requests')}${request('f', '[1]')}${P('end_tool_requests')}`)).toEqual([]);
    incomplete(`${P('begin_tool_requests')}${P('begin_tool_request')}${P('begin_tool_name')}f${P('end_tool_name')}${P('begin_tool_arguments')}{"a": `);
  });

  it('reads no block whose end token is missing, as vLLM (its requests may be followed by more): incomplete', () => {
    // vLLM's plamo3 parser returns no calls without `end_tool_requests`; so does Toolwire, and
    // a stream reports the block as incomplete rather than guessing it ended.
    incomplete(`Checking.${P('begin_tool_requests')}${request('get_weather', '{"city": "Tokyo"}')}`);
    incomplete(`${P('begin_tool_requests')}${request('get_weather', '{"city": "Tokyo"}')}${request('sum', '{"a": 1}')}`);
  });
});

describe('the text withTextToolCalling shows around the newer formats', () => {
  /** The answer text once the calls are taken out, as `withTextToolCalling` cleans it. */
  function shown(text: string): string {
    let out = '';
    for (const size of [1, text.length]) {
      const parser = createToolCallParser();
      let piece = '';
      const events: ToolCallParserEvent[] = [];
      for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
      events.push(...parser.end());
      const fresh = new CallTextCleaner();
      for (const e of events) {
        if (e.type === 'text') piece += fresh.text(e.text);
        else if (e.type === 'tool-call') piece += fresh.call(e.text);
      }
      piece += fresh.end();
      if (size === 1) out = piece;
      else expect(piece).toBe(out);
    }
    return out;
  }

  it('leaves only the answer, whichever way the text was split', () => {
    expect(shown('Checking.<tool_calls>\n<tool_call>f<tool_sep>\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>\n</tool_calls> Done.')).toBe('Checking. Done.');
    expect(shown('sure!<tool_calls:s><tool_call:s>f<arg_key:s>a</arg_key:s><arg_value:s>1</arg_value:s></tool_call:s></tool_calls:s> ok')).toBe('sure! ok');
    expect(shown('Before <ifm|tool_calls><ifm|tool_call>f<ifm|arg_key>q</ifm|arg_key><ifm|arg_value>1</ifm|arg_value></ifm|tool_call></ifm|tool_calls> after.')).toBe('Before after.');
    expect(shown('I will.\n]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="f">]<]minimax[>[<a>1]<]minimax[>[</a>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call> Done.')).toBe('I will. Done.');
    expect(shown('<|open|>response<|sep|>Let me check.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>')).toBe('Let me check.');
    expect(shown("I'll check.<|tool_call:start|>f\n<|tool_arg:start|>a<|tool_arg:value|>1<|tool_arg:end|>\n<|tool_call:end|> done")).toBe("I'll check. done");
    expect(shown('ok<dots_function_call><invoke name="s"><parameter name="q">x</parameter></invoke></dots_function_call> then')).toBe('ok then');
    expect(shown('Let me check. <start_function_call>call:f{a:<escape>x<escape>}<end_function_call> Done.')).toBe('Let me check. Done.');
  });
});

describe('auto-detection of the newer spellings on mixed text', () => {
  it('finds no calls in prose that mentions their tags', () => {
    const prose = [
      'HY writes <tool_calls> then <tool_call>NAME<tool_sep> — a <tool_sep> alone is nothing.',
      'K2 Horizon uses <ifm|tool_call> tags; dots uses <dots_function_call> and <invoke name=…>.',
      'FunctionGemma opens with <start_function_call> and <iquestcoder_tool_call> is IQuest.',
      'A <tool_call:x> or <tool_calls:y> with nothing after; Solar writes <|tool_call:start|> on its own.',
    ].join('\n');
    expect(checked(prose)).toEqual([]);
    expect(checked(prose, { tools: ['search'] })).toEqual([]);
  });

  it('reads each format in a mixed answer and nothing else', () => {
    const G = '\uff5cGCML\uff5c';
    const text = `First <tool_call>a<tool_sep><arg_key>k</arg_key><arg_value>1</arg_value></tool_call>, then <${G}tool_calls><${G}invoke name="b"></${G}invoke></${G}tool_calls>, a < b > c, <ifm|tool_call>c</ifm|tool_call> and <start_function_call>call:d{}<end_function_call>.`;
    expect(checked(text).map((c) => c.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(checked(text, { tools: ['a', 'd'] }).map((c) => c.name)).toEqual(['a', 'd']);
    expect(checked(text, { formats: ['glm'] }).map((c) => c.name)).toEqual(['a', 'c']);
    expect(checked(text, { formats: ['call', 'json'] })).toEqual([]);
  });
});

describe('adversarial input of the newer spellings (speed is measured in bench/, these only check the answers)', () => {
  it('survives 200 kB of unclosed openers of every newer spelling', () => {
    for (const opener of [
      '<\uff5cDSML\uff5c calls><\uff5cDSML\uff5c invoke name="f">',
      '<\uff5cGCML\uff5ctool_calls>',
      '<tool_calls:s><tool_call:s>f<arg_key:s>',
      '<tool_call:s>f ',
      '<tool_call>f<tool_sep><arg_key>a',
      '<iquestcoder_tool_call>f<arg_key>',
      '<ifm|tool_call>f<ifm|arg_key>',
      '<dots_function_call><invoke name="f">',
      '<start_function_call>call:f{a:<escape>',
      '<|tool_call:start|>f\n<|tool_arg:start|>a<|tool_arg:value|>',
      '<|tool_call:begin|>x<|tool_call:name|>f<|tool_call:args|>{',
      '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="a" type="string"<|sep|>',
      ']<]minimax[>[<tool_call>]<]minimax[>[<invoke name="f">]<]minimax[>[<a>]<]minimax[>[<b>',
      '<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>f',
    ]) {
      const text = opener.repeat(Math.ceil(200_000 / opener.length));
      expect(extractToolCalls(text)).toEqual([]);
    }
  });

  it('reads a Kimi K3 block of a megabyte of headers without `<|sep|>` (each header is searched only as far as a header reaches)', () => {
    // A search for `<|sep|>` to the block's end from every header took 20 s here (quadratic).
    const close = '<|close|>tools<|sep|> after';
    const calls = `<|open|>tools<|sep|>${'<|open|>call'.repeat(80_000)}${close}`;
    const args = `<|open|>tools<|sep|><|open|>call tool="f"<|sep|>${'<|open|>argument'.repeat(60_000)}${close}`;
    const closed = `<|open|>tools<|sep|><|open|>call tool="f"<|sep|>${'<|open|>argument'.repeat(60_000)}<|open|>argument key="a" type="string"<|sep|>x<|close|>argument<|sep|><|close|>call<|sep|>${close}`;
    expect(extractToolCalls(calls)).toEqual([]);
    expect(extractToolCalls(args)).toEqual([]);
    expect(extractToolCalls(closed).map((c) => [c.name, c.arguments])).toEqual([['f', { a: 'x' }]]);
  });
});

describe('namespaced names (ns::tool) in every format', () => {
  const name = 'mcp::search';
  const call = { name, arguments: { q: 'x' } };
  const D = '\uff5cDSML\uff5c ';

  it('reads them as written, in batch and at every chunking, listed or (where markup delimits the name) not', () => {
    const texts = [
      ...ALL_FORMATS.filter((format) => format !== 'call' && format !== 'json').map((format) => renderToolCall(call, format)),
      renderToolCall(call, 'json-tag'),
      `[TOOL_CALLS] [{"name": "${name}", "arguments": {"q": "x"}}]`,
      `<${D}calls><${D}invoke name="${name}"><${D}parameter name="q" string="true">x</${D}parameter></${D}invoke></${D}calls>`,
      `<tool_calls:s><tool_call:s>${name}<arg_key:s>q</arg_key:s><arg_value:s>x</arg_value:s></tool_call:s></tool_calls:s>`,
      `<tool_call:s>${name}<arg_key:s>q</arg_key:s><arg_value:s>x</arg_value:s></tool_call:s>`,
      `<tool_call>${name}<tool_sep><arg_key>q</arg_key><arg_value>x</arg_value></tool_call>`,
      `<iquestcoder_tool_call>${name}<arg_key>q</arg_key><arg_value>x</arg_value></iquestcoder_tool_call>`,
      `<ifm|tool_call>${name}<ifm|arg_key>q</ifm|arg_key><ifm|arg_value>x</ifm|arg_value></ifm|tool_call>`,
      `<dots_function_call><invoke name="${name}"><parameter name="q">x</parameter></invoke></dots_function_call>`,
      `<|tool_call:begin|>i1<|tool_call:name|>${name}<|tool_call:args|>{"q":"x"}<|tool_call:end|>`,
      `<function=${name}>\n<parameter=q>\nx\n</parameter>\n</function>`,
      `<function name="${name}">{"q": "x"}</function>`,
      `>>>${name}\n{"q": "x"}`,
      `<tool_call>function\n${name}\n{"q": "x"}</tool_call>`,
    ];
    for (const text of texts) {
      expect(checked(`Sure. ${text}`, { tools: [name], formats: ALL_FORMATS }), text).toEqual([call]);
      expect(checked(`Sure. ${text}`, { formats: ALL_FORMATS }), text).toEqual([call]);
      // Only the name as written is listed.
      expect(checked(`Sure. ${text}`, { tools: ['search', 'mcp'], formats: ALL_FORMATS }), text).toEqual([]);
    }
  });

  it('ends a name at a single colon or a join that no name follows', () => {
    expect(checked('<tool_call>a:b<arg_key>q</arg_key><arg_value>x</arg_value></tool_call>')).toEqual([]);
    expect(checked('<tool_call>a::<arg_key>q</arg_key><arg_value>x</arg_value></tool_call>')).toEqual([]);
    expect(checked('[TOOL_CALLS]a:::b[ARGS]{"q": "x"}')).toEqual([]);
    expect(checked('>>>a::b::c\n{"q": "x"}')).toEqual([{ name: 'a::b::c', arguments: { q: 'x' } }]);
  });
});

describe('numbers JSON cannot hold, in the JSON-bodied native formats', () => {
  const big = `1${'0'.repeat(400)}`;
  const D = '\uff5cDSML\uff5c ';
  const G = '\uff5cGCML\uff5c';
  const bodies: Record<string, (v: string) => string> = {
    'kimi-k3': (v) => `<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="n" type="integer"<|sep|>${v}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`,
    'kimi-k3 object': (v) => `<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|open|>argument key="n" type="object"<|sep|>${v}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`,
    plamo3: (v) =>
      `<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>f<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>{"n": ${v}}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>`,
    'solar-open': (v) => `<|tool_call:begin|>c1<|tool_call:name|>f<|tool_call:args|>{"n": ${v}}<|tool_call:end|>`,
    'deepseek-dsml v4.1': (v) => `<${D}calls><${D}invoke name="f"><${D}parameter name="n" string="false">${v}</${D}parameter></${D}invoke></${D}calls>`,
    'deepseek-dsml': (v) => `<\uff5cDSML\uff5cfunction_calls><\uff5cDSML\uff5cinvoke name="f"><\uff5cDSML\uff5cparameter name="n" string="false">${v}</\uff5cDSML\uff5cparameter></\uff5cDSML\uff5cinvoke></\uff5cDSML\uff5cfunction_calls>`,
    gcml: (v) => `<${G}tool_calls><${G}invoke name="f"><${G}parameter name="n" string="false">${v}</${G}parameter></${G}invoke></${G}tool_calls>`,
    'kimi-k2': (v) => `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"n": ${v}}<|tool_call_end|><|tool_calls_section_end|>`,
    deepseek: (v) => `<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>{"n": ${v}}<\uff5ctool\u2581call\u2581end\uff5c><\uff5ctool\u2581calls\u2581end\uff5c>`,
    apertus: (v) => `<|tools_prefix|>[{"f": {"n": ${v}}}]<|tools_suffix|>`,
    hermes: (v) => `<tool_call>{"name": "f", "arguments": {"n": ${v}}}</tool_call>`,
  };
  const integer = { name: 'f', inputSchema: { type: 'object' as const, properties: { n: { type: 'integer' as const } } } };

  it('keeps a non-finite or rounded number as its text (never Infinity, null or another number), with or without a schema', () => {
    for (const [format, body] of Object.entries(bodies)) {
      for (const v of ['1e400', big, '-1e400', '12345678901234567890', '9007199254740993']) {
        const value = format === 'kimi-k3 object' ? { x: v } : v;
        const raw = format === 'kimi-k3 object' ? `{"x": ${v}}` : v;
        expect(checked(`Sure. ${body(raw)}`), `${format} ${v.slice(0, 12)}`).toEqual([{ name: 'f', arguments: { n: value } }]);
        if (format !== 'kimi-k3 object') expect(checked(`Sure. ${body(raw)}`, { tools: [integer] }), `${format} ${v.slice(0, 12)} typed`).toEqual([{ name: 'f', arguments: { n: v } }]);
      }
    }
  });

  it('keeps numbers JSON holds as numbers', () => {
    for (const [format, body] of Object.entries(bodies)) {
      for (const v of ['1.5', '-3', '0.1', '1e20', '9007199254740991']) {
        const value = format === 'kimi-k3 object' ? { x: Number(v) } : Number(v);
        const raw = format === 'kimi-k3 object' ? `{"x": ${v}}` : v;
        expect(checked(body(raw)), `${format} ${v}`).toEqual([{ name: 'f', arguments: { n: value } }]);
      }
    }
  });
});
