import type { JsonSchema } from '@toolwire/core';
import { skipSpace } from './json-extent.ts';
import { Finder, setOwn } from './native-call.ts';
import type { NativeCall, NativeContext } from './native-call.ts';
import { convertXmlValue, propertySchema } from './xml-value.ts';

/**
 * The tags of a "name, then key/value pairs" call format: GLM's body with other spellings.
 * `CALL NAME [SEP] KEY k KEY_CLOSE [TYPE t TYPE_CLOSE] VALUE v VALUE_CLOSE … CALL_CLOSE`.
 */
export interface PairTags {
  /** Opens one call; the name follows. */
  call: string;
  callClose: string;
  /** A token that may follow the name (Hunyuan HY v3's `<tool_sep>`). */
  sep?: string;
  key: string;
  keyClose: string;
  /** An optional type tag between key and value (K2 Horizon's typed XML). */
  type?: readonly [open: string, close: string];
  /** Opens a value; empty when the value starts right after `keyClose` (Solar Open 2). */
  value: string;
  valueClose: string;
  /**
   * Solar Open 2's recovery, as vLLM reads it: the name is the rest of the start line; a key or
   * value without its closing tag ends at the next argument, the end of the call or the start of
   * the next call; a call without its closing tag ends where the next call starts; a repeated
   * key keeps its first value.
   */
  lenient?: boolean;
}

/** Hunyuan HY v3 and v4 (`suffix`: the checkpoint's tag suffix, e.g. `:opensource`, or empty). */
export function hunyuanTags(suffix: string): PairTags {
  return {
    call: `<tool_call${suffix}>`,
    callClose: `</tool_call${suffix}>`,
    sep: `<tool_sep${suffix}>`,
    key: `<arg_key${suffix}>`,
    keyClose: `</arg_key${suffix}>`,
    value: `<arg_value${suffix}>`,
    valueClose: `</arg_value${suffix}>`,
  };
}

/** The Hunyuan tags of a block whose opener (`<tool_calls:SUFFIX>` or `<tool_call:SUFFIX>`) is `text[0, openerLength)`. */
export function hunyuanBlockTags(text: string, openerLength: number): PairTags {
  const tag = text.startsWith('<tool_calls') ? '<tool_calls' : '<tool_call';
  return hunyuanTags(text.slice(tag.length, openerLength - 1));
}

/** IQuest Coder V2: `<iquestcoder_tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value></iquestcoder_tool_call>`. */
export const IQUEST_TAGS: PairTags = {
  call: '<iquestcoder_tool_call>',
  callClose: '</iquestcoder_tool_call>',
  key: '<arg_key>',
  keyClose: '</arg_key>',
  value: '<arg_value>',
  valueClose: '</arg_value>',
};

/** K2 Horizon XML: `<ifm|tool_call>NAME<ifm|arg_key>k</ifm|arg_key>[<ifm|arg_type>t</ifm|arg_type>]<ifm|arg_value>v</ifm|arg_value></ifm|tool_call>`. */
export const IFM_TAGS: PairTags = {
  call: '<ifm|tool_call>',
  callClose: '</ifm|tool_call>',
  key: '<ifm|arg_key>',
  keyClose: '</ifm|arg_key>',
  type: ['<ifm|arg_type>', '</ifm|arg_type>'],
  value: '<ifm|arg_value>',
  valueClose: '</ifm|arg_value>',
};

/** Solar Open 2: `<|tool_call:start|>NAME\n<|tool_arg:start|>k<|tool_arg:value|>v<|tool_arg:end|>…<|tool_call:end|>`. */
export const SOLAR_TAGS: PairTags = {
  call: '<|tool_call:start|>',
  callClose: '<|tool_call:end|>',
  key: '<|tool_arg:start|>',
  keyClose: '<|tool_arg:value|>',
  value: '',
  valueClose: '<|tool_arg:end|>',
  lenient: true,
};

const MAX_NAME = 300;
const JSON_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** A type the model wrote for a value (`integer`, `array[string]`), as a schema when the caller gave none. */
function writtenType(type: string | undefined): JsonSchema | undefined {
  if (type === undefined) return undefined;
  const base = type.split('[', 1)[0]?.trim().toLowerCase() ?? '';
  return JSON_TYPES.has(base) ? ({ type: base } as JsonSchema) : undefined;
}

/** A name is one run of text without whitespace, quotes or angle brackets. */
function isPlainName(name: string): boolean {
  if (name === '' || name.length > MAX_NAME) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c <= 0x20 || c === 0x22 || c === 0x27 || c === 0x3c || c === 0x3e || c === 0x7b || c === 0x7d) return false;
  }
  return true;
}

/** The smallest of the indices that are not -1, or -1. */
function earliest(a: number, b: number, c: number): number {
  let best = -1;
  for (const x of [a, b, c]) if (x >= 0 && (best < 0 || x < best)) best = x;
  return best;
}

/**
 * The calls written with `tags` in `text[from, to)`. Values are text (typed by the tool's
 * schema, or by a type tag the model wrote), ending at the first value-closing tag, so a
 * value may hold the call's other tags. A call that never closes (truncated) ends the
 * reading. Linear: every search resumes past its last hit.
 */
