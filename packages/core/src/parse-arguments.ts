import { InvalidArgumentsError } from './errors.ts';
import type { JsonSchema, JsonSchemaTypeName } from './types/json-schema.ts';

/** Options of `parseArguments`. */
export interface ParseArgumentsOptions {
  /** The tool's JSON Schema: values are coerced to declared property types when lossless. */
  schema?: JsonSchema;
  /**
   * Reads only `raw[from, to)` (defaults: 0 and `raw.length`), exactly as if that part had
   * been cut out (error positions count from `from`); a scanner that found the arguments
   * inside a longer text saves the copy, and reading the longer text is faster.
   */
  from?: number;
  to?: number;
}

/**
 * Parses the argument text of a call (what stands between its parentheses) into an
 * object: JSON objects, key=value pairs, positional values (`arg0`, `arg1`, …) and mixes.
 * Quoted values stay strings; unquoted `true/false/True/False`, `null/None` and finite
 * numbers become JSON values; any other unquoted text is kept as the trimmed string.
 * Throws `InvalidArgumentsError` (with the position) for unbalanced quotes or brackets.
 *
 * @example parseArguments('"x", limit=10, zip="02134"') // { arg0: 'x', limit: 10, zip: '02134' }
 */
export function parseArguments(raw: string, options?: ParseArgumentsOptions): Record<string, unknown> {
  const schema = options?.schema;
  const from = Math.min(Math.max(options?.from ?? 0, 0), raw.length);
  const to = Math.min(Math.max(options?.to ?? raw.length, from), raw.length);
  if (schema === undefined) {
    const fast = plainJsonObject(raw, from, to);
    if (fast !== undefined) return fast;
  }
  // `parseTop` returns `undefined` only for a call's arguments (`parseCallArguments`).
  return new ArgumentParser(raw, 0, from, to).parseTop(schema) ?? {};
}

/** What `parseCallArguments` read: the arguments and the index of the `)` that closes the call. */
export interface CallArguments {
  arguments: Record<string, unknown>;
  end: number;
}

/** Options of `parseCallArguments`. */
export interface ParseCallArgumentsOptions {
  /** The index right after the call's `(`. */
  from: number;
  /** Reads no further than this index (default: the end of `raw`): a call not closed before it reads as not closed. */
  to?: number;
  /** The tool's JSON Schema, as for `parseArguments`. */
  schema?: JsonSchema;
  /**
   * Only the plain reading (the forms most calls carry, see below; never with a schema):
   * `undefined` for arguments that need the general one. For a scanner that finds the `)`
   * itself when this fails and then reads the arguments once: an unclosed or invalid call is
   * then not read the general way to its end first.
   */
  plainOnly?: boolean;
}

/**
 * Reads the arguments of a call that opens right before `from` (`name(` … `)`) in one pass,
 * finding the `)` that closes the call as it goes: for a scanner that would otherwise find
 * that `)` first and read the arguments again. When it returns a result, `parseArguments(raw,
 * { schema, from, to: end })` returns the same arguments. Returns `undefined` (never throws
 * `InvalidArgumentsError`) when the arguments are not valid up to a closing `)`, when the
 * call never closes, or when they are one JSON object (left to `parseArguments`, which hands
 * those to `JSON.parse`): read those the two-pass way. It reads no further than the first
 * unbalanced closing bracket outside strings (or the string left open at the end), so
 * trying it first at most doubles the work of a failed call. With `plainOnly`, only the
 * plain reading runs: `undefined` means "not read here", not "invalid".
 *
 * @example parseCallArguments('f(a=1) and text', { from: 2 }) // { arguments: { a: 1 }, end: 5 }
 */
export function parseCallArguments(raw: string, options: ParseCallArgumentsOptions): CallArguments | undefined {
  const length = raw.length;
  const from = Math.min(Math.max(options.from, 0), length);
  const to = Math.min(Math.max(options.to ?? length, from), length);
  if (options.schema === undefined) {
    const plain = readPlainCallArguments(raw, from, to);
    if (plain !== undefined) return plain;
  }
  if (options.plainOnly === true) return undefined;
  return readCallArguments(raw, from, to, options.schema);
}

/** `parseCallArguments` the general way (also the reference the plain reading is tested against). */
export function readCallArguments(raw: string, from: number, to: number, schema: JsonSchema | undefined): CallArguments | undefined {
  const parser = new ArgumentParser(raw, 0, from, to, true);
  try {
    const args = parser.parseTop(schema);
    // The arguments may also have stopped at `to`: a call not closed before it.
    if (args === undefined || parser.pos >= to || raw.charCodeAt(parser.pos) !== RPAREN) return undefined;
    return { arguments: args, end: parser.pos };
  } catch (error) {
    if (error === NOT_READ) return undefined;
    throw error;
  }
}

/**
 * What a call's arguments that do not read throw inside the parser (`parseCallArguments`
 * returns `undefined` for it): made once, as a new error per failed call (its message and
 * stack) would cost more than the one-pass reading saves.
 */
const NOT_READ = new Error('the arguments do not read up to a closing ")"');

/*
 * The plain reading reads the text through these rather than `raw.charCodeAt(i)`: a method read
 * on a string is cached per kind of string (flat or concatenated, sliced, one- or two-byte, …),
 * and once more than four kinds reached it (batch and streaming text together do) the engine
 * looks the method up generically at every character. Batch extraction measured 1.6x slower in
 * such a process (see extract's bench/RESULTS.md); called this way, the kind does not matter.
 */
// eslint-disable-next-line @typescript-eslint/unbound-method -- always called with `.call(raw, …)`
const { charCodeAt, slice } = String.prototype;

/** Where `plainValue` stopped: the `,` or closing bracket after the value and its spaces. */
let plainEnd = 0;
/** What `plainValue` returns for text it leaves to the general reading. */
const NOT_PLAIN_VALUE = Symbol('not a plain value');

/**
 * The arguments most calls carry, read with local variables only (the general parser keeps its
 * position in a field and goes through several small methods per value): `key=value` pairs
 * with ASCII word keys, each value a quoted string without escapes, an integer of up to 15
 * digits, a decimal, a bare word or dotted name (`True`, `None`, `my_data`, `Enum.VALUE`), a
 * flat object of those with quoted keys, or a flat list of those and such objects, up to the `)`
 * that closes the call. At anything else (or text that does not read) it returns `undefined`
 * and the general reading starts over from `from`, so what it returns is what the general
 * reading returns: a property test holds it to that.
 */
