import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExtractableTool } from './extract-options.ts';
import { extractToolCalls } from './extract-tool-calls.ts';
import { SMALL_LIST_LENGTH, InPlaceAllowList } from './in-place-allow-list.ts';
import { createToolCallParser } from './tool-call-parser.ts';

// Names that share lengths, first characters, prefixes and suffixes, with dots, hyphens and
// a non-ASCII one: what the in-place comparison of a short list must tell apart. The last four
// are 13 characters or more, the length from which V8 cuts a string as a view into the text
// (compared outside the engine's fast path): pairs with the same length, first and last character.
const NAMES = [
  'f',
  'g',
  'get',
  'got',
  'get_a',
  'get_b',
  'set_a',
  'math.sqrt',
  'math.sqr',
  'weather-now',
  'search',
  '搜索',
  'get_weather_now',
  'get_weathor_now',
  'calculate_triangle_area',
  'calculate_triangle_arxa',
];
const SCHEMA = { type: 'object', properties: { x: { type: 'string' }, n: { type: 'integer' } } } as const;

// Pieces of text around and inside calls: prose in spaced and unspaced scripts, call syntax,
// JSON calls, tool definitions and a definition keyword.
const fragment = fc.oneof(
  fc.constantFrom(...NAMES),
  fc.constantFrom('(', ')', 'x=1', 'n="5"', 'x=5', ', ', '"', '[', ']', ' ', '\n', 'ok ', '请调用', '东京', 'def ', 'the get_', '.', '-'),
  fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom('', 'x=1', 'n="5"', 'x=g(1)')).map(([name, args]) => `${name}(${args})`),
  fc.constantFrom(...NAMES).map((name) => `{"name": "${name}", "arguments": {"n": "7"}}`),
  fc.constantFrom(...NAMES).map((name) => `<tool_call>{"name": "${name}", "arguments": {"x": 3}}</tool_call>`),
);
const text = fc.array(fragment, { maxLength: 24 }).map((parts) => parts.join(''));

const tool: fc.Arbitrary<string | ExtractableTool> = fc.oneof(
  fc.constantFrom(...NAMES),
  fc.constantFrom(...NAMES).map((name) => ({ name })),
  fc.constantFrom(...NAMES).map((name) => ({ name, inputSchema: SCHEMA })),
);
// Up to the longest list read in place, duplicates included (a name listed twice takes its last schema).
const list = fc.array(tool, { maxLength: SMALL_LIST_LENGTH });

// Names no text above contains: padding a list with them makes it too long to be read in place.
const PADDING = Array.from({ length: SMALL_LIST_LENGTH + 1 }, (_, i) => `pad_q${i}`);

