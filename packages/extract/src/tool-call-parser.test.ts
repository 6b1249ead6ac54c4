import { describe, expect, it } from 'vitest';
import { extractToolCalls } from './extract-tool-calls.ts';
import { DEFAULT_MAX_CALL_CHARS } from './extract-options.ts';
import type { ExtractOptions } from './extract-options.ts';
import { InvalidExtractOptionError, ToolCallParserEndedError } from './errors.ts';
import { createToolCallParser } from './tool-call-parser.ts';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';
import type { ToolCallSink } from './tool-call-sink.ts';
import { collectingSink } from '../test/helpers/collecting-sink.ts';

function run(chunks: readonly string[], options?: ExtractOptions): ToolCallParserEvent[] {
  const parser = createToolCallParser(options);
  const events: ToolCallParserEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.end());
  return events;
}

/** Everything the events carry as source text, in order: must equal the input. */
function reassemble(events: readonly ToolCallParserEvent[]): string {
  return events.map((e) => ('text' in e ? e.text : '')).join('');
}

function callsOf(events: readonly ToolCallParserEvent[]) {
  return events.flatMap((e) => (e.type === 'tool-call' ? [e.toolCall] : []));
}

function splitEvery(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

// vitest.shared.ts starts the test workers with --expose-gc.
const gc =
  globalThis.gc ??
  ((): never => {
    throw new Error('globalThis.gc is missing: run the tests with --expose-gc (vitest.shared.ts passes it)');
  });
/** Collects twice, after letting go of the last regular expression match (it keeps its input). */
function collectGarbage(): void {
  /x/.test('x');
  gc();
  gc();
}

describe('createToolCallParser', () => {
  it('streamed a character at a time, releases text where a whole-chunk scan of the same characters would', () => {
    // The one-character paths (a lone `[`, a held `[` then a name, a text character, `(` after a
    // held name) must cut text events exactly where the general scan cuts them.
    const events = run(splitEvery('[] [f(a=1)]\nok: g(b=2)', 1));
    expect(events.filter((e) => e.type !== 'tool-call-delta')).toEqual([
      { type: 'text', text: '[]' },
      { type: 'text', text: ' ' },
      { type: 'text', text: '[' },
      { type: 'tool-call-start', id: 'f_0', name: 'f' },
      { type: 'tool-call', toolCall: { id: 'f_0', name: 'f', arguments: { a: 1 } }, text: 'f(a=1)' },
      { type: 'text', text: ']' },
      { type: 'text', text: '\n' },
      { type: 'text', text: 'ok:' },
      { type: 'text', text: ' ' },
      { type: 'tool-call-start', id: 'g_1', name: 'g' },
      { type: 'tool-call', toolCall: { id: 'g_1', name: 'g', arguments: { b: 2 } }, text: 'g(b=2)' },
    ]);
    expect(events.flatMap((e) => (e.type === 'tool-call-delta' ? [e.argumentsText] : [])).join('')).toBe('a=1b=2');
  });

  it('reports text, then start, deltas and the call, then text', () => {
    const events = run(['Sure. search(q="x"', ', limit=2) Done.']);
    expect(events).toEqual([
      { type: 'text', text: 'Sure. ' },
      { type: 'tool-call-start', id: 'search_0', name: 'search' },
      { type: 'tool-call-delta', id: 'search_0', argumentsText: 'q="x"' },
      { type: 'tool-call-delta', id: 'search_0', argumentsText: ', limit=2' },
      {
        type: 'tool-call',
        toolCall: { id: 'search_0', name: 'search', arguments: { q: 'x', limit: 2 } },
        text: 'search(q="x", limit=2)',
      },
      { type: 'text', text: ' ' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  it('releases text as soon as it cannot start a call, holding back a possible name', () => {
    const parser = createToolCallParser();
    expect(parser.push('Hello wor')).toEqual([{ type: 'text', text: 'Hello ' }]);
    expect(parser.push('ld. sea')).toEqual([{ type: 'text', text: 'world. ' }]);
    expect(parser.push('rch')).toEqual([]);
    expect(parser.push('ing is fun')).toEqual([{ type: 'text', text: 'searching is ' }]);
    expect(parser.end()).toEqual([{ type: 'text', text: 'fun' }]);
  });

  it('with an allow-list, holds back only a prefix of an allowed name', () => {
    const parser = createToolCallParser({ tools: ['search', 'math.sqrt'] });
    expect(parser.push('Hello wor')).toEqual([{ type: 'text', text: 'Hello wor' }]);
    expect(parser.push('ld, sea')).toEqual([{ type: 'text', text: 'ld, ' }]);
    expect(parser.push('rched ')).toEqual([{ type: 'text', text: 'searched ' }]);
    expect(parser.push('math.s')).toEqual([]);
    expect(parser.push('qrt(x=4)').map((e) => e.type)).toEqual(['tool-call-start', 'tool-call-delta', 'tool-call']);
    expect(parser.push('x')).toEqual([{ type: 'text', text: 'x' }]);
  });

  it('holds back an open call and reports it as incomplete at the end instead of guessing', () => {
    const parser = createToolCallParser();
    const first = parser.push('Calling search(q="py');
    expect(first.filter((e) => e.type === 'text')).toEqual([{ type: 'text', text: 'Calling ' }]);
    expect(parser.push('thon", limit=')).not.toContainEqual(expect.objectContaining({ type: 'text' }));
    expect(parser.end()).toEqual([{ type: 'incomplete', text: 'search(q="python", limit=', id: 'search_0' }]);
  });

  it('reports a JSON call when its object closes', () => {
    const events = run(['<tool_call>{"name": "f", ', '"arguments": {"a": 1}}</tool_call>']);
    expect(events.filter((e) => e.type !== 'text')).toEqual([
      { type: 'tool-call-start', id: 'f_0', name: 'f' },
      { type: 'tool-call-delta', id: 'f_0', argumentsText: '{"a":1}' },
      { type: 'tool-call', toolCall: { id: 'f_0', name: 'f', arguments: { a: 1 } }, text: '{"name": "f", "arguments": {"a": 1}}' },
    ]);
  });

  it('discards a started call whose arguments do not parse, with its text', () => {
    const events = run(['f(a=) and g()']);
    expect(events).toContainEqual({ type: 'tool-call-discarded', id: 'f_0', text: 'f(a=)', reason: 'invalid-arguments' });
    expect(callsOf(events)).toEqual([{ id: 'g_0', name: 'g', arguments: {} }]);
  });

  it('discards a repeated call as a duplicate', () => {
    const events = run(['f(a=1) f(a = 1)']);
    expect(callsOf(events)).toHaveLength(1);
    expect(events).toContainEqual({ type: 'tool-call-discarded', id: 'f_1', text: 'f(a = 1)', reason: 'duplicate' });
  });

  it('does not report a JSON-looking brace as incomplete when no key followed', () => {
    expect(run(['a {  '])).toEqual([
      { type: 'text', text: 'a ' },
      { type: 'text', text: '{  ' },
    ]);
  });

  it('reproduces the input exactly from text events and source spans', () => {
    const text = 'Hi! f(a=1) f(a=1) g(b=) [TOOL_CALLS]h{"x": 2} {"name": "k", "arguments": {}} {"a": 1} tail(x=';
    expect(reassemble(run([text]))).toBe(text);
    expect(reassemble(run(splitEvery(text, 1)))).toBe(text);
  });

  it('finds the same calls however the text is split: inside names, strings, and right after a backslash', () => {
    const text = 'First search(q="a \\"quoted\\" (paren)", n=[1, {"k": "}"}]) then {"name": "get_time", "arguments": "{\\"tz\\": \\"UTC\\"}"} ok';
    const expected = extractToolCalls(text);
    expect(expected).toHaveLength(2);
    for (let size = 1; size <= 12; size++) {
      expect(callsOf(run(splitEvery(text, size)))).toEqual(expected);
    }
    const afterBackslash = text.indexOf('\\') + 1;
    expect(callsOf(run([text.slice(0, afterBackslash), text.slice(afterBackslash)]))).toEqual(expected);
    const insideName = text.indexOf('search') + 3;
    expect(callsOf(run([text.slice(0, insideName), text.slice(insideName)]))).toEqual(expected);
  });

  it('reads a definition keyword the same way whatever the chunking', () => {
    const text = `def${' '.repeat(40)}search(q=1) def search(q=2) x${' '.repeat(31)}search(q=3)`;
    const expected = extractToolCalls(text);
    expect(expected.map((c) => c.arguments)).toEqual([{ q: 1 }, { q: 3 }]);
    for (const size of [1, 5, 33, 64]) expect(callsOf(run(splitEvery(text, size)))).toEqual(expected);
  });

  it('reads a definition keyword after a long released text or a call the same way at every split', () => {
    // A streamed call's arguments text of 32 to 1,024 characters is kept whole for look-behind
    // (of any other text the last characters are copied): the keyword may end it, follow it, or
    // span it and the next chunk.
    const texts = [
      `${'x'.repeat(40)} def search(q=1) search(q=2)`,
      `${'x'.repeat(2000)} function search(q=1) search(q=2)`,
      `search(query="${'y'.repeat(40)}") def search(q=1) and search(q=2)`,
      `search(query="${'y'.repeat(40)}")def search(q=1)`,
      `${'z'.repeat(45)}\ndef search(q=1)\nab fn search(q=2)`,
    ];
    for (const text of texts) {
      const expected = extractToolCalls(text);
      expect(callsOf(run(splitEvery(text, 1)))).toEqual(expected);
      for (let cut = 1; cut < text.length; cut++) expect(callsOf(run([text.slice(0, cut), text.slice(cut)]))).toEqual(expected);
      for (let cut = 1; cut < text.length; cut += 7) expect(callsOf(run([...splitEvery(text.slice(0, cut), 1), text.slice(cut)]))).toEqual(expected);
    }
  });

  it('keeps no pushed chunk alive once it is scanned, when a call ends it', () => {
    // A cut of a string keeps the whole string alive in V8: a call at the end of a large chunk
    // must not keep the chunk for look-behind (a 24 MB chunk here).
    const parser = createToolCallParser();
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    // Pushed from a function of its own: a frame still running keeps its last values alive.
    const callsIn = (tail: string): number => parser.push(`${'lorem ipsum '.repeat(1_000_000)}${tail} .`).filter((event) => event.type === 'tool-call').length;
    const calls = callsIn('search(n=1, m=2, k=3, z=4, w=5, v=6, u=7)') + callsIn(`search(q="${'y'.repeat(100)}")`);
    parser.end();
    collectGarbage();
    expect(calls).toBe(2);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(4_000_000);
    // The parser itself is still alive here.
    expect(parser.end()).toEqual([]);
  });

  it('uses the allow-list and tool schemas like the batch form', () => {
    const tool = { name: 'search', inputSchema: { type: 'object' as const, properties: { n: { type: 'integer' as const } } } };
    const events = run(splitEvery('research(n="1") search(n="2")', 3), { tools: [tool] });
    expect(callsOf(events)).toEqual([{ id: 'search_0', name: 'search', arguments: { n: 2 } }]);
  });

  it('ignores empty chunks and returns nothing after a second end()', () => {
    const parser = createToolCallParser();
    expect(parser.push('')).toEqual([]);
    parser.push('x');
    parser.end();
    expect(parser.end()).toEqual([]);
  });

  it('refuses chunks after end()', () => {
    const parser = createToolCallParser();
    parser.end();
    let caught: unknown;
    try {
      parser.push('more');
    } catch (error) {
      caught = error;
    }
    expect(ToolCallParserEndedError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/create a new parser/);
  });

  it('holds a native header back only until the character that decides it, one character at a time', () => {
    const released = (text: string): [number, string][] => {
      const parser = createToolCallParser();
      const out: [number, string][] = [];
      for (let i = 0; i < text.length; i++) {
        for (const event of parser.push(text.charAt(i))) if (event.type === 'text') out.push([i, event.text]);
      }
      return out;
    };
    // The space after the name shows that no `[ARGS]` or `{` follows: the header is text.
    expect(released('Hi [TOOL_CALLS]get_weather is')).toEqual([
      [2, 'Hi '],
      [26, '[TOOL_CALLS]get_weather '],
    ]);
    // A harmony header goes out whole at the `>` of `<|message|>`, where it turns out `final`.
    expect(released('Hi <|channel|>final<|message|>Done')).toEqual([
      [2, 'Hi '],
      [29, '<|channel|>final<|message|>'],
    ]);
  });

  it('passes reasoning through a character at a time, holding back only what may begin its end', () => {
    const parser = createToolCallParser();
    const text = '<think>ab</thinx>c</think>';
    const pushes = Array.from({ length: text.length }, (_, i) => parser.push(text.charAt(i)));
    expect(pushes[7]).toEqual([{ type: 'reasoning', text: 'a' }]);
    expect(pushes[8]).toEqual([{ type: 'reasoning', text: 'b' }]);
    expect(pushes.slice(9, 15)).toEqual([[], [], [], [], [], []]);
    expect(pushes[15]).toEqual([{ type: 'reasoning', text: '</thinx' }]);
    expect(pushes.at(-1)).toEqual([{ type: 'reasoning-end', text: '</think>' }]);
  });

  it('decides a lone `<` or `>` by its own formats, whichever stream with other formats decided it first', () => {
    // The decision of a character held alone is shared by the streams with the same formats: a
    // stream that looks for MiniMax-M2 (`<minimax:tool_call>`) and Functionary (`>>>`) holds
    // `<m` and `>` back; one that does not releases them at once. Both orders, each with sets
    // of formats no earlier stream of this file used.
    const text = 'a <minimax:tool_call><invoke name="f"><parameter name="x">1</parameter></invoke></minimax:tool_call> b >>>g\n{"y": 2}';
    const released = (formats: ExtractOptions['formats']): { at: number[]; calls: unknown[] } => {
      const parser = createToolCallParser({ formats });
      const at: number[] = [];
      const events: ToolCallParserEvent[] = [];
      for (let i = 0; i < text.length; i++) {
        const pushed = parser.push(text.charAt(i));
        if (pushed.some((event) => event.type === 'text')) at.push(i);
        events.push(...pushed);
      }
      events.push(...parser.end());
      expect(reassemble(events)).toBe(text);
      return { at, calls: callsOf(events) };
    };
    const m = text.indexOf('<m') + 1;
    const gt = text.indexOf('>>>');
    for (const [looking, plain] of [
      [['call', 'minimax-m2', 'functionary'], ['call']],
      [['json'], ['json', 'minimax-m2', 'functionary']],
    ] as const) {
      const first = released(looking);
      const second = released(plain);
      const [withThem, without] = looking.length > plain.length ? [first, second] : [second, first];
      expect(without.at).toContain(m);
      expect(without.at).toContain(gt);
      expect(withThem.at).not.toContain(m);
      expect(withThem.at).not.toContain(gt);
      expect(without.calls).toEqual([]);
      expect(withThem.calls).toEqual([
        { id: 'f_0', name: 'f', arguments: { x: '1' } },
        { id: 'g_1', name: 'g', arguments: { y: 2 } },
      ]);
    }
  });

  it('with an allow-list, releases a run no listed name begins at its character, keeping a listed name after a script boundary', () => {
    const pushes = (text: string, tools: readonly string[]): [number, string][] => {
      const parser = createToolCallParser({ tools });
      const out: [number, string][] = [];
      for (let i = 0; i < text.length; i++) {
        for (const event of parser.push(text.charAt(i))) if (event.type === 'text') out.push([i, event.text]);
      }
      return out;
    };
    // `x`, `y`, `z`: no listed name begins with them; `se` may still become `search`, `sea` may not become `seen`.
    expect(pushes('xyz seen', ['search'])).toEqual([
      [0, 'x'],
      [1, 'y'],
      [2, 'z'],
      [3, ' '],
      [6, 'see'],
      [7, 'n'],
    ]);
    // `天气` is listed, `天气s` is not: the text goes out up to the script boundary, and `s` may begin `search`.
    const events = run(splitEvery('天气search(q="x")', 1), { tools: ['天气', 'search'] });
    expect(events.filter((e) => e.type === 'text')).toEqual([{ type: 'text', text: '天气' }]);
    expect(callsOf(events)).toEqual([{ id: 'search_0', name: 'search', arguments: { q: 'x' } }]);
  });

  it('finds the calls of streams that start and end while others go on, a character at a time', () => {
    // An ended stream hands its buffer of kept characters to the next one.
    const texts = ['[get_weather(city="Paris", unit="celsius")]', 'Sure: f(a=[1, 2], b={"k": "v"}) and g(x="y")', 'h(q="' + 'z'.repeat(1500) + '")'];
    const parsers = texts.map(() => createToolCallParser());
    const events: ToolCallParserEvent[][] = texts.map(() => []);
    const longest = Math.max(...texts.map((text) => text.length));
    for (let i = 0; i <= longest; i++) {
      texts.forEach((text, k) => {
        const parser = parsers[k];
        if (parser === undefined || i > text.length) return;
        if (i === text.length) {
          events[k]?.push(...parser.end());
          // The next stream starts once this one has ended (and taken nothing more).
          parsers[k] = createToolCallParser();
          return;
        }
        events[k]?.push(...parser.push(text.charAt(i)));
      });
    }
    texts.forEach((text, k) => {
      expect(callsOf(events[k] ?? [])).toEqual(extractToolCalls(text));
    });
    // The fresh streams, fed the texts again, find the same calls.
    texts.forEach((text, k) => {
      const parser = parsers[k] ?? createToolCallParser();
      const again = [...splitEvery(text, 1).flatMap((chunk) => parser.push(chunk)), ...parser.end()];
      expect(callsOf(again)).toEqual(extractToolCalls(text));
    });
  });

  it('handles a name longer than any tool name without holding it back forever', () => {
    const long = 'x'.repeat(500);
    const parser = createToolCallParser();
    const events = [...parser.push(long), ...parser.push('(1)'), ...parser.end()];
    expect(callsOf(events)).toEqual([]);
    expect(extractToolCalls(`${long}(1)`)).toEqual([]);
    expect(reassemble(events)).toBe(`${long}(1)`);
  });
});

describe('createToolCallParser: the allow-list', () => {
  it('answers as the list was when the parser was created, short or long', () => {
    for (const pad of [[], Array.from({ length: 10 }, (_, i) => `unused_${i}`)]) {
      const tools = [...pad, 'search'];
      const parser = createToolCallParser({ tools });
      tools.length = 0;
      tools.push('other');
      const names = [...parser.push('search(q=1) other(q=2)'), ...parser.end()].flatMap((event) => (event.type === 'tool-call' ? [event.toolCall.name] : []));
      expect(names).toEqual(['search']);
    }
  });
});

describe('createToolCallParser: maxCallChars', () => {
  it('gives up a call not closed within the bound, reports it once, and finds the call after it', () => {
    const text = `Sure. f(a="${'x'.repeat(40)} and g(b=1) later`;
    for (const size of [1, 3, 1000]) {
      const events = run(splitEvery(text, size), { maxCallChars: 20 });
      const given = events.filter((e) => e.type === 'incomplete');
      expect(given).toEqual([{ type: 'incomplete', text: `f(a="${'x'.repeat(15)}`, id: 'f_0', reason: 'too-long' }]);
      expect(callsOf(events)).toEqual([{ id: 'g_0', name: 'g', arguments: { b: 1 } }]);
      expect(reassemble(events)).toBe(text);
    }
    expect(extractToolCalls(text, { maxCallChars: 20 })).toEqual([{ id: 'g_0', name: 'g', arguments: { b: 1 } }]);
  });

  it('reads a call of exactly maxCallChars characters, and gives up one a character longer', () => {
    expect(extractToolCalls('f(a=1)', { maxCallChars: 6 })).toEqual([{ id: 'f_0', name: 'f', arguments: { a: 1 } }]);
    expect(extractToolCalls('f(a=1)', { maxCallChars: 5 })).toEqual([]);
    expect(run(['f(a=1', ')'], { maxCallChars: 5 }).filter((e) => e.type === 'incomplete')).toEqual([{ type: 'incomplete', text: 'f(a=1', id: 'f_0', reason: 'too-long' }]);
  });

  it('gives up JSON objects and native blocks the same way, without an id', () => {
    const text = `<tool_call>\n{"name": "f", "arguments": {"a": "${'y'.repeat(60)}"}}\n</tool_call> then g(b=2)`;
    const events = run(splitEvery(text, 4), { maxCallChars: 32 });
    const given = events.filter((e) => e.type === 'incomplete');
    expect(given).toHaveLength(1);
    expect(given[0]).toMatchObject({ reason: 'too-long' });
    expect(given[0]).not.toHaveProperty('id');
    expect(given[0]?.text).toHaveLength(32);
    expect(callsOf(events)).toEqual(extractToolCalls(text, { maxCallChars: 32 }));
    expect(callsOf(events)).toContainEqual(expect.objectContaining({ name: 'g', arguments: { b: 2 } }));
    expect(reassemble(events)).toBe(text);
  });

  it('ends a Kimi call at its object when its end token would come past the bound', () => {
    // The call is complete; only the token it may still write is not waited for.
    const text = `<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1}${' '.repeat(30)}<|tool_call_end|>`;
    const expected = [{ id: 'functions.f:0', name: 'f', arguments: { a: 1 } }];
    expect(extractToolCalls(text, { maxCallChars: 80 })).toEqual(expected);
    expect(callsOf(run(splitEvery(text, 1), { maxCallChars: 80 }))).toEqual(expected);
    expect(callsOf(run(splitEvery(text, 7), { maxCallChars: 80 }))).toEqual(expected);
  });

  it('hands a sink the same events', () => {
    const text = `x f(a="${'x'.repeat(30)}") y {"name": "${'n'.repeat(40)}"} g()`;
    const parser = createToolCallParser({ maxCallChars: 16 });
    const events: ToolCallParserEvent[] = [];
    const sink = collectingSink(events);
    for (const chunk of splitEvery(text, 5)) parser.push(chunk, sink);
    parser.end(sink);
    expect(events).toEqual(run(splitEvery(text, 5), { maxCallChars: 16 }));
    expect(events.filter((e) => e.type === 'incomplete').map((e) => e.type === 'incomplete' && e.reason)).toEqual(['too-long', 'too-long']);
  });

  it('refuses a bound that is not a whole number of characters, with a typed error', () => {
    for (const maxCallChars of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '100' as unknown as number]) {
      let caught: unknown;
      try {
        createToolCallParser({ maxCallChars });
      } catch (error) {
        caught = error;
      }
      expect(InvalidExtractOptionError.isInstance(caught)).toBe(true);
      expect((caught as InvalidExtractOptionError).option).toBe('maxCallChars');
      expect((caught as Error).message).toMatch(/maxCallChars must be a whole number of characters, 0 for no bound/);
      expect(() => extractToolCalls('f(a=1)', { maxCallChars })).toThrow(/maxCallChars/);
    }
  });

  it('holds a bounded amount of memory for a call that never closes, streamed in small chunks', () => {
    // 10 MB of an unclosed call's arguments in 5-character tokens: without a bound the open call
    // held them all (about 11 bytes a character as a rope of chunks: 110 MB here); with one of
    // 1 Mi characters it is given up there, and what follows goes out as text.
    const parser = createToolCallParser({ maxCallChars: 1 << 20 });
    let incomplete = 0;
    let calls = 0;
    const sink: ToolCallSink = { onIncomplete: () => incomplete++, onToolCall: () => calls++ };
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    let most = 0;
    parser.push('Sure. search(q="', sink);
    for (let i = 0; i < 2_000_000; i++) {
      parser.push(`${String(1000 + (i % 9000))} `, sink);
      // Measured where the held call is longest (just before the bound) and at the end.
      if (i === 209_000 || i === 1_999_999) {
        collectGarbage();
        most = Math.max(most, process.memoryUsage().heapUsed - before);
      }
    }
    parser.push('") done. search(q="x")', sink);
    parser.end(sink);
    expect(most).toBeLessThan(32_000_000);
    expect(incomplete).toBe(1);
    expect(calls).toBe(1);
  });

  it('bounds spans at 4 Mi characters by default (0: no bound)', () => {
    const text = `f(a="${'x'.repeat(4 * 1024 * 1024)}") g(b=1)`;
    expect(DEFAULT_MAX_CALL_CHARS).toBe(4 * 1024 * 1024);
    expect(extractToolCalls(text).map((call) => call.name)).toEqual(['g']);
    expect(extractToolCalls(text, { maxCallChars: 0 }).map((call) => call.name)).toEqual(['f', 'g']);
  });

  it('cuts a span given up before a surrogate pair the bound would split, in every chunking', () => {
    // `f(a="` then emoji (two UTF-16 units each): an odd bound from 7 on falls inside one.
    const text = `f(a="${'😀'.repeat(10)}") g(b=1)`;
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (const maxCallChars of [6, 7, 8, 9, 12]) {
      const whole = run([text], { maxCallChars });
      for (const size of [1, 2, 3, 5, 1000]) {
        const events = run(splitEvery(text, size), { maxCallChars });
        const given = events.filter((e) => e.type === 'incomplete');
        expect(given).toHaveLength(1);
        expect(given[0]?.text).toBe(text.slice(0, maxCallChars % 2 === 0 ? maxCallChars - 1 : maxCallChars));
        for (const event of events) if ('text' in event) expect(event.text).not.toMatch(lone);
        expect(reassemble(events)).toBe(text);
        expect(callsOf(events)).toEqual(extractToolCalls(text, { maxCallChars }));
        expect(given).toEqual(whole.filter((e) => e.type === 'incomplete'));
      }
    }
  });

  it('gives up span after span in one text without searching the rest of it again for each', () => {
    // 98,304 spans given up in 6 Mi characters: each used to search the text after it to its end
    // for the characters that open spans (about 20 s for the two forms here, a tenth of a second without).
    const text = 'f('.repeat(3 << 20);
    const started = Date.now();
    expect(extractToolCalls(`${text} g(b=1)`, { maxCallChars: 64 })).toEqual([{ id: 'g_0', name: 'g', arguments: { b: 1 } }]);
    const parser = createToolCallParser({ maxCallChars: 64 });
    let given = 0;
    let calls = 0;
    const sink: ToolCallSink = { onIncomplete: () => given++, onToolCall: () => calls++ };
    parser.push(`${text} g(b=1)`, sink);
    parser.end(sink);
    expect(given).toBe((6 << 20) / 64);
    expect(calls).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 60_000);
});