export function parsePairCalls(text: string, from: number, to: number, tags: PairTags, context: NativeContext): NativeCall[] {
  const calls: NativeCall[] = [];
  const opens = new Finder(text, tags.call, to);
  const closes = new Finder(text, tags.callClose, to);
  const keys = new Finder(text, tags.key, to);
  const seps = tags.sep === undefined ? undefined : new Finder(text, tags.sep, to);
  const keyCloses = new Finder(text, tags.keyClose, to);
  const valueCloses = new Finder(text, tags.valueClose, to);
  const typeCloses = tags.type === undefined ? undefined : new Finder(text, tags.type[1], to);
  let pos = from;
  while (pos < to) {
    const start = opens.next(pos);
    if (start < 0) break;
    const nameStart = start + tags.call.length;
    // The name runs to the first tag of the call's body.
    const lenient = tags.lenient === true;
    let nameEnd = closes.next(nameStart);
    if (nameEnd < 0) break;
    const key = keys.next(nameStart);
    if (key >= 0 && key < nameEnd) nameEnd = key;
    const sep = seps?.next(nameStart) ?? -1;
    if (sep >= 0 && sep < nameEnd) nameEnd = sep;
    if (lenient) {
      // A call that starts again before its name ends is skipped.
      const restart = opens.next(nameStart);
      if (restart >= 0 && restart < nameEnd) {
        pos = restart;
        continue;
      }
    }
    let name = text.slice(nameStart, nameEnd);
    let named = true;
    if (lenient) {
      const newline = name.indexOf('\n');
      named = newline >= 0;
      name = name.slice(0, Math.max(0, newline));
    }
    name = name.trim();
    // Some deployments write a literal "\n" after the name.
    if (name.endsWith('\\n')) name = name.slice(0, -2).trim();
    let i = sep === nameEnd && tags.sep !== undefined ? nameEnd + tags.sep.length : nameEnd;
    const ok = named && isPlainName(name);
    const schema = ok ? context.schemaOf(name) : undefined;
    const values: Record<string, unknown> = {};
    let closed = false;
    while (i < to) {
      i = skipSpace(text, i, to);
      if (text.startsWith('\\n', i)) {
        i += 2;
        continue;
      }
      if (text.startsWith(tags.callClose, i)) {
        i += tags.callClose.length;
        closed = true;
        break;
      }
      if (lenient && text.startsWith(tags.call, i)) {
        // The next call starts: this one ended without its closing tag.
        closed = true;
        break;
      }
      if (!text.startsWith(tags.key, i)) {
        // Stray text inside a call: on to the next key or the end of the call.
        const nextKey = keys.next(i + 1);
        const nextClose = closes.next(i + 1);
        if (nextClose < 0) break;
        i = nextKey >= 0 && nextKey < nextClose ? nextKey : nextClose;
        continue;
      }
      const keyEnd = keyCloses.next(i + tags.key.length);
      if (lenient) {
        // A key that runs into the next argument or the end of the call adds nothing.
        const boundary = earliest(keys.next(i + tags.key.length), closes.next(i), opens.next(i));
        if (boundary >= 0 && (keyEnd < 0 || boundary < keyEnd)) {
          i = boundary;
          continue;
        }
      }
      if (keyEnd < 0) break;
      const k = text.slice(i + tags.key.length, keyEnd).trim();
      let v = skipSpace(text, keyEnd + tags.keyClose.length, to);
      if (text.startsWith('\\n', v)) v = skipSpace(text, v + 2, to);
      let type: string | undefined;
      if (tags.type !== undefined && typeCloses !== undefined && text.startsWith(tags.type[0], v)) {
        const typeEnd = typeCloses.next(v + tags.type[0].length);
        if (typeEnd < 0) break;
        type = text.slice(v + tags.type[0].length, typeEnd).trim();
        v = skipSpace(text, typeEnd + tags.type[1].length, to);
      }
      if (tags.value !== '') {
        if (!text.startsWith(tags.value, v)) break;
        v += tags.value.length;
      } else {
        v = keyEnd + tags.keyClose.length;
      }
      let valueEnd = valueCloses.next(v);
      let next = valueEnd + tags.valueClose.length;
      if (lenient) {
        const boundary = earliest(keys.next(v), closes.next(v), opens.next(v));
        if (boundary >= 0 && (valueEnd < 0 || boundary < valueEnd)) {
          valueEnd = boundary;
          next = boundary;
        }
      }
      if (valueEnd < 0) break;
      const raw = text.slice(v, valueEnd);
      const property = propertySchema(schema, k);
      if (k !== '' && !(lenient && Object.hasOwn(values, k))) {
        if (property === undefined && type !== undefined && type.trim().toLowerCase() === 'any') setOwn(values, k, raw);
        else setOwn(values, k, convertXmlValue(raw, property ?? writtenType(type)));
      }
      i = next;
    }
    if (!closed) break;
    if (ok) calls.push({ name, args: values, end: i });
    pos = i;
  }
  return calls;
}
