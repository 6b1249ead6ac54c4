import { describe, expect, it } from 'vitest';
import { extractToolCalls } from './extract-tool-calls.ts';
import { createToolCallParser } from './tool-call-parser.ts';
import type { ExtractableTool } from './extract-options.ts';

function calls(text: string, tools?: readonly (string | ExtractableTool)[]): { name: string; arguments: Record<string, unknown> }[] {
  return extractToolCalls(text, tools === undefined ? undefined : { tools }).map((c) => ({ name: c.name, arguments: c.arguments }));
}

describe('extractToolCalls: call syntax', () => {
  it('finds a call in prose', () => {
    expect(calls('Sure. search_database(query="python", limit=10) Then I will summarise.')).toEqual([
      { name: 'search_database', arguments: { query: 'python', limit: 10 } },
    ]);
  });

  it('finds a call that spans several lines', () => {
    expect(calls('search(\n  query="python",\n  limit=10,\n)')).toEqual([{ name: 'search', arguments: { query: 'python', limit: 10 } }]);
  });

  it('finds calls inside markdown code fences and inline code', () => {
    expect(calls('```python\nsearch(query="a")\n```\nor `search(query="b")`')).toEqual([
      { name: 'search', arguments: { query: 'a' } },
      { name: 'search', arguments: { query: 'b' } },
    ]);
  });

  it('reads dotted names', () => {
    expect(calls('math.factorial(5)')).toEqual([{ name: 'math.factorial', arguments: { arg0: 5 } }]);
  });

  it('reads Unicode identifiers', () => {
    expect(calls('天气(城市="北京") und größe_prüfen(wert=3)')).toEqual([
      { name: '天气', arguments: { 城市: '北京' } },
      { name: 'größe_prüfen', arguments: { wert: 3 } },
    ]);
  });

  it('reads a call without arguments', () => {
    expect(calls('get_time()')).toEqual([{ name: 'get_time', arguments: {} }]);
  });

  it('reads Python-style lists of calls', () => {
    expect(calls('[get_weather(city="Paris"), get_time(tz="UTC")]')).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris' } },
      { name: 'get_time', arguments: { tz: 'UTC' } },
    ]);
  });

  it('reads a list followed by a leaked end token', () => {
    expect(calls('[get_weather(city="Paris")]<end_of_turn>')).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
  });

  it('reads <|python_tag|> followed by call syntax', () => {
    expect(calls('<|python_tag|>brave_search.call(query="weather")')).toEqual([
      { name: 'brave_search.call', arguments: { query: 'weather' } },
    ]);
  });
});

describe('extractToolCalls: JSON', () => {
  it('reads {"name", "arguments"}', () => {
    expect(calls('{"name": "f", "arguments": {"a": 1}}')).toEqual([{ name: 'f', arguments: { a: 1 } }]);
  });

  it('reads "parameters" in place of "arguments"', () => {
    expect(calls('{"name": "f", "parameters": {"a": 1}}')).toEqual([{ name: 'f', arguments: { a: 1 } }]);
  });

  it('reads arguments given as a JSON string', () => {
    expect(calls('{"name": "f", "arguments": "{\\"a\\": 1}"}')).toEqual([{ name: 'f', arguments: { a: 1 } }]);
  });

  it('reads arrays of call objects', () => {
    expect(calls('[{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {}}]')).toEqual([
      { name: 'f', arguments: { a: 1 } },
      { name: 'g', arguments: {} },
    ]);
  });

  it('reads fenced ```json blocks', () => {
    expect(calls('Here you go:\n```json\n{"name": "f", "arguments": {"a": "x"}}\n```')).toEqual([{ name: 'f', arguments: { a: 'x' } }]);
  });

  it('reads call objects nested in a wrapper (tool_calls, function)', () => {
    const text = '{"tool_calls": [{"id": "1", "type": "function", "function": {"name": "g", "arguments": "{\\"x\\": 1}"}}]}';
    expect(calls(text)).toEqual([{ name: 'g', arguments: { x: 1 } }]);
  });

  it('ignores JSON objects that are not calls', () => {
    expect(calls('The result is {"name": "Bob", "age": 3} and {"a": 1}.')).toEqual([]);
  });
});

