import { isJsonSpace, skipSpace, tryJson } from './json-extent.ts';
import { Finder } from './native-call.ts';
import type { NativeCall, NativeContext } from './native-call.ts';
import { allowsJsonValue, convertXmlValue, propertySchema } from './xml-value.ts';

/** The tags of one XML-style call format. */
interface XmlDialect {
  /** Opens a call; the name follows (`=NAME>` or ` name="NAME">`). */
  invoke: string;
  invokeClose: string;
  parameter: string;
  parameterClose: string;
  /** Names are written as `name="…"` attributes (MiniMax, DSML) rather than `=NAME`. */
  attributes: boolean;
  /** Qwen and Seed strip one newline at each end of a value; MiniMax trims all whitespace; DSML keeps it. */
  trim: 'newline' | 'all' | 'none';
}

/** Qwen3-Coder, Qwen3.5, Nemotron 3 Nano, Seed-OSS: `<function=NAME><parameter=ARG>VALUE</parameter></function>`. */
export const QWEN_XML: XmlDialect = {
  invoke: '<function=',
  invokeClose: '</function>',
  parameter: '<parameter=',
  parameterClose: '</parameter>',
  attributes: false,
  trim: 'newline',
};

/** MiniMax-M2: `<invoke name="NAME"><parameter name="ARG">VALUE</parameter></invoke>`. */
export const MINIMAX_XML: XmlDialect = {
  invoke: '<invoke',
  invokeClose: '</invoke>',
  parameter: '<parameter',
  parameterClose: '</parameter>',
  attributes: true,
  trim: 'all',
};

/** DeepSeek V3.2 DSML: `<｜DSML｜invoke name="NAME"><｜DSML｜parameter name="ARG" string="true">VALUE</｜DSML｜parameter>`. */
export const DSML_XML: XmlDialect = {
  invoke: '<\uff5cDSML\uff5cinvoke',
  invokeClose: '</\uff5cDSML\uff5cinvoke>',
  parameter: '<\uff5cDSML\uff5cparameter',
  parameterClose: '</\uff5cDSML\uff5cparameter>',
  attributes: true,
  trim: 'none',
};

/** StepFun Step-3, inside DeepSeek's call tokens: `<steptml:invoke name="NAME"><steptml:parameter name="ARG">VALUE</steptml:parameter>`; values verbatim. */
export const STEP_XML: XmlDialect = {
  invoke: '<steptml:invoke',
  invokeClose: '</steptml:invoke>',
  parameter: '<steptml:parameter',
  parameterClose: '</steptml:parameter>',
  attributes: true,
  trim: 'none',
};

const MAX_TAG = 300;

/** `name="x"` (or single quotes) inside a tag's attribute text. */
function attribute(tag: string, key: string): string | undefined {
  let from = 0;
  while (from < tag.length) {
    const i = tag.indexOf(key, from);
    if (i < 0) return undefined;
    from = i + key.length;
    if (i > 0 && !isJsonSpace(tag.charCodeAt(i - 1))) continue;
    let j = skipSpace(tag, from);
    if (tag.charCodeAt(j) !== 0x3d) continue;
    j = skipSpace(tag, j + 1);
    const quote = tag.charCodeAt(j);
    if (quote !== 0x22 && quote !== 0x27) {
      // Unquoted attribute value: up to whitespace.
      let k = j;
      while (k < tag.length && !isJsonSpace(tag.charCodeAt(k))) k++;
      return tag.slice(j, k);
    }
    const close = tag.indexOf(String.fromCharCode(quote), j + 1);
    return close < 0 ? undefined : tag.slice(j + 1, close);
  }
  return undefined;
}

/** A template placeholder or junk rather than a name (`{{ name }}`, quotes, spaces). */
function isPlainName(name: string): boolean {
  if (name === '') return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x7b || c === 0x7d || c === 0x3c || c === 0x3e || c === 0x22 || c === 0x27 || isJsonSpace(c)) return false;
  }
  return true;
}

function trimValue(raw: string, trim: XmlDialect['trim']): string {
  switch (trim) {
    case 'all':
      return raw.trim();
    case 'newline': {
      let start = 0;
      let end = raw.length;
      if (raw.charCodeAt(0) === 0x0a) start = 1;
      else if (raw.startsWith('\r\n')) start = 2;
      if (end > start && raw.charCodeAt(end - 1) === 0x0a) end -= raw.charCodeAt(end - 2) === 0x0d && end - 2 >= start ? 2 : 1;
      return raw.slice(start, end);
    }
    case 'none':
      return raw;
    default: {
      const unknown: never = trim;
      throw new Error(`unknown trim ${String(unknown)}`);
    }
  }
}

/**
 * The calls in `text[from, to)` written in an XML dialect. A value ends at the closing
 * parameter tag only where a structural tag follows (another parameter, the end of the
 * call, the end of the block), as vLLM reads Qwen3-Coder, so code containing
 * `</parameter>` survives; a missing closing tag is closed by the next parameter on a new
 * line or by the end of the call. Linear: every search resumes past its last hit.
 */
