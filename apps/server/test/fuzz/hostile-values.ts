import fc from 'fast-check';

/**
 * A stand-in for a JSON number literal `JSON.stringify` cannot write (`-0`, `1e400`, a
 * 40-digit integer): `withRawLiterals` swaps the quoted marker for the literal itself.
 */
const RAW = '\u0000raw:';
export const rawLiteral = (literal: string): string => `${RAW}${literal}`;

/** `JSON.stringify(value)` with every `rawLiteral` marker written as the bare literal. */
export function stringifyWithRawLiterals(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  // JSON.stringify writes the marker's NUL as \u0000.
  return text.replace(/"\\u0000raw:([^"]*)"/g, (_, literal: string) => literal);
}

/** Names a client might give its tools that collide with something on the server or in JavaScript. */
export const HOSTILE_NAMES = [
  'calculate',
  'get_current_time',
  'fetch_url',
  'code_interpreter',
  'web_search',
  'web_search_preview',
  'file_search',
  'computer_use_preview',
  'shell',
  'local_shell',
  'apply_patch',
  'update_plan',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  '',
  ' ',
  'a'.repeat(65),
  'name with spaces',
  'ünïcödé',
  'multi_tool_use.parallel',
  'functions.lookup',
] as const;

/** Strings that have broken parsers, loggers and terminals. */
const HOSTILE_STRINGS = [
  '',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83dy',
  '\u202egnirts desrever',
  '\u2028\u2029',
  '\ufeff',
  '\u200b',
  '🧪'.repeat(50),
  'NaN',
  'Infinity',
  '-0',
  '1e308',
  'null',
  'true',
  '{}',
  '[]',
  '{"a":',
  '"',
  '\\',
  '</script>',
  '${process.exit()}',
  '%s%s%s%n',
  'data: [DONE]\n\n',
  '\r\n\r\nHTTP/1.1 200 OK',
  'call_',
  'resp_',
  'resp_0123456789abcdef0123456789abcdef',
  'data:image/png;base64,AAAA',
  'data:image/png;base64,',
  'http://127.0.0.1:1/x.png',
  'file:///etc/passwd',
  ...HOSTILE_NAMES,
] as const;

/** Numbers at and past every edge a parser cares about, some only writable as raw literals. */
const HOSTILE_NUMBERS: readonly unknown[] = [
  0,
  -1,
  1,
  0.5,
  1.5,
  -1e308,
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER - 2,
  2 ** 31,
  2 ** 32,
  1e9,
  5e-324,
  rawLiteral('-0'),
  rawLiteral('1e400'),
  rawLiteral('-1e400'),
  rawLiteral('123456789012345678901234567890123456789'),
  rawLiteral('1E+2'),
  rawLiteral('0.0000000000000000000000000000001'),
];

/**
 * A large value (a long string, deep nesting) kept as a recipe until the request is built:
 * fast-check prints counterexamples by walking them, and a 2000-level array overflows it.
 */
export class Large {
  readonly #describe: string;
  readonly #make: () => unknown;
  constructor(describe: string, make: () => unknown) {
    this.#describe = describe;
    this.#make = make;
  }
  make(): unknown {
    return this.#make();
  }
  [fc.toStringMethod](): string {
    return this.#describe;
  }
}

/** A JSON value nested `depth` levels deep, in arrays or objects. */
export function nested(depth: number, kind: 'array' | 'object'): Large {
  return new Large(`nested(${depth}, '${kind}')`, () => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
    return value;
  });
}

/** `length` repetitions of one character. */
export function long(length: number, char = 'x'): Large {
  return new Large(`long(${length}, ${JSON.stringify(char)})`, () => char.repeat(length));
}

/** A copy of a JSON tree that keeps own `__proto__` keys; with `materialize`, `Large` recipes become their values. */
export function copyTree(value: unknown, materialize = false): unknown {
  if (value instanceof Large) return materialize ? value.make() : value;
  if (Array.isArray(value)) return value.map((item) => copyTree(item, materialize));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) withOwnKey(out, key, copyTree((value as Record<string, unknown>)[key], materialize));
  return out;
}

/** An object with an own, enumerable key that `obj[key] = …` would not create (`__proto__`). */
export function withOwnKey(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

/** Any value the fuzzer may put at a path: wrong types, edges, huge, deep, unicode. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], [[]], [{}], { type: null }, { type: 'function' }), weight: 4 },
  { arbitrary: fc.constantFrom(...HOSTILE_NUMBERS), weight: 3 },
  { arbitrary: fc.constantFrom(...HOSTILE_STRINGS), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.tuple(fc.integer({ min: 1000, max: 300_000 }), fc.constantFrom('x', '\u0000', '🧪', '"', '\\')).map(([n, char]) => long(n, char)), weight: 1 },
  {
    arbitrary: fc.tuple(fc.oneof(fc.integer({ min: 55, max: 70 }), fc.integer({ min: 10, max: 2000 })), fc.constantFrom<'array' | 'object'>('array', 'object')).map(([depth, kind]) => nested(depth, kind)),
    weight: 1,
  },
  { arbitrary: fc.constantFrom(...HOSTILE_NAMES).map((key) => withOwnKey({}, key, { polluted: true })), weight: 1 },
  // `String()` and template literals call these: an own key that is not a function makes them throw.
  { arbitrary: fc.tuple(fc.constantFrom('toString', 'valueOf', 'toJSON'), fc.constantFrom<unknown>(1, null, {}, 'x')).map(([key, value]) => withOwnKey({}, key, value)), weight: 2 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
);