describe('extractToolCalls: tagged', () => {
  it('reads <tool_call>{json}</tool_call>', () => {
    expect(calls('<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>')).toEqual([{ name: 'f', arguments: { a: 1 } }]);
  });

  it('reads <function_call> and <tools> relatives', () => {
    expect(calls('<function_call>{"name": "f", "arguments": {}}</function_call><tools>{"name": "g", "arguments": {}}</tools>')).toEqual([
      { name: 'f', arguments: {} },
      { name: 'g', arguments: {} },
    ]);
  });

  it('reads [TOOL_CALLS] followed by a JSON list', () => {
    expect(calls('[TOOL_CALLS] [{"name": "add", "arguments": {"a": 3.5, "b": 4}}]')).toEqual([
      { name: 'add', arguments: { a: 3.5, b: 4 } },
    ]);
  });

  it('reads [TOOL_CALLS]name{…}, several in a row', () => {
    expect(calls('[TOOL_CALLS]add{"a": 3.5}[TOOL_CALLS]get_time{}')).toEqual([
      { name: 'add', arguments: { a: 3.5 } },
      { name: 'get_time', arguments: {} },
    ]);
  });

  it('does not read name{…} without the [TOOL_CALLS] marker as a call', () => {
    expect(calls('add{"a": 3.5}')).toEqual([]);
  });

  it('keeps a literal </tool_call> inside a JSON string argument (vLLM #45167)', () => {
    expect(calls('<tool_call>{"name": "echo", "arguments": {"text": "say </tool_call> now"}}</tool_call>')).toEqual([
      { name: 'echo', arguments: { text: 'say </tool_call> now' } },
    ]);
  });

  it('keeps unbalanced braces inside a JSON string argument (vLLM #21544)', () => {
    expect(calls('<tool_call>{"name": "sh", "arguments": {"cmd": "mkdir -p test/{test1,test2"}}</tool_call>')).toEqual([
      { name: 'sh', arguments: { cmd: 'mkdir -p test/{test1,test2' } },
    ]);
  });

  it('reads <|python_tag|>{json}', () => {
    expect(calls('<|python_tag|>{"name": "f", "parameters": {"q": "x"}}')).toEqual([{ name: 'f', arguments: { q: 'x' } }]);
  });
});

describe('extractToolCalls: argument text', () => {
  it('never ends an argument or a call at parentheses, commas, braces or quotes inside strings', () => {
    expect(calls(`search(q="a), b, {c}, 'd'", r='x")(')`)).toEqual([{ name: 'search', arguments: { q: `a), b, {c}, 'd'`, r: 'x")(' } }]);
  });

  it('decodes escapes', () => {
    expect(calls(String.raw`write(text="line\nnext \"quoted\"")`)).toEqual([{ name: 'write', arguments: { text: 'line\nnext "quoted"' } }]);
  });

  it('keeps an argument after a string with an apostrophe and an expression, batch and streamed', () => {
    const text = `f(a="it's".upper(), b="won't")`;
    const expected = [{ name: 'f', arguments: { a: `"it's".upper()`, b: "won't" } }];
    expect(calls(text)).toEqual(expected);
    const parser = createToolCallParser();
    const events = [...Array.from(text).flatMap((c) => parser.push(c)), ...parser.end()];
    expect(events.flatMap((e) => (e.type === 'tool-call' ? [{ name: e.toolCall.name, arguments: e.toolCall.arguments }] : []))).toEqual(expected);
  });

  it('agrees batch and streamed on a string with its own quotes and a bracket of the wrong kind after it', () => {
    const tools: ExtractableTool[] = [{ name: 'bash', inputSchema: { type: 'object', properties: { k0: { type: 'array', items: { type: 'string' } } } } }];
    const text = `bash(k0='g'a(}'x') y`;
    const parser = createToolCallParser({ tools });
    const events = [...Array.from(text).flatMap((c) => parser.push(c)), ...parser.end()];
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([]);
    expect(extractToolCalls(text, { tools })).toEqual([]);
  });

  it('keeps Windows paths with escaped backslashes', () => {
    expect(calls(String.raw`run(command="dir C:\\Users")`)).toEqual([{ name: 'run', arguments: { command: 'dir C:\\Users' } }]);
  });
});