export function readPlainCallArguments(raw: string, from: number, to: number): CallArguments | undefined {
  let i = from;
  while (i < to && isSpace(charCodeAt.call(raw, i))) i++;
  if (i >= to) return undefined;
  const result: Record<string, unknown> = {};
  if (charCodeAt.call(raw, i) === RPAREN) return { arguments: result, end: i };
  while (true) {
    const keyStart = i;
    while (i < to && isAsciiWord(charCodeAt.call(raw, i))) i++;
    const keyEnd = i;
    if (keyEnd === keyStart) return undefined;
    while (i < to && isSpace(charCodeAt.call(raw, i))) i++;
    // `=` but not `==`; anything else (`:`, a dotted key, a positional value) is the general reading's.
    if (i + 1 >= to || charCodeAt.call(raw, i) !== EQUALS || charCodeAt.call(raw, i + 1) === EQUALS) return undefined;
    i++;
    while (i < to && isSpace(charCodeAt.call(raw, i))) i++;
    if (i >= to) return undefined;
    let value: unknown;
    if (charCodeAt.call(raw, i) === LBRACKET) {
      const items: unknown[] = [];
      i++;
      while (i < to && isSpace(charCodeAt.call(raw, i))) i++;
      if (i < to && charCodeAt.call(raw, i) === RBRACKET) {
        i++;
      } else {
        while (true) {
          const item = plainValue(raw, i, to, RBRACKET, true);
          if (item === NOT_PLAIN_VALUE) return undefined;
          items.push(item);
          i = plainEnd + 1;
          if (charCodeAt.call(raw, plainEnd) === RBRACKET) break;
          // A comma: a `]` may still follow it (a trailing comma).
          while (i < to && isSpace(charCodeAt.call(raw, i))) i++;
          if (i < to && charCodeAt.call(raw, i) === RBRACKET) {
            i++;
            break;
          }
        }
      }
      while (i < to && isSpace(charCodeAt.call(raw, i))) i++;
      if (i >= to) return undefined;
      const next = charCodeAt.call(raw, i);
      if (next !== COMMA && next !== RPAREN) return undefined;
      value = items;
    } else {
      value = plainValue(raw, i, to, RPAREN, true);
      if (value === NOT_PLAIN_VALUE) return undefined;
      i = plainEnd;
    }
    setKey(result, slice.call(raw, keyStart, keyEnd), value);
    if (charCodeAt.call(raw, i) === COMMA) {
      i++;
      while (i < to && isSpace(charCodeAt.call(raw, i))) i++;
      if (i >= to) return undefined;
    }
    if (charCodeAt.call(raw, i) === RPAREN) return { arguments: result, end: i };
  }
}

/**
 * The plain value at `i` (see `readPlainCallArguments`; with `objects`, also a flat object of
 * them) when spaces and then a `,` or `closer` follow it (`plainEnd` is left at that
 * character), else `NOT_PLAIN_VALUE`.
 */
function plainValue(raw: string, i: number, to: number, closer: number, objects: boolean): unknown {
  const c = charCodeAt.call(raw, i);
  let value: unknown;
  let k: number;
  if (c === LBRACE) {
    if (!objects) return NOT_PLAIN_VALUE;
    value = plainObject(raw, i, to);
    if (value === NOT_PLAIN_VALUE) return value;
    k = plainEnd;
  } else if (c === DQUOTE || c === SQUOTE) {
    k = i + 1;
    while (k < to) {
      const d = charCodeAt.call(raw, k);
      if (d === c) break;
      if (d === BACKSLASH) return NOT_PLAIN_VALUE;
      k++;
    }
    if (k >= to) return NOT_PLAIN_VALUE;
    value = slice.call(raw, i + 1, k);
    k++;
  } else if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
    // As `plainLiteral` reads an integer; a decimal as `literalOf` reads it.
    const negative = c === 0x2d;
    k = negative ? i + 1 : i;
    const first = k;
    let n = 0;
    while (k < to && k - first < 15) {
      const d = charCodeAt.call(raw, k);
      if (d < 0x30 || d > 0x39) break;
      n = n * 10 + (d - 0x30);
      k++;
    }
    const digits = k - first;
    if (digits === 0 || (digits > 1 && charCodeAt.call(raw, first) === 0x30) || k >= to) return NOT_PLAIN_VALUE;
    const after = charCodeAt.call(raw, k);
    if (after >= 0x30 && after <= 0x39) return NOT_PLAIN_VALUE;
    if (after === 0x2e) {
      const point = k;
      k++;
      while (k < to && charCodeAt.call(raw, k) >= 0x30 && charCodeAt.call(raw, k) <= 0x39) k++;
      if (k === point + 1) return NOT_PLAIN_VALUE;
      value = Number(slice.call(raw, i, k));
    } else {
      value = negative ? -n : n;
    }
  } else if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f) {
    // A bare word or dotted name (`True`, `my_data`, `Enum.VALUE`): its literal, else its text, as `classifyUnquoted` reads it.
    k = i + 1;
    while (k < to) {
      const d = charCodeAt.call(raw, k);
      if (!isAsciiWord(d) && d !== 0x2e) break;
      k++;
    }
    const word = slice.call(raw, i, k);
    const literal = literalOf(word);
    value = literal === undefined ? word : literal;
  } else {
    return NOT_PLAIN_VALUE;
  }
  while (k < to && isSpace(charCodeAt.call(raw, k))) k++;
  if (k >= to) return NOT_PLAIN_VALUE;
  const next = charCodeAt.call(raw, k);
  if (next !== COMMA && next !== closer) return NOT_PLAIN_VALUE;
  plainEnd = k;
  return value;
}

/**
 * A flat object at `i` (its `{`): quoted keys without escapes, each followed by `:` or `=` and
 * a plain value, as `parseObject` reads them; `plainEnd` is left after its `}`. Else
 * `NOT_PLAIN_VALUE`.
 */