export function parseXmlCalls(text: string, from: number, to: number, dialect: XmlDialect, context: NativeContext): NativeCall[] {
  const calls: NativeCall[] = [];
  const invokes = new Finder(text, dialect.invoke, to);
  const invokeCloses = new Finder(text, dialect.invokeClose, to);
  const paramCloses = new Finder(text, dialect.parameterClose, to);
  const newlineParams = new Finder(text, `\n${dialect.parameter}`, to);
  let pos = from;
  while (pos < to) {
    const start = invokes.next(pos);
    if (start < 0) break;
    const headerEnd = text.indexOf('>', start + dialect.invoke.length);
    if (headerEnd < 0 || headerEnd >= to || headerEnd - start > MAX_TAG) break;
    const header = text.slice(start + dialect.invoke.length, headerEnd);
    const name = (dialect.attributes ? (attribute(header, 'name') ?? '') : header).trim();
    let i = headerEnd + 1;
    const values: Record<string, unknown> = {};
    let ok = isPlainName(name);
    const schema = ok ? context.schemaOf(name) : undefined;
    let closed = false;
    while (i < to) {
      i = skipSpace(text, i, to);
      if (text.startsWith(dialect.invokeClose, i)) {
        i += dialect.invokeClose.length;
        closed = true;
        break;
      }
      if (!text.startsWith(dialect.parameter, i)) {
        // Stray text inside a call: skip to the next tag.
        const next = text.indexOf('<', i + 1);
        if (next < 0 || next >= to) {
          i = to;
          break;
        }
        i = next;
        continue;
      }
      const tagEnd = text.indexOf('>', i + dialect.parameter.length);
      if (tagEnd < 0 || tagEnd >= to || tagEnd - i > MAX_TAG) {
        ok = false;
        i = to;
        break;
      }
      const tag = text.slice(i + dialect.parameter.length, tagEnd);
      const key = dialect.attributes ? attribute(tag, 'name') : tag;
      const valueStart = tagEnd + 1;
      const end = valueEnd(text, valueStart, to, dialect, paramCloses, newlineParams, invokeCloses);
      const raw = text.slice(valueStart, end.value);
      i = end.next;
      if (key === undefined || key.trim() === '') {
        ok = false;
        continue;
      }
      const k = key.trim();
      const stringAttribute = dialect.attributes ? attribute(tag, 'string') : undefined;
      const value = trimValue(raw, dialect.trim);
      if (stringAttribute === 'false') {
        // DSML marks non-string values: they are JSON, unless the schema says otherwise
        // (`null` for a string property is the text "null", as vLLM reads it).
        const parsed = tryJson(value);
        const property = propertySchema(schema, k);
        values[k] = parsed === undefined || !allowsJsonValue(property, parsed.value) ? convertXmlValue(value, property) : parsed.value;
      } else if (stringAttribute === 'true') {
        values[k] = value;
      } else {
        values[k] = convertXmlValue(value, propertySchema(schema, k));
      }
    }
    if (!closed) {
      // An unclosed call inside a closed block: the model stopped writing it.
      break;
    }
    if (ok) calls.push({ name, args: values, end: i });
    pos = i;
  }
  return calls;
}

/** Where the value starting at `from` ends (`value`) and where scanning goes on (`next`). */
function valueEnd(
  text: string,
  from: number,
  to: number,
  dialect: XmlDialect,
  paramCloses: Finder,
  newlineParams: Finder,
  invokeCloses: Finder,
): { value: number; next: number } {
  const nextParam = newlineParams.next(from);
  let search = from;
  while (true) {
    const close = paramCloses.next(search);
    if (close < 0 || (nextParam >= 0 && nextParam < close)) break;
    const after = skipSpace(text, close + dialect.parameterClose.length, to);
    if (after >= to || text.startsWith(dialect.parameter, after) || text.startsWith(dialect.invokeClose, after) || text.startsWith('</', after)) {
      return { value: close, next: close + dialect.parameterClose.length };
    }
    search = close + 1;
  }
  if (nextParam >= 0) return { value: nextParam, next: nextParam + 1 };
  const invokeClose = invokeCloses.next(from);
  if (invokeClose >= 0) return { value: invokeClose, next: invokeClose };
  return { value: to, next: to };
}

/**
 * GLM-4.5/4.6/4.7: `NAME` then `<arg_key>K</arg_key><arg_value>V</arg_value>` pairs, in the
 * text between `<tool_call>` and `</tool_call>` (`text[from, to)`). Values are verbatim
 * strings unless the tool's schema gives another type.
 */
export function parseGlmCall(text: string, from: number, to: number, context: NativeContext): NativeCall | undefined {
  let nameEnd = text.indexOf('<', from);
  if (nameEnd < 0 || nameEnd > to) nameEnd = to;
  // Some deployments run the name into the first tag or a literal "\n".
  let name = text.slice(from, nameEnd).trim();
  if (name.endsWith('\\n')) name = name.slice(0, -2).trim();
  if (!isPlainName(name)) return undefined;
  const schema = context.schemaOf(name);
  const values: Record<string, unknown> = {};
  const keyCloses = new Finder(text, '</arg_key>', to);
  const valueCloses = new Finder(text, '</arg_value>', to);
  let i = nameEnd;
  while (i < to) {
    i = skipSpace(text, i, to);
    if (text.startsWith('\\n', i)) {
      i += 2;
      continue;
    }
    if (!text.startsWith('<arg_key>', i)) {
      const next = text.indexOf('<arg_key>', i + 1);
      if (next < 0 || next >= to) break;
      i = next;
      continue;
    }
    const keyEnd = keyCloses.next(i);
    if (keyEnd < 0) return undefined;
    const key = text.slice(i + '<arg_key>'.length, keyEnd).trim();
    let v = skipSpace(text, keyEnd + '</arg_key>'.length, to);
    if (text.startsWith('\\n', v)) v = skipSpace(text, v + 2, to);
    if (!text.startsWith('<arg_value>', v)) return undefined;
    const valueEndAt = valueCloses.next(v);
    if (valueEndAt < 0) return undefined;
    const raw = text.slice(v + '<arg_value>'.length, valueEndAt);
    values[key] = convertXmlValue(raw, propertySchema(schema, key));
    i = valueEndAt + '</arg_value>'.length;
  }
  return { name, args: values, end: to };
}