describe('extractToolCalls: a quote after a no-break space', () => {
  // U+00A0 and U+FEFF are spaces to the argument reading: a `'` after one opens a string
  // there and in the scan that finds the call's `)`, batch and streamed alike.
  const cases: [string, { name: string; arguments: Record<string, unknown> }[]][] = [
    ["f(a=\u00a0'x)', b=[[1]])", [{ name: 'f', arguments: { a: 'x)', b: [[1]] } }]],
    ["f(a=\u00a0'x ', b=[[1]]) g(y=2)", [{ name: 'f', arguments: { a: 'x ', b: [[1]] } }, { name: 'g', arguments: { y: 2 } }]],
    ["f(a=\ufeff'x)', b=[[1]])", [{ name: 'f', arguments: { a: 'x)', b: [[1]] } }]],
    ["f(a=[\u00a0'x)', [1]])", [{ name: 'f', arguments: { a: ['x)', [1]] } }]],
    ['h(n=[[1]]) '.repeat(12) + "f(a=\u00a0'x ') g(y=2)", [{ name: 'h', arguments: { n: [[1]] } }, { name: 'f', arguments: { a: 'x ' } }, { name: 'g', arguments: { y: 2 } }]],
  ];

  it('reads the string, batch and streamed a character at a time', () => {
    for (const [text, expected] of cases) {
      expect(calls(text)).toEqual(expected);
      const parser = createToolCallParser();
      const streamed: { name: string; arguments: Record<string, unknown> }[] = [];
      const events = [];
      for (let i = 0; i < text.length; i++) events.push(...parser.push(text.charAt(i)));
      events.push(...parser.end());
      for (const event of events) if (event.type === 'tool-call') streamed.push({ name: event.toolCall.name, arguments: event.toolCall.arguments });
      expect(streamed).toEqual(expected);
    }
  });
});

describe('extractToolCalls: names', () => {
  it('matches whole identifiers only against the allow-list', () => {
    expect(calls('re_search(q=1) search_all(q=2) search(q=3)', ['search'])).toEqual([{ name: 'search', arguments: { q: 3 } }]);
  });

  it('does not match a dotted name whose last part is allowed', () => {
    expect(calls('obj.search(q=1)', ['search'])).toEqual([]);
  });

  it('does not take a definition for a call', () => {
    expect(calls('def search(query):\n  pass\nfunction search(q) {}', ['search'])).toEqual([]);
    expect(calls('def search(query): pass')).toEqual([]);
  });

  it('does not take links, parentheses after a space, or e.g. (x) for calls', () => {
    expect(calls('[link](https://example.com) see (above) and e.g. (x)')).toEqual([]);
  });

  it('does not take control-flow words for calls in any-name mode', () => {
    expect(calls('if (x) while(y) for(z)')).toEqual([]);
  });

  it('does not take a name that starts with a digit', () => {
    expect(calls('3d(x=1)')).toEqual([]);
  });

  it('counts any identifier without an allow-list', () => {
    expect(calls('anything_at_all(1)')).toEqual([{ name: 'anything_at_all', arguments: { arg0: 1 } }]);
  });

  it('applies the allow-list to JSON calls too', () => {
    expect(calls('{"name": "rm", "arguments": {}} {"name": "search", "arguments": {}}', ['search'])).toEqual([
      { name: 'search', arguments: {} },
    ]);
  });
});

describe('extractToolCalls: bad input', () => {
  it('does not return a call that never closes', () => {
    expect(calls('search(query="python", limit=10')).toEqual([]);
  });

  it('does not run on to an unrelated ) later in the text', () => {
    expect(calls('search(query="python and then (see below) the end', ['search'])).toEqual([]);
    expect(calls('I will search(query="x and stop.\nLater (maybe) more.', ['search'])).toEqual([]);
  });

  it('does not return a call whose brackets do not match', () => {
    expect(calls('search(q=[1, 2)')).toEqual([]);
  });

  it('does not return a call whose arguments do not parse, and keeps scanning after it', () => {
    expect(calls('search(q=) then get_time(tz="UTC")')).toEqual([{ name: 'get_time', arguments: { tz: 'UTC' } }]);
  });

  it('does not return an unclosed JSON call', () => {
    expect(calls('{"name": "f", "arguments": {"a": 1}')).toEqual([]);
  });

  it('survives a megabyte of unclosed quotes', () => {
    expect(calls(`f(a="${'x'.repeat(1_000_000)}`)).toEqual([]);
  });

  it('survives deeply nested unclosed calls', () => {
    expect(calls('a('.repeat(200_000))).toEqual([]);
  });

  it('reads deeply nested closed calls as one call whose argument is the inner text', () => {
    const inner = `${'a('.repeat(99_999)}${')'.repeat(99_999)}`;
    expect(calls(`a(${inner})`)).toEqual([{ name: 'a', arguments: { arg0: inner } }]);
  });
});

