import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InvalidArgumentsError } from './errors.ts';
import { parseArguments, parseCallArguments, readCallArguments, readPlainCallArguments } from './parse-arguments.ts';
import type { JsonSchema } from './types/json-schema.ts';

function failure(raw: string): InvalidArgumentsError {
  try {
    parseArguments(raw);
  } catch (error) {
    if (InvalidArgumentsError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected parseArguments(${JSON.stringify(raw)}) to throw`);
}

describe('parseArguments forms', () => {
  it('reads a JSON object', () => {
    expect(parseArguments('{"q": "x", "limit": 5}')).toEqual({ q: 'x', limit: 5 });
  });

  it('reads plain JSON objects (the JSON.parse fast path) as the general parser does', () => {
    // Numbers that would change as doubles stay text, as everywhere else.
    expect(parseArguments('{"id": 12345678901234567890, "big": 1e400, "n": 1e3}')).toEqual({ id: '12345678901234567890', big: '1e400', n: 1000 });
    const proto = parseArguments('{"__proto__": {"polluted": true}, "a": [1, {"b": null}]}');
    expect(Object.keys(proto)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Not JSON: Python literals, single quotes, a trailing comma go the general way.
    expect(parseArguments("{'q': 'x', 'ok': True,}")).toEqual({ q: 'x', ok: true });
    expect(parseArguments(' {"q": "a\\u00e9\\n"} ')).toEqual({ q: 'a\u00e9\n' });
    expect(parseArguments('{"limit": "5"}', { schema: { type: 'object', properties: { limit: { type: 'integer' } } } })).toEqual({ limit: 5 });
  });

  it('reads JSON members without braces', () => {
    expect(parseArguments('"q": "x", "limit": 5')).toEqual({ q: 'x', limit: 5 });
  });

  it('reads key=value pairs', () => {
    expect(parseArguments('q="x", limit=10')).toEqual({ q: 'x', limit: 10 });
  });

  it('numbers positional values arg0, arg1, …', () => {
    expect(parseArguments('"x", 10')).toEqual({ arg0: 'x', arg1: 10 });
  });

  it('reads positional values followed by keywords', () => {
    expect(parseArguments('"x", limit=10')).toEqual({ arg0: 'x', limit: 10 });
  });

  it('treats an object followed by more arguments as a positional value', () => {
    expect(parseArguments('{"a": 1}, b=2')).toEqual({ arg0: { a: 1 }, b: 2 });
  });

  it('returns {} for empty or blank text', () => {
    expect(parseArguments('')).toEqual({});
    expect(parseArguments('  \n\t ')).toEqual({});
  });

  it('ignores whitespace and a trailing comma', () => {
    expect(parseArguments('\n  q = "x" ,\n  limit = 10 ,\n')).toEqual({ q: 'x', limit: 10 });
    expect(parseArguments('{"a": 1},')).toEqual({ a: 1 });
  });

  it('accepts dotted and dashed keys and quoted keys with =', () => {
    expect(parseArguments('user.name="a", max-items=3, "x y"=1')).toEqual({ 'user.name': 'a', 'max-items': 3, 'x y': 1 });
  });

  it('accepts an unquoted key with ":" when a value clearly follows', () => {
    expect(parseArguments('query: "x", limit: 3')).toEqual({ query: 'x', limit: 3 });
  });

  it('lets the last of duplicate keys win', () => {
    expect(parseArguments('a=1, a=2')).toEqual({ a: 2 });
  });

  it('never lets a __proto__ key reach the prototype', () => {
    const result = parseArguments('__proto__={"polluted": true}');
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parseArguments values', () => {
  it('decodes escapes in double-quoted strings', () => {
    expect(parseArguments(String.raw`s="a\"b\\c\nd\te\u00e9\x41"`)).toEqual({ s: 'a"b\\c\nd\te\u00e9A' });
  });

  it('decodes escapes in single-quoted strings', () => {
    expect(parseArguments(String.raw`s='it\'s "fine"'`)).toEqual({ s: `it's "fine"` });
  });

  it('decodes surrogate pairs and \\U escapes', () => {
    expect(parseArguments(String.raw`a="\ud83d\ude00", b="\U0001F600"`)).toEqual({ a: '😀', b: '😀' });
  });

  it('keeps unknown escapes as written (Windows paths)', () => {
    expect(parseArguments(String.raw`path="C:\Users\dir\sub"`)).toEqual({ path: String.raw`C:\Users\dir\sub` });
  });

  it('keeps quoted values as strings', () => {
    expect(parseArguments('zip="02134", n="5", flag="true", none="None"')).toEqual({
      zip: '02134',
      n: '5',
      flag: 'true',
      none: 'None',
    });
  });

  it('reads true/false/True/False as booleans', () => {
    expect(parseArguments('a=true, b=false, c=True, d=False')).toEqual({ a: true, b: false, c: true, d: false });
  });

  it('reads null and None as null', () => {
    expect(parseArguments('a=null, b=None')).toEqual({ a: null, b: null });
  });

  it('reads finite numbers: negative, explicit plus, decimals, exponents', () => {
    expect(parseArguments('a=-3, b=+4, c=2.5, d=1e3, e=.5, f=0, g=-1.5E-2')).toEqual({
      a: -3,
      b: 4,
      c: 2.5,
      d: 1000,
      e: 0.5,
      f: 0,
      g: -0.015,
    });
  });

  it('reads a large integer that a double holds exactly as a number', () => {
    expect(parseArguments('a=9007199254740992')).toEqual({ a: 9007199254740992 });
  });

  it('keeps inf, nan, hex, leading zeros and integers a double cannot hold as text', () => {
    expect(parseArguments('a=inf, b=nan, c=0x1F, d=02134, e=12345678901234567890')).toEqual({
      a: 'inf',
      b: 'nan',
      c: '0x1F',
      d: '02134',
      e: '12345678901234567890',
    });
  });

  it('reads lists and tuples as arrays', () => {
    expect(parseArguments('a=[1, "two", [3]], b=(4, 5), c=[], d=(1,)')).toEqual({
      a: [1, 'two', [3]],
      b: [4, 5],
      c: [],
      d: [1],
    });
  });

  it('reads parentheses around one value without a comma as the value itself (Python grouping)', () => {
    expect(parseArguments("x=('a'), y=(5), z=((1, 2)), w=()")).toEqual({ x: 'a', y: 5, z: [1, 2], w: [] });
    expect(parseArguments("('a')")).toEqual({ arg0: 'a' });
    expect(parseArguments("x=('a',)")).toEqual({ x: ['a'] });
  });

  it('coerces a parenthesised string by the schema of its property', () => {
    const schema = { type: 'object' as const, properties: { n: { type: 'integer' as const } } };
    expect(parseArguments("n=('5')", { schema })).toEqual({ n: 5 });
  });

  it('reads objects with quoted (or bare) keys', () => {
    expect(parseArguments(`a={"x": 1, 'y': [true, None]}, b={k: "v"}`)).toEqual({
      a: { x: 1, y: [true, null] },
      b: { k: 'v' },
    });
  });

  it('keeps other unquoted text as the trimmed string', () => {
    expect(parseArguments('city=New York, grade=F, n=inf')).toEqual({ city: 'New York', grade: 'F', n: 'inf' });
  });

  it('reads unquoted words inside lists as strings', () => {
    expect(parseArguments('cities=[Paris, New York]')).toEqual({ cities: ['Paris', 'New York'] });
  });

  it("reads an apostrophe inside an unquoted word as text, not a quote", () => {
    expect(parseArguments("note=don't stop, city=Xi'an")).toEqual({ note: "don't stop", city: "Xi'an" });
  });

  it('reads a Python set as a list (JSON has no sets)', () => {
    expect(parseArguments("tags={'urgent', 'bug'}, ids={1, 2}, one={'a'}")).toEqual({ tags: ['urgent', 'bug'], ids: [1, 2], one: ['a'] });
    expect(parseArguments("o={'k': {1, 2}}, empty={}")).toEqual({ o: { k: [1, 2] }, empty: {} });
    expect(parseArguments('t={1, 2}', { schema: { type: 'object', properties: { t: { type: 'array', items: { type: 'string' } } } } })).toEqual({ t: ['1', '2'] });
  });

  it('refuses a set that turns into an object, and a set as the whole arguments (review D4)', () => {
    expect(() => parseArguments('x={"a", "b": 1}')).toThrow(/holds set items and then the key "b"/);
    expect(() => parseArguments("x={'a', b=1}")).toThrow(InvalidArgumentsError);
    expect(() => parseArguments('{"query"}')).toThrow(/the object key "query" is not followed by ":"/);
    expect(parseArguments("{'a', 'b'}, 2")).toEqual({ arg0: ['a', 'b'], arg1: 2 });
    // Where the schema asks for an object (and no list), `{"a"}` is a broken object.
    const objectSchema: JsonSchema = { type: 'object', properties: { x: { type: 'object' }, y: { type: ['object', 'array'] } } };
    expect(() => parseArguments('x={"a"}', { schema: objectSchema })).toThrow(/the object key "a" is not followed by ":"/);
    expect(parseArguments('y={"a"}', { schema: objectSchema })).toEqual({ y: ['a'] });
  });

  it('keeps each string, number, boolean and null of a set once (review D4)', () => {
    expect(parseArguments("x={'a', 'b', 'a'}, y={1, 1.0, '1', None, None, [1], [1]}")).toEqual({ x: ['a', 'b'], y: [1, '1', null, [1], [1]] });
  });

  it('reads a string with the same quotes unescaped inside when its value only ends at a later quote (shell commands)', () => {
    expect(parseArguments("command='sed -n '360,450p' /testbed/common.py', n=1")).toEqual({ command: "sed -n '360,450p' /testbed/common.py", n: 1 });
    expect(parseArguments(`command='python3 -c "print(latex(x, mul_symbol='\\,'))"'`)).toEqual({ command: `python3 -c "print(latex(x, mul_symbol='\\,'))"` });
    expect(parseArguments("note='It's fine'")).toEqual({ note: "It's fine" });
    expect(parseArguments("items=['a 'b', 'c']")).toEqual({ items: ["a 'b", 'c'] });
  });

  it('reads the quotes strictly when no such end follows, and stays linear on many of them', () => {
    expect(parseArguments("a='x'y")).toEqual({ a: "'x'y" });
    const many = "a='x'y, ".repeat(50_000);
    expect(Object.keys(parseArguments(many)).length).toBeGreaterThan(0);
  });

  it('never lets an apostrophe inside a string run it into the next argument (review D1)', () => {
    expect(parseArguments(`a="don't" or y, b="don't"`)).toEqual({ a: `"don't" or y`, b: "don't" });
    expect(parseArguments(`text="it's".strip(), n="don't"`)).toEqual({ text: `"it's".strip()`, n: "don't" });
    // A lone quote of the other kind (not an apostrophe) still stops at the next `key=`.
    expect(parseArguments(`a="x 'y" or z, b="w"`)).toEqual({ a: `"x 'y" or z`, b: 'w' });
  });

  it('reads a second argument and a list item after an expression', () => {
    expect(parseArguments(`a='x'.upper(), b='sed -n '1p' f'`)).toEqual({ a: "'x'.upper()", b: "sed -n '1p' f" });
    expect(parseArguments(`items=["it's".upper(), "b"]`)).toEqual({ items: [`"it's".upper()`, 'b'] });
  });

  it('reads a long string with its own quotes inside the same at any length (review D2)', () => {
    for (const n of [65_500, 70_000, 200_000]) {
      const body = 'x'.repeat(n);
      const text = `command='cat > f.py <<'EOF'\n${body}\nEOF', timeout=10`;
      expect(parseArguments(text)).toEqual({ command: `cat > f.py <<'EOF'\n${body}\nEOF`, timeout: 10 });
      const call = `bash(${text}) and more`;
      const read = parseCallArguments(call, { from: 5 });
      expect(read?.arguments).toEqual(parseArguments(call, { from: 5, to: read?.end ?? 0 }));
    }
  });

  it("leaves later values their share of the quote rule's budget (review D2)", () => {
    for (const n of [1_000, 70_000, 300_000]) {
      expect(parseArguments(`a='x'y${' '.repeat(n)}, b='don't'`)).toEqual({ a: "'x'y", b: "don't" });
    }
  });

  it('ends the quote rule at a bracket of the wrong kind, as the scan that finds a call\'s end does', () => {
    expect(() => parseArguments("a='g'a(}'x'")).toThrow(InvalidArgumentsError);
    expect(parseCallArguments("f(a='g'a(}'x') y", { from: 2 })).toBeUndefined();
    expect(parseArguments("a='g'a(1)x'")).toEqual({ a: "g'a(1)x" });
  });

  it('keeps a value with text after a closed string as its whole text', () => {
    expect(parseArguments('a="x" + "y", b=1')).toEqual({ a: '"x" + "y"', b: 1 });
  });
});