function plainObject(raw: string, i: number, to: number): unknown {
  const object: Record<string, unknown> = {};
  let k = i + 1;
  while (k < to && isSpace(charCodeAt.call(raw, k))) k++;
  if (k < to && charCodeAt.call(raw, k) === RBRACE) {
    plainEnd = k + 1;
    return object;
  }
  while (true) {
    if (k >= to) return NOT_PLAIN_VALUE;
    const quote = charCodeAt.call(raw, k);
    if (quote !== DQUOTE && quote !== SQUOTE) return NOT_PLAIN_VALUE;
    const keyStart = k + 1;
    k = keyStart;
    while (k < to) {
      const d = charCodeAt.call(raw, k);
      if (d === quote) break;
      if (d === BACKSLASH) return NOT_PLAIN_VALUE;
      k++;
    }
    if (k >= to) return NOT_PLAIN_VALUE;
    const keyEnd = k;
    k++;
    while (k < to && isSpace(charCodeAt.call(raw, k))) k++;
    if (k >= to) return NOT_PLAIN_VALUE;
    const separator = charCodeAt.call(raw, k);
    if (separator !== COLON && separator !== EQUALS) return NOT_PLAIN_VALUE;
    k++;
    while (k < to && isSpace(charCodeAt.call(raw, k))) k++;
    if (k >= to) return NOT_PLAIN_VALUE;
    const value = plainValue(raw, k, to, RBRACE, false);
    if (value === NOT_PLAIN_VALUE) return value;
    setKey(object, slice.call(raw, keyStart, keyEnd), value);
    k = plainEnd + 1;
    if (charCodeAt.call(raw, plainEnd) === RBRACE) break;
    // A comma: a `}` may still follow it (a trailing comma).
    while (k < to && isSpace(charCodeAt.call(raw, k))) k++;
    if (k < to && charCodeAt.call(raw, k) === RBRACE) {
      k++;
      break;
    }
  }
  plainEnd = k;
  return object;
}

/** An ASCII letter, digit or `_`. */
function isAsciiWord(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
}

/**
 * Most argument objects models write are plain JSON, which `JSON.parse` builds natively.
 * It reads them the same way except for numbers the general parser keeps as text (not
 * finite, or an integer too large for a double), so a result holding such a number is
 * parsed again the general way (checking the values costs less than pre-scanning the
 * text); so is text `JSON.parse` refuses (Python literals, single quotes, a trailing
 * comma), at the cost of one failed attempt, and only when the text looks like an object.
 */
function plainJsonObject(raw: string, from: number, to: number): Record<string, unknown> | undefined {
  let i = from;
  while (i < to && isJsonSpace(raw.charCodeAt(i))) i++;
  if (i >= to || raw.charCodeAt(i) !== LBRACE) return undefined;
  let end = to;
  while (end > i && isJsonSpace(raw.charCodeAt(end - 1))) end--;
  if (raw.charCodeAt(end - 1) !== RBRACE) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(from === 0 && to === raw.length ? raw : raw.slice(from, to));
  } catch {
    return undefined;
  }
  return isRecord(value) && plainNumbers(value, 0) ? value : undefined;
}

/** Whether every number in a parsed value reads the same in both parsers (see `literalOf`). */
function plainNumbers(value: unknown, depth: number): boolean {
  if (typeof value === 'number') return Number.isSafeInteger(value) || (Number.isFinite(value) && !Number.isInteger(value));
  if (typeof value !== 'object' || value === null) return true;
  // Deeper nesting is refused by the general parser: let it say so.
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!plainNumbers(item, depth + 1)) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!plainNumbers(record[key], depth + 1)) return false;
  return true;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

// Character codes the scanner compares against.
const DQUOTE = 0x22;
const SQUOTE = 0x27;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const EQUALS = 0x3d;
const COLON = 0x3a;
const LPAREN = 0x28;
const RPAREN = 0x29;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;

/** Deeper nesting than this is refused rather than risking the call stack. */
const MAX_DEPTH = 200;

function isSpace(c: number): boolean {
  // Tab to carriage return, space, no-break space, BOM; most characters fail the first test.
  return c > 0x20 ? c === 0xa0 || c === 0xfeff : c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

function isOpener(c: number): boolean {
  return c === LPAREN || c === LBRACKET || c === LBRACE;
}

function isCloser(c: number): boolean {
  return c === RPAREN || c === RBRACKET || c === RBRACE;
}

function closerOf(c: number): number {
  return c === LPAREN ? RPAREN : c === LBRACKET ? RBRACKET : RBRACE;
}

/** Whether a `'` after `c` is an apostrophe: after a word character that is not a space. */
function isApostropheBefore(c: number): boolean {
  return isWordChar(c) && !isSpace(c);
}

function isWordChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c >= 0x80
  );
}

/** ASCII characters that may stand in an unquoted key: 1 yes, 0 no (see `isKeyChar`). */
const KEY_CHARS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  KEY_CHARS[c] =
    !isSpace(c) && c !== DQUOTE && c !== SQUOTE && c !== COMMA && c !== EQUALS && c !== COLON && !isOpener(c) && !isCloser(c) ? 1 : 0;
}

/** A character that may stand in an unquoted key (`limit`, `user.name`, `max-items`); not the -1 past the end. */
function isKeyChar(c: number): boolean {
  if (c < 128) return c >= 0 && KEY_CHARS[c] === 1;
  return c >= 128 && !isSpace(c);
}

