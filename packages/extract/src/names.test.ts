import { describe, expect, it } from 'vitest';
import { extractToolCalls } from './extract-tool-calls.ts';
import type { ExtractOptions } from './extract-options.ts';
import { renderToolCall } from './render-tool-call.ts';
import { renderToolPrompt } from './render-tool-prompt.ts';
import { createToolCallParser } from './tool-call-parser.ts';
import { checked } from '../test/helpers/checked-calls.ts';

function calls(text: string, tools?: readonly string[]): { name: string; arguments: Record<string, unknown> }[] {
  return extractToolCalls(text, tools === undefined ? undefined : { tools }).map((c) => ({ name: c.name, arguments: c.arguments }));
}

function streamed(text: string, size: number, tools?: readonly string[]): string[] {
  const parser = createToolCallParser(tools === undefined ? undefined : { tools });
  const names: string[] = [];
  for (let i = 0; i < text.length; i += size) {
    for (const event of parser.push(text.slice(i, i + size))) if (event.type === 'tool-call') names.push(event.toolCall.name);
  }
  for (const event of parser.end()) if (event.type === 'tool-call') names.push(event.toolCall.name);
  return names;
}

describe('names in call syntax without an allow-list', () => {
  it('reads identifiers that start with a letter or "_", not with a digit', () => {
    expect(calls('see 3d(x=1) and 2(y=2)')).toEqual([]);
    expect(calls('_private(x=1) Get_Weather2(x=2)')).toEqual([
      { name: '_private', arguments: { x: 1 } },
      { name: 'Get_Weather2', arguments: { x: 2 } },
    ]);
  });

  it('reads a dotted or hyphenated part that starts with a digit only after a hyphen', () => {
    expect(calls('gpt-4o(x=1) a.4b(x=2) math.sqrt(x=3)')).toEqual([
      { name: 'gpt-4o', arguments: { x: 1 } },
      { name: 'math.sqrt', arguments: { x: 3 } },
    ]);
  });
});

describe('names with hyphens (the tool-name rule of core)', () => {
  it('reads a hyphenated name in call syntax, with and without an allow-list', () => {
    expect(calls('weather-now(city="Paris")')).toEqual([{ name: 'weather-now', arguments: { city: 'Paris' } }]);
    expect(calls('Sure: weather-now(city="Paris")', ['weather-now'])).toEqual([{ name: 'weather-now', arguments: { city: 'Paris' } }]);
  });

  it('reads whatever the allow-list says, dots and hyphens included', () => {
    expect(calls('files.read-v2(path="a")', ['files.read-v2'])).toEqual([{ name: 'files.read-v2', arguments: { path: 'a' } }]);
  });

  it('reads hyphenated names in JSON calls', () => {
    expect(calls('{"name": "weather-now", "arguments": {"city": "Oslo"}}', ['weather-now'])).toEqual([
      { name: 'weather-now', arguments: { city: 'Oslo' } },
    ]);
  });

  it('does not make names out of arithmetic or dangling hyphens', () => {
    expect(calls('a - b(x)')).toEqual([{ name: 'b', arguments: { arg0: 'x' } }]);
    expect(calls('x -b(1) and y--z(2) and q-(3)')).toEqual([]);
  });

  it('does not take a hyphenated prefix of an allowed name', () => {
    expect(calls('pre-search(q=1)', ['search'])).toEqual([]);
  });

  it('streams hyphenated names at every chunk size', () => {
    for (const size of [1, 2, 3, 5, 100]) expect(streamed('ok weather-now(city="x") done', size, ['weather-now'])).toEqual(['weather-now']);
  });
});

describe('names after an unspaced script (CJK)', () => {
  it('finds an allowed name glued to Chinese prose', () => {
    expect(calls('请调用get_weather(city="北京")', ['get_weather'])).toEqual([{ name: 'get_weather', arguments: { city: '北京' } }]);
  });

  it('starts the name at the script boundary without an allow-list too', () => {
    expect(calls('请调用get_weather(city="北京")')).toEqual([{ name: 'get_weather', arguments: { city: '北京' } }]);
    expect(calls('天気を調べますget-weather(city="東京")')).toEqual([{ name: 'get-weather', arguments: { city: '東京' } }]);
  });

  it('still reads names written in CJK, and mixed names that are listed', () => {
    expect(calls('天气(城市="北京")')).toEqual([{ name: '天气', arguments: { 城市: '北京' } }]);
    expect(calls('天气_now(x=1)', ['天气_now'])).toEqual([{ name: '天气_now', arguments: { x: 1 } }]);
  });

  it('keeps Latin letters with diacritics inside a name', () => {
    expect(calls('größe_prüfen(wert=3)')).toEqual([{ name: 'größe_prüfen', arguments: { wert: 3 } }]);
  });

  it('does not split an ASCII run at an underscore', () => {
    expect(calls('re_search(q=1)', ['search'])).toEqual([]);
  });

  it('streams the boundary case at every chunk size, with and without an allow-list', () => {
    const text = '好的，请调用get_weather(city="北京")。';
    for (const size of [1, 2, 3, 4, 7, 100]) {
      expect(streamed(text, size, ['get_weather'])).toEqual(['get_weather']);
      expect(streamed(text, size)).toEqual(['get_weather']);
    }
  });
});