describe('parseArguments splitting', () => {
  it('splits on the first = outside quotes', () => {
    expect(parseArguments('expr="a=b", eq=x=y')).toEqual({ expr: 'a=b', eq: 'x=y' });
  });

  it('never splits on commas inside quotes or brackets', () => {
    expect(parseArguments('s="a, b", t=\'c, d\', l=[1, 2], o={"k": "x, y"}, call=f(1, 2)')).toEqual({
      s: 'a, b',
      t: 'c, d',
      l: [1, 2],
      o: { k: 'x, y' },
      call: 'f(1, 2)',
    });
  });

  it('keeps brackets and quotes inside strings out of the structure', () => {
    expect(parseArguments('q=")]}\'", r="([{"')).toEqual({ q: ")]}'", r: '([{' });
  });

  it('does not treat == as a key separator', () => {
    expect(parseArguments('x == 5')).toEqual({ arg0: 'x == 5' });
  });

  it('does not read a URL scheme as a key', () => {
    expect(parseArguments('http://example.com/a?b=c')).toEqual({ arg0: 'http://example.com/a?b=c' });
  });
});

describe('parseArguments with a schema', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      limit: { type: 'integer' },
      ratio: { type: 'number' },
      flag: { type: 'boolean' },
      zip: { type: 'string' },
      maybe: { type: ['integer', 'null'] },
      tags: { type: 'array', items: { type: 'integer' } },
      filter: { type: 'object', properties: { max: { type: 'number' } } },
    },
  };

  it('coerces quoted numbers to an integer or number property', () => {
    expect(parseArguments('limit="5", ratio="2.5"', { schema })).toEqual({ limit: 5, ratio: 2.5 });
  });

  it('coerces quoted booleans and null when declared', () => {
    expect(parseArguments('flag="true", maybe="None"', { schema })).toEqual({ flag: true, maybe: null });
  });

  it('keeps an unquoted null as null even for a string property', () => {
    expect(parseArguments('zip=None', { schema })).toEqual({ zip: null });
  });

  it('turns an unquoted boolean into its text for a string property', () => {
    expect(parseArguments('zip=True', { schema })).toEqual({ zip: 'True' });
  });

  it('keeps unquoted numbers as their text for a string property', () => {
    expect(parseArguments('zip=02134', { schema })).toEqual({ zip: '02134' });
    expect(parseArguments('zip=1e3', { schema })).toEqual({ zip: '1e3' });
  });

  it('coerces a stringified list or object when the property is an array or object', () => {
    expect(parseArguments('tags="[1, \'2\', 3]", filter="{\'max\': \'9.5\'}"', { schema })).toEqual({
      tags: [1, 2, 3],
      filter: { max: 9.5 },
    });
  });

  it('coerces inside arrays and objects', () => {
    expect(parseArguments('{"tags": ["1", "2"], "filter": {"max": "3"}}', { schema })).toEqual({
      tags: [1, 2],
      filter: { max: 3 },
    });
  });

  it('leaves values that cannot be coerced losslessly as they are', () => {
    expect(parseArguments('limit="5.5", flag="yes", tags="not a list", maybe=abc', { schema })).toEqual({
      limit: '5.5',
      flag: 'yes',
      tags: 'not a list',
      maybe: 'abc',
    });
  });

  it('reads BFCL type names (dict, float) as their JSON Schema types', () => {
    const bfcl = { type: 'dict', properties: { x: { type: 'float' } } } as unknown as JsonSchema;
    expect(parseArguments('x="1.5"', { schema: bfcl })).toEqual({ x: 1.5 });
  });

  it('leaves positional values and undeclared keys uncoerced', () => {
    expect(parseArguments('"5", other="6"', { schema })).toEqual({ arg0: '5', other: '6' });
  });
});