describe('extractToolCalls: de-duplication and ids', () => {
  it('returns identical calls once, whatever the spelling, in order of first appearance', () => {
    expect(
      calls(`f(a=1, b="x") g() f(b='x', a=1) {"name": "f", "arguments": {"b": "x", "a": 1}} f(a=2)`),
    ).toEqual([
      { name: 'f', arguments: { a: 1, b: 'x' } },
      { name: 'g', arguments: {} },
      { name: 'f', arguments: { a: 2 } },
    ]);
  });

  it('returns identical calls once among many calls, repeats coming before and after the first ten', () => {
    const distinct = Array.from({ length: 12 }, (_, i) => `f(a=${i}, b="x")`);
    const repeats = Array.from({ length: 12 }, (_, i) => `f(b='x', a=${11 - i})`);
    const text = [...distinct.slice(0, 3), repeats[11], ...distinct.slice(3), ...repeats, 'g()', 'g()'].join(' ');
    expect(calls(text)).toEqual([...Array.from({ length: 12 }, (_, i) => ({ name: 'f', arguments: { a: i, b: 'x' } })), { name: 'g', arguments: {} }]);
  });

  it('numbers ids ${name}_${index} over the whole list', () => {
    expect(extractToolCalls('SearchDatabase(q=1) GetWeather(c=2)').map((c) => c.id)).toEqual(['SearchDatabase_0', 'GetWeather_1']);
  });

  it('makes ids with the id option', () => {
    expect(extractToolCalls('f() g()', { id: (name, index) => `call-${index}-${name}` }).map((c) => c.id)).toEqual(['call-0-f', 'call-1-g']);
  });
});

describe('extractToolCalls: tools and formats', () => {
  it('coerces arguments with the schemas of tool definitions', () => {
    const tool = { name: 'search', inputSchema: { type: 'object' as const, properties: { limit: { type: 'integer' as const } } } };
    expect(extractToolCalls('search(limit="5")', { tools: [tool] })[0]?.arguments).toEqual({ limit: 5 });
    expect(extractToolCalls('{"name": "search", "arguments": {"limit": "7"}}', { tools: [tool] })[0]?.arguments).toEqual({ limit: 7 });
  });

  it('reads short and long allow-lists alike (a short one is read in place, a long one resolved once)', () => {
    const typed = { name: 'search', inputSchema: { type: 'object' as const, properties: { limit: { type: 'integer' as const } } } };
    const text = 'search(limit="5") other(x=1) {"name": "get", "arguments": {"n": "2"}} get(n="3") <function=get>{"n": 4}</function>';
    const short = [typed, 'get', 'search2'];
    const long = [...short, ...Array.from({ length: 20 }, (_, i) => `unused_${i}`)];
    const expected = [
      { name: 'search', arguments: { limit: 5 } },
      { name: 'get', arguments: { n: '2' } },
      { name: 'get', arguments: { n: '3' } },
      { name: 'get', arguments: { n: 4 } },
    ];
    expect(calls(text, short)).toEqual(expected);
    expect(calls(text, long)).toEqual(expected);
    // A name listed twice takes its last entry's schema, in both forms.
    for (const pad of [[], long]) {
      expect(extractToolCalls('search(limit="5")', { tools: [...pad, typed, 'search'] })[0]?.arguments).toEqual({ limit: '5' });
      expect(extractToolCalls('search(limit="5")', { tools: [...pad, 'search', typed] })[0]?.arguments).toEqual({ limit: 5 });
    }
  });

  it('looks only for the formats asked for', () => {
    const text = 'f(a=1) {"name": "g", "arguments": {}}';
    expect(extractToolCalls(text, { formats: ['call'] }).map((c) => c.name)).toEqual(['f']);
    expect(extractToolCalls(text, { formats: ['json'] }).map((c) => c.name)).toEqual(['g']);
  });

  it('returns nothing for prose without calls', () => {
    expect(calls("No function matches the user's request.")).toEqual([]);
  });
});