describe('paths in call syntax (IDENT::name)', () => {
  const both = (text: string, options?: ExtractOptions) => checked(text, options).map((c) => [c.name, c.arguments]);

  it('never reads `IDENT::name(` as a call of `name`, as `x.name(` is none, with or without an allow-list', () => {
    const code: [string, string[] | undefined][] = [
      ['x.sort(v)', ['sort']],
      ['std::sort(v)', ['sort']],
      ['std::sort(v)', undefined],
      ['std::sort(v.begin(), v.end());', ['sort']],
      ['let v = Vec::new();', ['new']],
      ['let s = fs::read_to_string(path)?;', undefined],
      ['let s = fs::read_to_string(path)?;', ['read_to_string']],
      ['Call ns::tool(x) to run it.', ['tool']],
      ['$this->x = Foo::bar($y);', undefined],
      ['a::b::c(1)', ['c', 'b::c']],
      ['请调用std::sort(v)', ['sort']],
    ];
    for (const [text, tools] of code) expect(both(text, tools === undefined ? undefined : { tools }), text).toEqual([]);
    // A single colon is punctuation, not a path (`Call:search(…)`).
    expect(both('Call:search(q="x")', { tools: ['search'] })).toEqual([['search', { q: 'x' }]]);
    expect(both('Then: search(q="x")')).toEqual([['search', { q: 'x' }]]);
  });

  it('never reads a name right after `::` as a call, whatever precedes it (`::open(`, `a:::b(`), nor one after `->`', () => {
    const tools = ['open', 'write', 'close', 'sort', 'b', 'ns::tool'];
    const code = [
      'if (::write(fd, buf, n) < 0) return -1;',
      '  ::close(fd);',
      'int fd = ::open(path, O_RDONLY);',
      'std::vector<int> v; ::sort(v);',
      '::open(path)',
      'a:::b(x)',
      'a:::b(x=1)',
      '::ns::tool(x=1)',
      'x:::ns::tool(x=1)',
      '请调用::open(path)',
      'conn->close();',
      '$db->close()',
      'p->write(fd, buf)',
    ];
    for (const text of code) {
      expect(both(text, { tools }), text).toEqual([]);
      expect(both(text), text).toEqual([]);
    }
    // Space between them is prose: `a :: b(x)` and `then -> close(fd)` stay calls, as does `Then:close(fd)`.
    expect(both('a :: b(x)', { tools })).toEqual([['b', { arg0: 'x' }]]);
    expect(both('then -> close(fd)', { tools })).toEqual([['close', { arg0: 'fd' }]]);
    expect(both('Then:close(fd)', { tools })).toEqual([['close', { arg0: 'fd' }]]);
    expect(both('ns::tool(x=1)', { tools })).toEqual([['ns::tool', { x: 1 }]]);
    // Nor is a name after a script boundary: prose in an unspaced script runs into it.
    for (const options of [{ tools }, undefined]) {
      expect(both('std::请调用open(p)', options)).toEqual([['open', { arg0: 'p' }]]);
      expect(both('::请调用open(p)', options)).toEqual([['open', { arg0: 'p' }]]);
      expect(both('x->请调用open(p)', options)).toEqual([['open', { arg0: 'p' }]]);
    }
  });

  it('reads no path as a call without an allow-list, keyword arguments or not (the name is markup’s to delimit)', () => {
    expect(both('a::b(x=1)')).toEqual([]);
    expect(both('github::create_issue(title="Bug")')).toEqual([]);
  });

  it('reads a path listed as written as that call (ns::tool, as the call format teaches it)', () => {
    const tools = ['github::create_issue', 'a::b::c', 'sort'];
    expect(both('I will file it.\ngithub::create_issue(title="Bug")', { tools })).toEqual([['github::create_issue', { title: 'Bug' }]]);
    expect(both('a::b::c(x=1) then sort(v)', { tools })).toEqual([
      ['a::b::c', { x: 1 }],
      ['sort', { arg0: 'v' }],
    ]);
    expect(both('请调用github::create_issue(title="Bug")', { tools })).toEqual([['github::create_issue', { title: 'Bug' }]]);
    // A path after a script boundary, wherever the boundary is, also after a `::` with no name
    // before it: the text before is prose (found by the chunking property test).
    for (const text of ['::请调用github::create_issue(title="Bug")', 'std::请调用github::create_issue(title="Bug")', ':::😀github::create_issue(title="Bug")', 'x::😀github::create_issue(title="Bug")']) {
      expect(both(text, { tools }), text).toEqual([['github::create_issue', { title: 'Bug' }]]);
    }
    // Only the whole path as listed: not a longer one, nor a part of it.
    for (const text of ['xgithub::create_issue(title="Bug")', 'x::github::create_issue(title="Bug")', 'b::c(x=1)', 'github:create_issue(x=1)', 'github::create(x=1)']) {
      expect(both(text, { tools }), text).toEqual([]);
    }
  });

  it('reads Toolwire’s own `call` rendering of a path back, and what its prompt teaches', () => {
    const name = 'github::create_issue';
    const rendered = renderToolCall({ id: 'c1', name, arguments: { title: 'Bug', labels: ['a'] } }, 'call');
    expect(rendered).toBe('github::create_issue(title="Bug", labels=["a"])');
    expect(both(`Sure. ${rendered}`, { tools: [name] })).toEqual([[name, { title: 'Bug', labels: ['a'] }]]);
    const prompt = renderToolPrompt([{ name, inputSchema: { type: 'object', properties: { title: { type: 'string' } } } }]);
    const taught = prompt.split('\n').find((line) => line.startsWith(`${name}(`)) ?? '';
    expect(both(taught, { tools: [{ name, inputSchema: { type: 'object', properties: { title: { type: 'string' } } } }] })).toEqual([[name, { title: '...' }]]);
  });
});