describe('parseArguments bad input', () => {
  it('throws on an unclosed double quote, at the quote', () => {
    const error = failure('q="abc, limit=5');
    expect(error.position).toBe(2);
    expect(error.text).toBe('q="abc, limit=5');
    expect(error.message).toMatch(/position 2.*never closed/);
  });

  it('throws on an unclosed single quote', () => {
    expect(failure("q='abc").position).toBe(2);
  });

  it('throws on a string whose last character is an escaping backslash', () => {
    expect(failure('q="abc\\').position).toBe(2);
  });

  it('throws on an unclosed list, at its bracket', () => {
    expect(failure('a=1, l=[1, 2').position).toBe(7);
  });

  it('throws on an unclosed tuple', () => {
    expect(failure('t=(1, 2').position).toBe(2);
  });

  it('throws on an unclosed object', () => {
    expect(failure('{"a": 1').position).toBe(0);
  });

  it('throws on an unclosed bracket inside unquoted text', () => {
    expect(failure('x=f(1, 2').position).toBe(3);
  });

  it('throws on a stray closing bracket', () => {
    expect(failure('a=1)').position).toBe(3);
    expect(failure('a=1, ]').position).toBe(5);
  });

  it('throws on mismatched brackets, at the wrong closer', () => {
    expect(failure('l=[1, 2)').position).toBe(7);
    expect(failure('x=f(1]').position).toBe(5);
  });

  it('throws on a key without a value', () => {
    expect(failure('a=, b=1').position).toBe(0);
    expect(failure('a=').position).toBe(0);
  });

  it('throws on an object key without a colon', () => {
    expect(failure('{"a" 1}').position).toBe(1);
  });

  it('throws on values nested too deeply instead of overflowing the stack', () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    expect(failure(deep).message).toMatch(/nested too deeply/);
  });

  it('throws on a megabyte of unclosed quotes without hanging', () => {
    expect(failure(`a="${'x'.repeat(1_000_000)}`).position).toBe(2);
  });
});