/** Whether `s` is a plain decimal number: `[+-]digits[.digits][e[+-]digits]` (no hex, no `inf`). */
function isNumberText(s: string, allowLeadingZero: boolean): boolean {
  let i = 0;
  const n = s.length;
  if (i < n && (s.charCodeAt(i) === 0x2b || s.charCodeAt(i) === 0x2d)) i++;
  const intStart = i;
  while (i < n && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
  const intDigits = i - intStart;
  let fracDigits = 0;
  if (i < n && s.charCodeAt(i) === 0x2e) {
    i++;
    const fracStart = i;
    while (i < n && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
    fracDigits = i - fracStart;
  }
  if (intDigits === 0 && fracDigits === 0) return false;
  if (!allowLeadingZero && intDigits > 1 && s.charCodeAt(intStart) === 0x30) return false;
  if (i < n && (s.charCodeAt(i) === 0x65 || s.charCodeAt(i) === 0x45)) {
    i++;
    if (i < n && (s.charCodeAt(i) === 0x2b || s.charCodeAt(i) === 0x2d)) i++;
    const expStart = i;
    while (i < n && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
    if (i === expStart) return false;
  }
  return i === n;
}

/** The JSON value of an unquoted literal, or `undefined` when the text is not one. */
function literalOf(raw: string): unknown {
  switch (raw) {
    case 'true':
    case 'True':
      return true;
    case 'false':
    case 'False':
      return false;
    case 'null':
    case 'None':
      return null;
    default:
      break;
  }
  if (!isNumberText(raw, false)) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) return undefined;
  // An integer too large for a double would change on the way in: keep its text.
  if (!Number.isSafeInteger(value) && Number.isInteger(value) && !/[.eE]/.test(raw)) {
    const digits = raw.charCodeAt(0) === 0x2b ? raw.slice(1) : raw;
    if (String(value) !== digits) return undefined;
  }
  return value;
}

/** What `plainLiteral` returns for a value it leaves to the general reading. */
const NOT_PLAIN = Symbol('not a plain literal');

/** The unquoted word with a JSON value (see `literalOf`) that starts with `c`, if any. */
function plainWord(c: number): string | undefined {
  switch (c) {
    case 0x74:
      return 'true';
    case 0x66:
      return 'false';
    case 0x54:
      return 'True';
    case 0x46:
      return 'False';
    case 0x6e:
      return 'null';
    case 0x4e:
      return 'None';
    default:
      return undefined;
  }
}

/** How many schemas `typesOf` looks at, so a schema with thousands of nested branches costs little. */
const MAX_TYPE_BRANCHES = 256;

/** The declared type names of a schema, looking through `anyOf`/`oneOf`; `undefined` when it declares none. */
function typesOf(schema: JsonSchema | undefined): Set<JsonSchemaTypeName> | undefined {
  if (schema === undefined || typeof schema !== 'object') return undefined;
  const types = new Set<JsonSchemaTypeName>();
  // Iterative and budgeted: client-sent schemas may nest `anyOf` tens of thousands deep
  // (or, built in code, refer to themselves). Past the budget the rest is not read.
  const pending: unknown[] = [schema];
  let visited = 0;
  while (pending.length > 0 && visited < MAX_TYPE_BRANCHES) {
    const s = pending.pop();
    if (typeof s !== 'object' || s === null) continue;
    visited++;
    const node = s as JsonSchema;
    const t = node.type as unknown;
    if (typeof t === 'string') types.add(normaliseType(t));
    else if (Array.isArray(t)) for (const name of t) if (typeof name === 'string') types.add(normaliseType(name));
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = node[key] as unknown;
      if (Array.isArray(branches)) for (let i = 0; i < branches.length && pending.length < MAX_TYPE_BRANCHES; i++) pending.push(branches[i]);
    }
  }
  return types.size > 0 ? types : undefined;
}

// BFCL-style definitions say "dict", "float", "tuple"…: read them as their JSON Schema names.
function normaliseType(name: string): JsonSchemaTypeName {
  switch (name) {
    case 'dict':
      return 'object';
    case 'float':
      return 'number';
    case 'int':
      return 'integer';
    case 'bool':
      return 'boolean';
    case 'tuple':
    case 'list':
      return 'array';
    case 'str':
      return 'string';
    default:
      return name as JsonSchemaTypeName;
  }
}

function matchesType(value: unknown, types: Set<JsonSchemaTypeName>): boolean {
  if (value === null) return types.has('null');
  switch (typeof value) {
    case 'string':
      return types.has('string');
    case 'boolean':
      return types.has('boolean');
    case 'number':
      return types.has('number') || (types.has('integer') && Number.isInteger(value));
    case 'object':
      return Array.isArray(value) ? types.has('array') : types.has('object');
    default:
      return false;
  }
}

/** Whether a schema declares the object type and not the array type (a set literal there is a broken object). */
function wantsObjectOnly(schema: JsonSchema | undefined): boolean {
  const types = typesOf(schema);
  return types !== undefined && types.has('object') && !types.has('array');
}

function propertySchema(schema: JsonSchema | undefined, key: string): JsonSchema | undefined {
  if (schema === undefined) return undefined;
  const props = schema.properties;
  if (props !== undefined && Object.hasOwn(props, key)) return props[key];
  const extra = schema.additionalProperties;
  return typeof extra === 'object' ? extra : undefined;
}

function itemSchema(schema: JsonSchema | undefined, index: number): JsonSchema | undefined {
  const items = schema?.items;
  if (items === undefined) return undefined;
  return Array.isArray(items) ? items[index] : items;
}

/** Sets a key without letting `__proto__` reach the prototype. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** A string value in the schema's declared type when that loses nothing (`"5"` → 5 for an integer). */
function coerceString(s: string, schema: JsonSchema | undefined, depth: number, budget: LenientBudget): unknown {
  const types = typesOf(schema);
  if (types === undefined || types.has('string')) return s;
  const t = s.trim();
  if (types.has('null') && (t === 'null' || t === 'None')) return null;
  if ((types.has('integer') || types.has('number')) && isNumberText(t, true)) {
    const n = Number(t);
    if (Number.isFinite(n) && (types.has('number') ? true : Number.isSafeInteger(n))) return n;
  }
  if (types.has('boolean')) {
    if (t === 'true' || t === 'True') return true;
    if (t === 'false' || t === 'False') return false;
  }
  if ((types.has('object') || types.has('array')) && t !== '' && depth < MAX_DEPTH) {
    const first = t.charCodeAt(0);
    if (first === LBRACE || first === LBRACKET || first === LPAREN) {
      try {
        const inner = new ArgumentParser(t, depth + 1, 0, t.length, false, budget);
        const value = inner.parseWholeValue(schema);
        if (matchesType(value, types)) return value;
      } catch (error) {
        if (!InvalidArgumentsError.isInstance(error)) throw error;
      }
    }
  }
  return s;
}

/** An unquoted value: its literal, or its text, whichever the schema (if any) asks for. */
function classifyUnquoted(raw: string, schema: JsonSchema | undefined, depth: number, budget: LenientBudget): unknown {
  const literal = literalOf(raw);
  const types = typesOf(schema);
  if (types === undefined) return literal === undefined ? raw : literal;
  if (literal !== undefined && matchesType(literal, types)) return literal;
  // `None` means "no value": it never becomes the string "None".
  if (literal === null) return null;
  if (types.has('string')) return raw;
  const coerced = coerceString(raw, schema, depth, budget);
  if (coerced !== raw) return coerced;
  return literal === undefined ? raw : literal;
}

/** Characters `lenientString` may scan past strict closing quotes before the parse has read any (see `LenientBudget`). */
const LENIENT_BASE = 1 << 16;

/**
 * What the `lenientString` scans of one parse may read, shared with the parsers it starts
 * to coerce strings to a schema's arrays and objects (their scans count against the same
 * budget). A scan starts only while fewer characters were scanned than `LENIENT_BASE` plus
 * twice the characters the parse has read so far, and then reads as far as it needs: the
 * scans of a parse add up to at most `LENIENT_BASE` + 3 times its length (linear), a value
 * reads the same whatever its length (a heredoc of any size), and one value's scan leaves
 * later values their share. Earned by position, not by the length of the part read, so a
 * call's arguments read to the end of the text or to their `)` read alike.
 */
class LenientBudget {
  /** Characters scanned so far. */
  spent = 0;
  /** The parser whose position earns the budget: the one reading the whole arguments. */
  readonly owner: ArgumentParser;

  constructor(owner: ArgumentParser) {
    this.owner = owner;
  }

  /** Whether another scan may start. */
  allows(): boolean {
    const owner = this.owner;
    return this.spent < LENIENT_BASE + 2 * (owner.pos - owner.start);
  }
}

/** One-pass recursive-descent parser over the argument text; `pos` only moves forward, except for bounded look-ahead over a key. */
class ArgumentParser {
  readonly text: string;
  readonly depth: number;
  /** The part of `text` read: `[start, end)`. */
  readonly start: number;
  readonly end: number;
  /** A call's arguments (`parseCallArguments`): a `)` at the top level ends them, as the end of the part does. */
  readonly call: boolean;
  pos: number;
  /** The `{` that holds the whole arguments, read as an object (never as a set); -1 before it is known. */
  private wholeObjectAt = -1;
  /** What `lenientString` may read (see `LenientBudget`): this parse's own, or the one of the parse that started it. */
  private readonly budget: LenientBudget;

  constructor(text: string, depth = 0, start = 0, end = text.length, call = false, budget?: LenientBudget) {
    this.text = text;
    this.depth = depth;
    this.start = start;
    this.end = end;
    this.call = call;
    this.pos = start;
    this.budget = budget ?? new LenientBudget(this);
  }

  /**
   * Whether the top-level arguments end here: at the end of the part read, or (a call's
   * arguments) at a `)` outside every value, which closes the call. Everywhere else a `)`
   * reads as the end of the part does (a closing bracket ends a value), so the arguments
   * read the same either way.
   */
  private stop(): boolean {
    return this.pos >= this.end || (this.call && this.text.charCodeAt(this.pos) === RPAREN);
  }

  /**
   * The character at `i`, -1 past the end of the part read: it equals no character, and
   * keeps every character a small integer (NaN would make them all floating-point numbers).
   */
  private codeAt(i: number): number {
    return i < this.end ? this.text.charCodeAt(i) : -1;
  }

  /** The top-level arguments; `undefined` only for a call's arguments that are one JSON object. */
  parseTop(schema: JsonSchema | undefined): Record<string, unknown> | undefined {
    this.skipSpace();
    if (this.stop()) return {};
    if (this.peek() === LBRACE) {
      if (this.call) return undefined;
      const start = this.pos;
      const value = this.parseValue(schema, 0);
      this.skipSpace();
      if (this.peek() === COMMA) {
        this.pos++;
        this.skipSpace();
      }
      if (this.atEnd() && isRecord(value)) return value;
      if (this.atEnd() && Array.isArray(value)) {
        // A set that is the whole arguments: read it again as the object it was meant to be, to say what is wrong.
        this.pos = start;
        this.wholeObjectAt = start;
        this.parseValue(schema, 0);
      }
      this.pos = start;
    }
    const result: Record<string, unknown> = {};
    let positional = 0;
    while (true) {
      this.skipSpace();
      if (this.stop()) break;
      const itemStart = this.pos;
      const key = this.tryKey();
      if (key === undefined) {
        setKey(result, `arg${positional}`, this.parseValue(undefined, 0));
        positional++;
      } else {
        this.skipSpace();
        if (this.stop() || this.peek() === COMMA) {
          this.fail(`"${key}" has no value after "="`, itemStart, 'give it a value, e.g. `name="text"`, or remove it');
        }
        setKey(result, key, this.parseValue(propertySchema(schema, key), 0));
      }
      this.skipSpace();
      if (this.stop()) break;
      const c = this.peek();
      if (c === COMMA) {
        this.pos++;
        continue;
      }
      this.failUnexpected(c);
    }
    return result;
  }

  /** Parses text that must be exactly one value (a string coerced to an object or array). */
  parseWholeValue(schema: JsonSchema | undefined): unknown {
    this.skipSpace();
    const value = this.parseValue(schema, 0);
    this.skipSpace();
    if (!this.atEnd()) this.failUnexpected(this.peek());
    return value;
  }

  /** Reads `key=` / `key:` / `"key":` and returns the key, or rewinds and returns `undefined`. */
  private tryKey(): string | undefined {
    const start = this.pos;
    const c = this.peek();
    // A quoted key is decoded; an unquoted one is cut out once it is known to be a key.
    let quoted: string | undefined;
    if (c === DQUOTE || c === SQUOTE) {
      quoted = this.parseString();
    } else if (isKeyChar(c)) {
      const text = this.text;
      const end = this.end;
      let i = this.pos + 1;
      while (i < end && isKeyChar(text.charCodeAt(i))) i++;
      this.pos = i;
    } else {
      return undefined;
    }
    const end = this.pos;
    this.skipSpace();
    const sep = this.peek();
    if (sep === EQUALS && this.codeAt(this.pos + 1) !== EQUALS) {
      this.pos++;
      return quoted ?? this.text.slice(start, end);
    }
    if (sep === COLON) {
      // `"q": "x"` is a JSON member; an unquoted `q: "x"` counts only when a value clearly
      // follows, so `http://x` and `10:30` stay plain text.
      const next = this.codeAt(this.pos + 1);
      if (c === DQUOTE || c === SQUOTE || isSpace(next) || next === DQUOTE || next === SQUOTE || next === LBRACKET || next === LBRACE) {
        this.pos++;
        return quoted ?? this.text.slice(start, end);
      }
    }
    this.pos = start;
    return undefined;
  }

  private parseValue(schema: JsonSchema | undefined, depth: number): unknown {
    this.skipSpace();
    const start = this.pos;
    const c = this.peek();
    let value: unknown;
    if (c === DQUOTE || c === SQUOTE) {
      const text = this.parseString();
      const close = this.pos - 1;
      this.skipSpace();
      const lenient = this.atValueEnd() ? text : this.lenientString(start, close);
      if (lenient !== undefined) return schema === undefined ? lenient : coerceString(lenient, schema, this.depth + depth, this.budget);
    } else if (c === LBRACKET || c === LPAREN) {
      value = this.parseArray(schema, depth + 1);
    } else if (c === LBRACE) {
      value = this.parseObject(schema, depth + 1);
    } else {
      return this.parseUnquoted(schema);
    }
    this.skipSpace();
    if (value !== undefined && this.atValueEnd()) return value;
    // Text after a closed string or bracket (`"a" + "b"`, `[1] * 3`): keep the whole value as text.
    this.pos = start;
    return this.parseUnquoted(schema);
  }

  /**
   * The string opened at `open` whose strict closing quote (at `close`) is followed by more
   * of the value: models write shell commands with the same quotes unescaped inside
   * (`'sed -n '360,450p' f.py'`, `'python3 -c "print('x')"'`). When that quote is followed by
   * a word character, or stands inside a string of the other quote (an odd count of it; a
   * `'` after a word character is an apostrophe and does not count), the string ends at the
   * first later quote of its kind that stands outside the other quotes and after which the
   * value ends; the quotes before it are text. A `, key=` outside quotes and brackets ends
   * the search. Returns undefined (and reads nothing) when the quote is not of that kind, no
   * such end follows, or the parse's budget is spent (see `LenientBudget`).
   */
  private lenientString(open: number, close: number): string | undefined {
    const text = this.text;
    const quote = text.charCodeAt(open);
    const other = quote === DQUOTE ? SQUOTE : DQUOTE;
    let others = 0;
    // An apostrophe (a `'` after a word character, `it's`) is text, not a quote: counting it
    // would read `"don't" or y, b="x"` as one string running into the next argument.
    for (let i = open + 1; i < close; i++) {
      const c = text.charCodeAt(i);
      if (c === BACKSLASH) i++;
      else if (c === other && !(other === SQUOTE && isScannerWord(text.charCodeAt(i - 1)))) others++;
    }
    const after = this.codeAt(close + 1);
    if (others % 2 === 0 && !isApostropheBefore(after)) return undefined;
    const budget = this.budget;
    if (!budget.allows()) return undefined;
    const limit = this.end;
    // What a quote-toggling scan of the text (extract's call scanner, which finds where a call
    // ends) has open here: a string, and brackets. The end must leave neither open, so that
    // both readings end the call at the same `)`.
    let toggled = 0;
    let toggledEscape = false;
    // The closers the brackets opened here expect (made with the first): a closer of another
    // kind breaks the call for the scan, so it ends the search too.
    let closers: number[] | undefined;
    let escaped = false;
    let i = close + 1;
    for (; i < limit; i++) {
      const c = text.charCodeAt(i);
      if (toggled !== 0) {
        if (toggledEscape) toggledEscape = false;
        else if (c === BACKSLASH) toggledEscape = true;
        else if (c === toggled) toggled = 0;
      } else if (c === DQUOTE || (c === SQUOTE && !isScannerWord(text.charCodeAt(i - 1)))) {
        toggled = c;
      } else if (isOpener(c)) {
        (closers ??= []).push(closerOf(c));
      } else if (isCloser(c)) {
        // A closing bracket that closes nothing opened here ends the value (or the call).
        if (closers === undefined || closers.length === 0 || closers.pop() !== c) break;
      }
      // An escaped character is text to this reading (the toggling scan has read it above).
      if (escaped) {
        escaped = false;
        continue;
      }
      if (c === BACKSLASH) {
        escaped = true;
        continue;
      }
      if (c === other && !(other === SQUOTE && isScannerWord(text.charCodeAt(i - 1)))) others++;
      if (toggled !== 0 || (closers !== undefined && closers.length !== 0)) continue;
      // The start of the next `key=`: the strict reading was right after all. Checked even
      // inside an odd count of the other quote, which a stray one would otherwise leave open
      // to the end, swallowing every later argument.
      if (c === COMMA && startsKeyword(text, i + 1, this.end)) break;
      if (others % 2 !== 0) continue;
      if (c !== quote) continue;
      let j = i + 1;
      while (j < this.end && isSpace(text.charCodeAt(j))) j++;
      const next = this.codeAt(j);
      if (next !== -1 && next !== COMMA && !isCloser(next)) continue;
      budget.spent += i - close;
      this.pos = j;
      return decodeEscapes(text, open + 1, i);
    }
    budget.spent += i - close;
    return undefined;
  }

  private parseUnquoted(schema: JsonSchema | undefined): unknown {
    const start = this.pos;
    if (schema === undefined) {
      const plain = this.plainLiteral();
      if (plain !== NOT_PLAIN) return plain;
    }
    this.skipRaw();
    const raw = this.text.slice(start, this.pos).trim();
    if (raw === '') {
      this.fail('a value is missing', start, 'remove the extra comma or give the value');
    }
    return classifyUnquoted(raw, schema, this.depth, this.budget);
  }

  /**
   * The commonest unquoted values read in place: a small integer without leading zeros
   * (`10`, `-3`) or `true/false/True/False/null/None`, followed only by spaces up to a `,`, a
   * closing bracket or the end. They read as `classifyUnquoted` (without a schema) reads them;
   * anything else is left to it (`NOT_PLAIN`).
   */
  private plainLiteral(): unknown {
    const text = this.text;
    const end = this.end;
    let i = this.pos;
    let value: unknown;
    const c = this.peek();
    if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
      const negative = c === 0x2d;
      if (negative) i++;
      const first = i;
      let n = 0;
      // At most 15 digits: always a safe integer.
      while (i < end && i - first < 15) {
        const d = text.charCodeAt(i);
        if (d < 0x30 || d > 0x39) break;
        n = n * 10 + (d - 0x30);
        i++;
      }
      const digits = i - first;
      if (digits === 0 || (digits > 1 && text.charCodeAt(first) === 0x30)) return NOT_PLAIN;
      value = negative ? -n : n;
    } else {
      const word = plainWord(c);
      if (word === undefined || i + word.length > end || !text.startsWith(word, i)) return NOT_PLAIN;
      i += word.length;
      value = literalOf(word);
    }
    while (i < end && isSpace(text.charCodeAt(i))) i++;
    if (i < end) {
      const next = text.charCodeAt(i);
      if (next !== COMMA && !isCloser(next)) return NOT_PLAIN;
    }
    this.pos = i;
    return value;
  }

  /** Moves past unquoted text up to a `,` or closing bracket at depth 0, tracking quotes and brackets. */
  private skipRaw(): void {
    const text = this.text;
    // Allocated on the first bracket: most unquoted values (numbers, words) have none.
    let stack: number[] | undefined;
    let positions: number[] | undefined;
    while (this.pos < this.end) {
      const c = text.charCodeAt(this.pos);
      // A `'` after a letter or digit is an apostrophe; after a space (a no-break one too, as
      // everywhere in this reading) it opens a string.
      if (c === DQUOTE || (c === SQUOTE && !(this.pos > this.start && isApostropheBefore(text.charCodeAt(this.pos - 1))))) {
        this.parseString();
        continue;
      }
      if (isOpener(c)) {
        stack ??= [];
        positions ??= [];
        stack.push(closerOf(c));
        positions.push(this.pos);
      } else if (isCloser(c)) {
        if (stack === undefined || positions === undefined || stack.length === 0) return;
        if (stack[stack.length - 1] !== c) this.failMismatch(c, positions[positions.length - 1] ?? this.pos, stack);
        stack.pop();
        positions.pop();
      } else if (c === COMMA && (stack === undefined || stack.length === 0)) {
        return;
      }
      this.pos++;
    }
    if (stack !== undefined && stack.length > 0) this.failUnclosed(positions?.[positions.length - 1] ?? 0, stack);
  }

  /**
   * A list `[…]` or tuple `(…)`. As in Python, parentheses around one value without a comma
   * are grouping, not a tuple: `('a')` is `'a'`, `('a',)` is `['a']`, `()` is `[]`.
   */
  private parseArray(schema: JsonSchema | undefined, depth: number): unknown {
    const open = this.pos;
    const closer = closerOf(this.peek());
    if (this.depth + depth > MAX_DEPTH) this.fail('values are nested too deeply', open, 'flatten the value');
    this.pos++;
    const items: unknown[] = [];
    let commas = 0;
    while (true) {
      this.skipSpace();
      if (this.atEnd()) this.failUnclosed(open, [closer]);
      const c = this.peek();
      if (c === closer) {
        this.pos++;
        if (closer === RPAREN && commas === 0 && items.length === 1) {
          const only = items[0];
          return typeof only === 'string' ? coerceString(only, schema, this.depth + depth, this.budget) : only;
        }
        return items;
      }
      if (c === COMMA) {
        if (items.length === 0) this.fail('a list starts with a comma', this.pos, 'remove the comma');
        commas++;
        this.pos++;
        continue;
      }
      if (isCloser(c)) this.failMismatch(c, open, [closer]);
      items.push(this.parseContainedValue(itemSchema(schema, items.length), depth));
      this.skipSpace();
      const after = this.peek();
      if (after === COMMA) {
        commas++;
        this.pos++;
      } else if (after !== closer && !this.atEnd()) this.failUnexpected(after);
    }
  }

  private parseObject(schema: JsonSchema | undefined, depth: number): Record<string, unknown> | unknown[] {
    const open = this.pos;
    if (this.depth + depth > MAX_DEPTH) this.fail('values are nested too deeply', open, 'flatten the value');
    this.pos++;
    const result: Record<string, unknown> = {};
    let entries = 0;
    while (true) {
      this.skipSpace();
      if (this.atEnd()) this.failUnclosed(open, [RBRACE]);
      const c = this.peek();
      if (c === RBRACE) {
        this.pos++;
        return result;
      }
      if (c === COMMA) {
        this.pos++;
        continue;
      }
      if (isCloser(c)) this.failMismatch(c, open, [RBRACE]);
      const keyStart = this.pos;
      let key: string;
      if (c === DQUOTE || c === SQUOTE) {
        key = this.parseString();
      } else {
        while (this.pos < this.end && isKeyChar(this.peek())) this.pos++;
        if (this.pos === keyStart) this.failUnexpected(this.peek());
        key = this.text.slice(keyStart, this.pos);
      }
      this.skipSpace();
      const sep = this.peek();
      if (sep !== COLON && sep !== EQUALS) {
        // A Python set (`{'a', 'b'}`, `{1, 2}`): JSON has none, so it is read as a list. Not
        // when the `{` holds the whole arguments (`{"query"}` there is a broken JSON object),
        // nor where the schema asks for an object and no list.
        if (entries === 0 && (sep === COMMA || sep === RBRACE) && open !== this.wholeObjectAt && !wantsObjectOnly(schema)) {
          this.pos = keyStart;
          return this.parseSet(open, schema, depth);
        }
        this.fail(`the object key "${key}" is not followed by ":"`, keyStart, 'write objects as {"key": value}');
      }
      this.pos++;
      entries++;
      setKey(result, key, this.parseContainedValue(propertySchema(schema, key), depth));
      this.skipSpace();
      const after = this.peek();
      if (after === COMMA) this.pos++;
      else if (after !== RBRACE && !this.atEnd()) this.failUnexpected(after);
    }
  }

  /**
   * The items of a set literal whose `{` is at `open`, from its first item at `pos`, as a
   * list without repeated strings, numbers, booleans and nulls (a set holds each once). A
   * `key:` or `key=` among them is an error, not an item: `{"a", "b": 1}` is a broken object.
   */
  private parseSet(open: number, schema: JsonSchema | undefined, depth: number): unknown[] {
    const items: unknown[] = [];
    let seen: Set<unknown> | undefined;
    while (true) {
      this.skipSpace();
      if (this.atEnd()) this.failUnclosed(open, [RBRACE]);
      const c = this.peek();
      if (c === RBRACE) {
        this.pos++;
        return items;
      }
      if (isCloser(c)) this.failMismatch(c, open, [RBRACE]);
      const itemStart = this.pos;
      const key = this.tryKey();
      if (key !== undefined) {
        this.fail(
          `the "{" at position ${open - this.start} holds set items and then the key "${key}"`,
          itemStart,
          'write an object as {"key": value, …} with a key for every value, or a list as [value, …]',
        );
      }
      const item = this.parseContainedValue(itemSchema(schema, items.length), depth);
      if (typeof item === 'object' && item !== null) {
        items.push(item);
      } else {
        seen ??= new Set();
        if (!seen.has(item)) {
          seen.add(item);
          items.push(item);
        }
      }
      this.skipSpace();
      const after = this.peek();
      if (after === COMMA) this.pos++;
      else if (after !== RBRACE && !this.atEnd()) this.failUnexpected(after);
    }
  }

  /** A value inside a list or object. */
  private parseContainedValue(schema: JsonSchema | undefined, depth: number): unknown {
    this.skipSpace();
    const c = this.peek();
    if (c === DQUOTE || c === SQUOTE || c === LBRACKET || c === LPAREN || c === LBRACE) {
      const start = this.pos;
      let value: unknown;
      if (c === LBRACE) value = this.parseObject(schema, depth + 1);
      else if (c === LBRACKET || c === LPAREN) value = this.parseArray(schema, depth + 1);
      else {
        const text = this.parseString();
        const close = this.pos - 1;
        this.skipSpace();
        const lenient = this.atValueEnd() ? text : this.lenientString(start, close);
        if (lenient !== undefined) return schema === undefined ? lenient : coerceString(lenient, schema, this.depth + depth, this.budget);
      }
      this.skipSpace();
      if (value !== undefined && this.atValueEnd()) return value;
      this.pos = start;
    }
    return this.parseUnquoted(schema);
  }

  /** Reads a quoted string at `pos` and decodes its escapes. */
  private parseString(): string {
    const open = this.pos;
    const quote = this.text.charCodeAt(open);
    const value = decodeUntil(this.text, open + 1, this.end, quote);
    if (decodedEnd < this.end) {
      this.pos = decodedEnd + 1;
      return value;
    }
    const q = quote === DQUOTE ? '"' : "'";
    return this.fail(`the string opened with ${q} is never closed`, open, `close it with ${q} (escape quotes inside it as \\${q})`);
  }

  private atEnd(): boolean {
    return this.pos >= this.end;
  }

  private peek(): number {
    return this.codeAt(this.pos);
  }

  private atValueEnd(): boolean {
    if (this.atEnd()) return true;
    const c = this.peek();
    return c === COMMA || isCloser(c);
  }

  private skipSpace(): void {
    const text = this.text;
    const end = this.end;
    let i = this.pos;
    while (i < end && isSpace(text.charCodeAt(i))) i++;
    this.pos = i;
  }

  private failUnexpected(c: number): never {
    // A call's arguments that do not read need no message (see `NOT_READ`).
    if (this.call) throw NOT_READ;
    const ch = String.fromCharCode(c);
    if (isCloser(c)) {
      return this.fail(`"${ch}" closes nothing`, this.pos, `remove it or add the matching opening bracket`);
    }
    return this.fail(`unexpected "${ch}"`, this.pos, 'separate arguments with commas, e.g. `a=1, b="x"`');
  }

  private failMismatch(c: number, openPos: number, stack: number[]): never {
    // A call's arguments that do not read need no message (see `NOT_READ`).
    if (this.call) throw NOT_READ;
    const expected = String.fromCharCode(stack[stack.length - 1] ?? RPAREN);
    return this.fail(
      `"${String.fromCharCode(c)}" does not match "${this.text.charAt(openPos)}" at position ${openPos - this.start}`,
      this.pos,
      `close it with "${expected}"`,
    );
  }

  private failUnclosed(openPos: number, stack: number[]): never {
    // A call's arguments that do not read need no message (see `NOT_READ`).
    if (this.call) throw NOT_READ;
    const expected = String.fromCharCode(stack[stack.length - 1] ?? RPAREN);
    return this.fail(`"${this.text.charAt(openPos)}" is never closed`, openPos, `add the closing "${expected}"`);
  }

  private fail(problem: string, at: number, hint: string): never {
    if (this.call) throw NOT_READ;
    const position = at - this.start;
    throw new InvalidArgumentsError({
      message: `Cannot parse the arguments at position ${position}: ${problem}; ${hint}.`,
      position,
      text: this.start === 0 && this.end === this.text.length ? this.text : this.text.slice(this.start, this.end),
    });
  }
}