describe('InPlaceAllowList', () => {
  it('finds the calls the same as the map of a long list, in batch and streaming', () => {
    fc.assert(
      fc.property(text, list, (input, tools) => {
        const long = [...PADDING, ...tools];
        const short = extractToolCalls(input, { tools });
        expect(short).toEqual(extractToolCalls(input, { tools: long }));
        const parser = createToolCallParser({ tools });
        const streamed = [...parser.push(input), ...parser.end()].flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []));
        expect(streamed).toEqual(short);
      }),
      { numRuns: 1000 },
    );
  });

  it('answers many nameIn questions about one text as has() of each cut, in any order', () => {
    // Near misses: names sharing length, first and last character, asked about at positions
    // before, at and after where they stand, one instance answering them all.
    const nearMisses = fc.array(fc.constantFrom('get_a', 'get_b', 'got_a', 'get_', 'math.sqrt', 'math.sqr', 'x '), { maxLength: 30 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(text, nearMisses), list, fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 40 }), (input, tools, questions) => {
        const allowed = new InPlaceAllowList(tools);
        for (const [a, b] of questions) {
          if (input.length === 0) return;
          const start = a % input.length;
          const end = start + 1 + (b % Math.min(12, input.length - start));
          const name = allowed.nameIn(input, start, end);
          expect(name).toBe(allowed.has(input.slice(start, end)) ? input.slice(start, end) : undefined);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('skips holes in a list, short or long, in batch and streaming, as the list without them', () => {
    fc.assert(
      fc.property(text, list, fc.array(fc.nat(), { maxLength: 3 }), fc.boolean(), (input, tools, holes, long) => {
        const dense = long ? [...PADDING, ...tools] : tools;
        const holey: (string | ExtractableTool)[] = [...dense];
        for (const at of holes) holey.splice(at % (holey.length + 1), 0, undefined as unknown as string);
        for (let i = 0; i < holey.length; i++) if (holey[i] === undefined) Reflect.deleteProperty(holey, i);
        expect(extractToolCalls(input, { tools: holey })).toEqual(extractToolCalls(input, { tools: dense }));
        const parser = createToolCallParser({ tools: holey });
        const streamed = [...parser.push(input), ...parser.end()].flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []));
        expect(streamed).toEqual(extractToolCalls(input, { tools: dense }));
      }),
      { numRuns: 300 },
    );
    const sparse: (string | ExtractableTool)[] = ['get_a'];
    sparse[2] = { name: 'search', inputSchema: SCHEMA };
    const allowed = new InPlaceAllowList(sparse);
    expect(allowed.has('search')).toBe(true);
    expect(allowed.get('search')).toBe(SCHEMA);
    expect([...allowed.keys()]).toEqual(['get_a', 'search']);
    expect(allowed.typed()).toBe(true);
  });

  it('reads a short list where it stands on every batch call: a change between calls is seen', () => {
    const tools: (string | ExtractableTool)[] = ['get_a', 'calculate_triangle_area'];
    const input = 'get_a(n="5") calculate_triangle_area(n="7") search(x=1)';
    const names = (): string[] => extractToolCalls(input, { tools }).map((call) => call.name);
    expect(names()).toEqual(['get_a', 'calculate_triangle_area']);
    expect(extractToolCalls(input, { tools })[0]?.arguments).toEqual({ n: '5' });
    // A name becomes a tool with a schema: its arguments are coerced from then on.
    tools[0] = { name: 'get_a', inputSchema: SCHEMA };
    expect(extractToolCalls(input, { tools })[0]?.arguments).toEqual({ n: 5 });
    // And back to a name; a tool added, one taken away, a hole, the list emptied.
    tools[0] = 'get_a';
    expect(extractToolCalls(input, { tools })[0]?.arguments).toEqual({ n: '5' });
    tools.push('search');
    expect(names()).toEqual(['get_a', 'calculate_triangle_area', 'search']);
    tools.splice(1, 1);
    expect(names()).toEqual(['get_a', 'search']);
    Reflect.deleteProperty(tools, 0);
    expect(names()).toEqual(['search']);
    tools.length = 0;
    expect(names()).toEqual([]);
  });

  it('looks a list longer than 8 up in its map when given a resolver, measured when first asked', () => {
    const tools = [...PADDING, 'get_a', { name: 'search', inputSchema: SCHEMA }];
    let resolved = 0;
    const allowed = new InPlaceAllowList(tools, (list) => {
      resolved++;
      return new Map(list.map((tool) => (typeof tool === 'string' ? [tool, undefined] : [tool.name, tool.inputSchema])));
    });
    expect(resolved).toBe(0);
    expect(allowed.nameIn('x get_a(', 2, 7)).toBe('get_a');
    expect(allowed.has('search')).toBe(true);
    expect(allowed.get('search')).toBe(SCHEMA);
    expect(allowed.has('get_b')).toBe(false);
    expect(resolved).toBe(1);
    // A short list is read in place: the resolver is never called.
    const short = new InPlaceAllowList(['get_a'], () => {
      throw new Error('a short list has no map');
    });
    expect(short.nameIn('get_a(', 0, 5)).toBe('get_a');
  });

  it('still finds a listed name after a near miss (the search that missed is not tried again)', () => {
    // The same length and end characters: the first candidate passes those checks, is searched
    // for and missed; every later question is answered by cutting and comparing.
    const allowed = new InPlaceAllowList(['get_weather_now', 'get_a']);
    const input = 'get_weathor_now(x=1) get_weather_now(x=2) get_b(x=3) get_a(x=4)';
    expect(allowed.nameIn(input, 0, 15)).toBeUndefined();
    expect(allowed.nameIn(input, 21, 36)).toBe('get_weather_now');
    expect(allowed.nameIn(input, 42, 47)).toBeUndefined();
    expect(allowed.nameIn(input, 53, 58)).toBe('get_a');
    expect(allowed.nameIn(input, 0, 15)).toBeUndefined();
    expect(extractToolCalls(input, { tools: ['get_weather_now', 'get_a'] }).map((call) => call.arguments)).toEqual([{ x: 2 }, { x: 4 }]);
    // A listed name that stands later in the text than a near miss of it, and one cut off by the end.
    expect(extractToolCalls('get_weathor_now() get_weather_now', { tools: ['get_weather_now'] })).toEqual([]);
  });

  it('answers nameIn as has() of the cut name, with the listed string', () => {
    fc.assert(
      fc.property(text, list, fc.nat(), fc.nat(), (input, tools, a, b) => {
        const start = input.length === 0 ? 0 : a % input.length;
        const end = start + 1 + (b % Math.max(1, input.length - start));
        if (end > input.length) return;
        const allowed = new InPlaceAllowList(tools);
        const name = allowed.nameIn(input, start, end);
        expect(name !== undefined).toBe(allowed.has(input.slice(start, end)));
        if (name !== undefined) expect(name).toBe(input.slice(start, end));
      }),
      { numRuns: 1000 },
    );
  });
});