describe('parseArguments of a part of a text (from, to)', () => {
  /** The result or the error of reading `raw` alone, to compare with reading it inside a text. */
  function outcome(run: () => Record<string, unknown>): unknown {
    try {
      return { value: run() };
    } catch (error) {
      if (!InvalidArgumentsError.isInstance(error)) throw error;
      return { message: error.message, position: error.position, text: error.text };
    }
  }

  const cases = [
    'q="x", limit=10',
    '{"q": "x", "n": [1, 2]}',
    "it's, 'a'",
    'q="abc\\',
    'q="\\x4',
    'q="\\u00e',
    'a=1)',
    'l=[1, 2',
    'a==b',
    'a=',
    'x: "y"',
    '"x", 10, k=None',
    '',
    '   ',
  ];

  it('reads raw[from, to) exactly as the cut-out text, errors included', () => {
    // Around the part: characters that change the reading if they were seen (a word
    // character before a quote, `=` after a key, a closing quote or hex digits after an escape).
    for (const raw of cases) {
      for (const [before, after] of [['', ''], ['x', '=1'], ['f(', ')"41'], ['\\', '00e9"'], ['{', '}']] as const) {
        const text = `${before}${raw}${after}`;
        const options = { from: before.length, to: before.length + raw.length };
        expect(outcome(() => parseArguments(text, options)), JSON.stringify({ raw, before, after })).toEqual(outcome(() => parseArguments(raw)));
      }
    }
  });

  it('reads any part of random argument text as the cut-out text', () => {
    const piece = fc.constantFrom('a', 'k', '=', ':', ',', ' ', '"', "'", '\\', 'x', '4', '1', '(', ')', '[', ']', '{', '}', 'None', 'true', '.');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }).map((parts) => parts.join('')), fc.nat(), fc.nat(), (text, a, b) => {
        const from = text.length === 0 ? 0 : a % (text.length + 1);
        const to = from + (text.length === 0 ? 0 : b % (text.length - from + 1));
        expect(outcome(() => parseArguments(text, { from, to }))).toEqual(outcome(() => parseArguments(text.slice(from, to))));
      }),
      { numRuns: 2000 },
    );
  });

  it('applies the schema to the part read', () => {
    const schema: JsonSchema = { type: 'object', properties: { n: { type: 'integer' } } };
    expect(parseArguments('call(n="5") and more', { schema, from: 5, to: 10 })).toEqual({ n: 5 });
  });
});