/**
 * A character after which extract's call scanner reads `'` as an apostrophe (its `isWordUnit`;
 * a copy, as core cannot depend on extract: extract's src/apostrophe-rule.test.ts keeps them equal).
 */
function isScannerWord(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || (c >= 0x80 && c !== 0xa0 && c !== 0xfeff);
}

/** Whether `text` from `from` (before `to`) is spaces, a key and a single `=`: the next keyword argument. */
function startsKeyword(text: string, from: number, to: number): boolean {
  let i = from;
  while (i < to && isSpace(text.charCodeAt(i))) i++;
  const keyStart = i;
  while (i < to && isWordChar(text.charCodeAt(i)) && !isSpace(text.charCodeAt(i))) i++;
  if (i === keyStart) return false;
  while (i < to && isSpace(text.charCodeAt(i))) i++;
  return i < to && text.charCodeAt(i) === EQUALS && (i + 1 >= to || text.charCodeAt(i + 1) !== EQUALS);
}

/** `text[from, to)` with its escapes decoded (as `parseString` decodes a string's). */
function decodeEscapes(text: string, from: number, to: number): string {
  return decodeUntil(text, from, to, -1);
}

/** Where `decodeUntil` stopped: at the `quote` that ends the text, or at `to`. */
let decodedEnd = 0;