describe('parseArguments fast paths', () => {
  it('reads plain numbers and words in place exactly as the general reading does', () => {
    expect(parseArguments('a=007, b=-0, c=10 apples, d=12345678901234567890, e=truex, f=None ')).toEqual({
      a: '007',
      b: -0,
      c: '10 apples',
      d: '12345678901234567890',
      e: 'truex',
      f: null,
    });
    expect(parseArguments('a=[1, -2, None], b={"x": false}, c=123456789012345')).toEqual({ a: [1, -2, null], b: { x: false }, c: 123456789012345 });
  });

  it('gives the same result with and without the fast paths (a schema without types turns them off)', () => {
    // A schema for every member and item, at any depth, that declares no type: values read
    // as without a schema, but not by the fast paths (top-level positional values excepted).
    const untyped: JsonSchema = {};
    untyped.additionalProperties = untyped;
    untyped.items = untyped;
    const piece = fc.constantFrom('a=', 'b: ', ', ', ' ', '0', '7', '12', '07', '-', '.5', 'e3', 'true', 'None', 'False', 'nul', '"x"', "'y'", '[', ']', '(', ')', '{', '}', '\u00a0', '\u3000');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }).map((parts) => parts.join('')), (text) => {
        const read = (schema?: JsonSchema): unknown => {
          try {
            return { value: parseArguments(text, schema === undefined ? undefined : { schema }) };
          } catch (error) {
            if (!InvalidArgumentsError.isInstance(error)) throw error;
            return { position: error.position };
          }
        };
        expect(read()).toEqual(read(untyped));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('parseCallArguments', () => {
  it('reads a call’s arguments up to the `)` that closes the call', () => {
    expect(parseCallArguments('f(a=1, b="x)") and more', { from: 2 })).toEqual({ arguments: { a: 1, b: 'x)' }, end: 13 });
    expect(parseCallArguments('f(g(1), [2, (3)]) tail', { from: 2 })).toEqual({ arguments: { arg0: 'g(1)', arg1: [2, 3] }, end: 16 });
    expect(parseCallArguments('f() f(x=2)', { from: 2 })).toEqual({ arguments: {}, end: 2 });
    expect(parseCallArguments('f(x="5")', { from: 2, schema: { type: 'object', properties: { x: { type: 'integer' } } } })).toEqual({
      arguments: { x: 5 },
      end: 7,
    });
  });

  it('returns undefined for arguments that do not read, a call that never closes, and one JSON object', () => {
    expect(parseCallArguments('f(a=1) g(b=2)', { from: 2, to: 5 })).toBeUndefined();
    expect(parseCallArguments('f(a=1) g(b=2)', { from: 2, to: 6 })).toEqual({ arguments: { a: 1 }, end: 5 });
    for (const text of ['f(x=)', 'f(a=1', 'f(a="x)', 'f(a=[1)]', 'f(a=1]', 'f(x=1, , y)', 'f({"a": 1})', 'f(']) {
      expect(parseCallArguments(text, { from: 2 })).toBeUndefined();
    }
  });

  it('with plainOnly, reads only the plain forms and leaves the rest (undefined) to the caller', () => {
    expect(parseCallArguments('f(a=1, b="x") tail', { from: 2, plainOnly: true })).toEqual({ arguments: { a: 1, b: 'x' }, end: 12 });
    // Read by the general reading only: a nested object, an escape, a positional value; a schema.
    for (const text of ['f(a={"b": {"c": 1}})', 'f(a="x\\"y")', 'f("x")', 'f(a=1']) {
      expect(parseCallArguments(text, { from: 2, plainOnly: true })).toBeUndefined();
    }
    expect(parseCallArguments('f(a={"b": {"c": 1}})', { from: 2 })).toEqual({ arguments: { a: { b: { c: 1 } } }, end: 19 });
    expect(parseCallArguments('f(x="5")', { from: 2, schema: { type: 'object', properties: { x: { type: 'integer' } } }, plainOnly: true })).toBeUndefined();
  });

  it('reads the same from every kind of string (flat, concatenated, sliced, two-byte)', () => {
    const call = 'f(a=1, b="x y", c=[1, {"k": None}], d=my_data)';
    const expected = { arguments: { a: 1, b: 'x y', c: [1, { k: null }], d: 'my_data' }, end: call.length - 1 };
    const padded = `${'.'.repeat(40)}${call}`;
    const kinds = [call, `${call.slice(0, 9)}${call.slice(9)}`, padded.slice(40), `é${call}`.slice(1), JSON.parse(JSON.stringify(call)) as string];
    for (const text of kinds) {
      expect(parseCallArguments(text, { from: 2, plainOnly: true })).toEqual(expected);
      expect(parseCallArguments(`x ${text}`, { from: 4 })).toEqual({ ...expected, end: expected.end + 2 });
    }
  });

  it('reads what parseArguments reads between `from` and the `)` it found, on random text', () => {
    const piece = fc.constantFrom('a', 'k', '=', ':', ',', ' ', '"', "'", '\\', 'x', '4', '(', ')', '[', ']', '{', '}', 'None', 'true', '#', 'é', '"""');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }).map((parts) => parts.join('')), fc.nat(), (text, at) => {
        const from = at % (text.length + 1);
        const read = parseCallArguments(text, { from });
        if (read === undefined) return;
        expect(text.charAt(read.end)).toBe(')');
        expect(read.arguments).toStrictEqual(parseArguments(text, { from, to: read.end }));
      }),
      { numRuns: 3000 },
    );
  });

  describe('the plain reading (key=value pairs of simple values, read with local variables)', () => {
    const key = fc.constantFrom('a', 'k_1', 'Limit', '__proto__', 'arg0', '9', 'x');
    const scalar = fc.oneof(
      fc.string({ maxLength: 6 }).filter((text) => !text.includes('"') && !text.includes('\\')).map((text) => `"${text}"`),
      fc.constantFrom("'it'", '0', '-0', '7', '-12', '123456789012345', '0.5', '-3.25', '12.0', 'True', 'false', 'None', 'null', 'my_data', 'Enum.VALUE', 'e3', '_', 'Truex', 'inf', 'NaN'),
      fc.integer().map(String),
    );
    const space = fc.constantFrom('', ' ', '  ', '\n', '\t');
    const object = fc.array(fc.tuple(fc.constantFrom('"a"', "'b'", '"k 1"', '"__proto__"', '""'), space, fc.constantFrom(':', '='), space, scalar), { maxLength: 4 }).chain((members) =>
      fc.tuple(space, fc.boolean()).map(([inner, trailing]) => `{${members.map(([k, s1, sep, s2, v]) => `${k}${s1}${sep}${s2}${v}`).join(', ')}${trailing && members.length > 0 ? ',' : ''}${inner}}`),
    );
    const item = fc.oneof(scalar, object);
    const value = fc.oneof(scalar, object, fc.array(fc.tuple(space, item), { maxLength: 4 }).chain((items) =>
      fc.tuple(space, fc.boolean()).map(([inner, trailing]) => `[${items.map(([s, v]) => `${s}${v}`).join(',')}${trailing && items.length > 0 ? ',' : ''}${inner}]`),
    ));
    const plainCall = fc
      .array(fc.tuple(key, space, space, value, space), { maxLength: 5 })
      .chain((pairs) => fc.tuple(space, fc.boolean()).map(([lead, trailing]) => `f(${lead}${pairs.map(([k, s1, s2, v, s3]) => `${k}${s1}=${s2}${v}${s3}`).join(', ')}${trailing && pairs.length > 0 ? ',' : ''}) rest`));

    it('reads every call of plain values, as the general reading does', () => {
      fc.assert(
        fc.property(plainCall, (text) => {
          const plain = readPlainCallArguments(text, 2, text.length);
          expect(plain).toBeDefined();
          expect(plain).toStrictEqual(readCallArguments(text, 2, text.length, undefined));
        }),
        { numRuns: 3000 },
      );
    });

    it('returns what the general reading returns whenever it returns, on near-miss text', () => {
      const piece = fc.constantFrom('a', 'k_1', '__proto__', '=', '==', ' ', '\t', '\u00a0', ',', '"x"', "'y'", '"a\\"b"', '"', "'", '[', ']', '(', ')', '{', '}', '{"k": ', '"k"=', '{}', '[{', '1', '0', '-', '.', '5', '12.5', '007', '1234567890123456', 'True', 'None', 'Truex', 'é', ':', '\\', 'e3', '+', 'x.y', '.', "'");
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 24 }).map((parts) => `f(${parts.join('')}`), (text) => {
          const plain = readPlainCallArguments(text, 2, text.length);
          if (plain !== undefined) expect(plain).toStrictEqual(readCallArguments(text, 2, text.length, undefined));
        }),
        { numRuns: 5000 },
      );
    });

    it('keeps -0, a __proto__ key and the last of duplicate keys as the general reading does', () => {
      const text = 'f(n=-0, __proto__=1, a=1, a=[2, 3.5,], b=None)';
      const plain = readPlainCallArguments(text, 2, text.length);
      expect(plain).toStrictEqual(readCallArguments(text, 2, text.length, undefined));
      expect(Object.is(plain?.arguments.n, -0)).toBe(true);
      expect(Object.getPrototypeOf(plain?.arguments)).toBe(Object.prototype);
      expect(Object.keys(plain?.arguments ?? {})).toEqual(['n', '__proto__', 'a', 'b']);
    });
  });
});