/**
 * `text` from `from` with its escapes decoded, up to the first `quote` that is not escaped
 * (`-1`: none) or `to`, whichever comes first (`decodedEnd` is left there). One loop for
 * a string and for the value the quote rule reads.
 */
function decodeUntil(text: string, from: number, to: number, quote: number): string {
  let out = '';
  let chunkStart = from;
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (c === quote) break;
    if (c !== BACKSLASH) {
      i++;
      continue;
    }
    out += text.slice(chunkStart, i);
    const [decoded, next] = decodeEscape(text, i, to);
    out += decoded;
    i = chunkStart = next;
  }
  decodedEnd = i;
  return out + text.slice(chunkStart, i);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hexValue(text: string, start: number, length: number, end: number): number {
  if (start + length > end) return -1;
  let value = 0;
  for (let i = start; i < start + length; i++) {
    const c = text.charCodeAt(i);
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    else return -1;
    value = value * 16 + d;
  }
  return value;
}

/**
 * Decodes the escape at `text[i]` (a backslash) and returns the text and the index after it.
 * Unknown escapes keep their backslash (`C:\dir` stays as written), like Python does.
 */
function decodeEscape(text: string, i: number, end: number): [string, number] {
  const c = i + 1 < end ? text.charAt(i + 1) : '';
  switch (c) {
    case 'n':
      return ['\n', i + 2];
    case 't':
      return ['\t', i + 2];
    case 'r':
      return ['\r', i + 2];
    case 'b':
      return ['\b', i + 2];
    case 'f':
      return ['\f', i + 2];
    case 'v':
      return ['\v', i + 2];
    case '0':
      return ['\0', i + 2];
    case '\\':
    case '"':
    case "'":
    case '/':
    case '`':
      return [c, i + 2];
    case '\n':
      return ['', i + 2];
    case 'x': {
      const v = hexValue(text, i + 2, 2, end);
      return v < 0 ? ['\\x', i + 2] : [String.fromCharCode(v), i + 4];
    }
    case 'u': {
      const v = hexValue(text, i + 2, 4, end);
      return v < 0 ? ['\\u', i + 2] : [String.fromCharCode(v), i + 6];
    }
    case 'U': {
      const v = hexValue(text, i + 2, 8, end);
      return v < 0 || v > 0x10ffff ? ['\\U', i + 2] : [String.fromCodePoint(v), i + 10];
    }
    case '':
      // A backslash at the very end: the string cannot close here, the caller reports it.
      return ['\\', i + 1];
    default:
      return ['\\' + c, i + 2];
  }
}
