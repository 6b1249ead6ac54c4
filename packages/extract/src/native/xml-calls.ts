import { isJsonSpace, skipSpace, tryJson } from './json-extent.ts';
import { Finder, setOwn } from './native-call.ts';
import { isQuotedOpen } from './native-opener.ts';
import type { NativeCall, NativeContext } from './native-call.ts';
import { allowsJsonValue, convertXmlValue, isPlainString, propertySchema } from './xml-value.ts';
import type { JsonSchema } from '@toolwire/core';

/** The tags of one XML-style call format. */
interface XmlDialect {
  /** Opens a call; the name follows (`=NAME>` or ` name="NAME">`). */
  invoke: string;
  invokeClose: string;
  parameter: string;
  parameterClose: string;
  /** Names are written as `name="…"` attributes (MiniMax, DSML) rather than `=NAME`. */
  attributes: boolean;
  /**
   * Qwen strips the newline the template writes after the opening tag and the one before the
   * closing tag, each where it is (as vLLM does); Seed strips the closing one only when the
   * value opens with one (`paired-newline`: it writes `<parameter=k>code\n</parameter>`, as
   * llama.cpp reads it); MiniMax trims all whitespace, but for a property the schema types as
   * a plain string (`all-but-string`: its template writes strings as they are, so their space
   * is data: indented code), and so does MiniCPM5; DSML keeps it.
   */
  trim: 'newline' | 'paired-newline' | 'all-but-string' | 'none';
  /** A value may quote whole `<tool_call>…</tool_call>` calls (Qwen3: see `quotedCallSpans`). */
  quotesCalls: boolean;
  /**
   * MiniCPM5: a parameter tag is one only when space follows its name (`<parameter …>` and
   * `<params>` are other tags) and it is not self-closing (`<param name="path" />`, as XML
   * docs write a parameter, holds no value). Any other makes the call not one of this format.
   */
  strictParameter?: boolean;
}

/** Qwen3-Coder, Qwen3.5, Nemotron 3 Nano: `<function=NAME><parameter=ARG>VALUE</parameter></function>`. */
export const QWEN_XML: XmlDialect = {
  invoke: '<function=',
  invokeClose: '</function>',
  parameter: '<parameter=',
  parameterClose: '</parameter>',
  attributes: false,
  trim: 'newline',
  quotesCalls: true,
};

/** Seed-OSS, inside `<seed:tool_call>`: Qwen3's tags; a value's last newline is kept unless it opens with one. */
export const SEED_XML: XmlDialect = { ...QWEN_XML, trim: 'paired-newline' };

/** MiniMax-M2: `<invoke name="NAME"><parameter name="ARG">VALUE</parameter></invoke>`. */
export const MINIMAX_XML: XmlDialect = {
  invoke: '<invoke',
  invokeClose: '</invoke>',
  parameter: '<parameter',
  parameterClose: '</parameter>',
  attributes: true,
  trim: 'all-but-string',
  quotesCalls: false,
};

/** DeepSeek V3.2 DSML: `<｜DSML｜invoke name="NAME"><｜DSML｜parameter name="ARG" string="true">VALUE</｜DSML｜parameter>`. */
export const DSML_XML: XmlDialect = {
  invoke: '<\uff5cDSML\uff5cinvoke',
  invokeClose: '</\uff5cDSML\uff5cinvoke>',
  parameter: '<\uff5cDSML\uff5cparameter',
  parameterClose: '</\uff5cDSML\uff5cparameter>',
  attributes: true,
  trim: 'none',
  quotesCalls: false,
};

/** StepFun Step-3, inside DeepSeek's call tokens: `<steptml:invoke name="NAME"><steptml:parameter name="ARG">VALUE</steptml:parameter>`; values verbatim. */
export const STEP_XML: XmlDialect = {
  invoke: '<steptml:invoke',
  invokeClose: '</steptml:invoke>',
  parameter: '<steptml:parameter',
  parameterClose: '</steptml:parameter>',
  attributes: true,
  trim: 'none',
  quotesCalls: false,
};

/** DeepSeek V4.1: DSML with a space after the marker (`<｜DSML｜ invoke name="NAME">`). */
export const DSML_SPACED_XML: XmlDialect = {
  ...DSML_XML,
  invoke: '<\uff5cDSML\uff5c invoke',
  invokeClose: '</\uff5cDSML\uff5c invoke>',
  parameter: '<\uff5cDSML\uff5c parameter',
  parameterClose: '</\uff5cDSML\uff5c parameter>',
};

/** GigaChat 3.5: DSML with `GCML` for `DSML`. */
export const GCML_XML: XmlDialect = {
  ...DSML_XML,
  invoke: '<\uff5cGCML\uff5cinvoke',
  invokeClose: '</\uff5cGCML\uff5cinvoke>',
  parameter: '<\uff5cGCML\uff5cparameter',
  parameterClose: '</\uff5cGCML\uff5cparameter>',
};

/** MiniCPM5: `<function name="NAME"><param name="ARG">VALUE</param></function>`. */
export const MINICPM_XML: XmlDialect = {
  invoke: '<function',
  invokeClose: '</function>',
  parameter: '<param',
  parameterClose: '</param>',
  attributes: true,
  trim: 'all-but-string',
  quotesCalls: false,
  strictParameter: true,
};

const MAX_TAG = 300;
/** Most parameter tags read past a value's fallback end for quoted tags to pair up (see `valueEnd`). */
const MAX_STEPS_AFTER_FALLBACK = 32;

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
    case 'all-but-string':
      return raw.trim();
    case 'newline':
    case 'paired-newline': {
      let start = 0;
      let end = raw.length;
      if (raw.charCodeAt(0) === 0x0a) start = 1;
      else if (raw.startsWith('\r\n')) start = 2;
      // Seed: the closing newline pairs with an opening one.
      const closing = trim === 'newline' || start > 0;
      if (closing && end > start && raw.charCodeAt(end - 1) === 0x0a) end -= raw.charCodeAt(end - 2) === 0x0d && end - 2 >= start ? 2 : 1;
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

/** The tag that opens a parameter at `at`: its key and where its text ends (past `>`), or undefined. */
function openTag(text: string, at: number, to: number, dialect: XmlDialect): { key: string | undefined; end: number } | undefined {
  const from = at + dialect.parameter.length;
  if (dialect.strictParameter === true && (from >= to || !isJsonSpace(text.charCodeAt(from)))) return undefined;
  // Bounded: a run of openers without `>` must not make every one search to the end.
  const limit = Math.min(to, at + MAX_TAG);
  let close = from;
  while (close < limit && text.charCodeAt(close) !== 0x3e && text.charCodeAt(close) !== 0x3c) close++;
  // No `>` before the next `<`: not a tag (`<parameter=` in text runs into the next real tag).
  if (close >= limit || text.charCodeAt(close) === 0x3c) return undefined;
  if (dialect.strictParameter === true && text.charCodeAt(close - 1) === 0x2f) return undefined;
  const tag = text.slice(from, close);
  const key = (dialect.attributes ? attribute(tag, 'name') : tag)?.trim();
  return { key: key === '' ? undefined : key, end: close + 1 };
}

const CALL_OPEN = '<tool_call>';
const CALL_CLOSE = '</tool_call>';

/**
 * The whole calls quoted in values of the block `text[from, to)` (see `isQuotedOpen`), as
 * [start, end) pairs in order: each from its `<tool_call>` through the `</tool_call>` that
 * closes it (nested ones counted), before the block's own closing token. The scanner skips
 * the same closing tokens; a value's end is searched around these spans, so that no tag of a
 * quoted call ends the value or becomes a call or parameter of its own. A quoted call that
 * never closes inside the block makes no span.
 */
export function quotedCallSpans(text: string, from: number, to: number): number[] {
  const spans: number[] = [];
  const end = to - CALL_CLOSE.length >= from && text.startsWith(CALL_CLOSE, to - CALL_CLOSE.length) ? to - CALL_CLOSE.length : to;
  let open = text.indexOf(CALL_OPEN, text.startsWith(CALL_OPEN, from) ? from + CALL_OPEN.length : from);
  // Most blocks quote no call: one search decides it.
  if (open < 0 || open >= end) return spans;
  let close = text.indexOf(CALL_CLOSE, open);
  let depth = 0;
  let start = -1;
  while (true) {
    if (open >= end) open = -1;
    if (close >= end) close = -1;
    if (open >= 0 && (close < 0 || open < close)) {
      if (isQuotedOpen(text, open, end, from)) {
        if (depth === 0) start = open;
        depth++;
      }
      open = text.indexOf(CALL_OPEN, open + 1);
    } else if (close >= 0) {
      if (depth > 0 && --depth === 0) spans.push(start, close + CALL_CLOSE.length);
      close = text.indexOf(CALL_CLOSE, close + 1);
    } else {
      return spans;
    }
  }
}

/** The end of the span in `spans` (see `quotedCallSpans`) that holds `at`, or -1. */
function spanEnd(spans: readonly number[], at: number): number {
  let lo = 0;
  let hi = spans.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((spans[mid * 2 + 1] ?? 0) <= at) lo = mid + 1;
    else hi = mid;
  }
  const start = spans[lo * 2];
  return start !== undefined && start <= at ? (spans[lo * 2 + 1] ?? -1) : -1;
}

/** The first hit of `finder` from `from` outside quoted calls, or -1. */
function nextOutside(finder: Finder, from: number, spans: readonly number[]): number {
  let at = finder.next(from);
  while (at >= 0 && spans.length !== 0) {
    const skip = spanEnd(spans, at);
    if (skip < 0) break;
    at = finder.next(skip);
  }
  return at;
}

/** What the search for the end of one value needs; its finders are shared by the whole block. */
interface ValueScan {
  text: string;
  to: number;
  dialect: XmlDialect;
  invokes: Finder;
  paramOpens: Finder;
  paramCloses: Finder;
  invokeCloses: Finder;
  schema: JsonSchema | undefined;
  /** Keys given so far in this call, the current one included. */
  given: Set<string>;
  /** Calls quoted in values, searched around (see `quotedCallSpans`). */
  spans: readonly number[];
}

/**
 * Whether a parameter named `key` may come next in the call: `'yes'` when not given yet and,
 * with a schema, one of its properties; `'unlisted'` when not given yet but missing from the
 * schema (a parameter the model made up, or a quoted one); `'no'` otherwise.
 */
function mayFollow(scan: ValueScan, key: string | undefined): 'yes' | 'unlisted' | 'no' {
  if (key === undefined || !isPlainName(key) || scan.given.has(key)) return 'no';
  const properties = scan.schema?.properties;
  return properties === undefined || Object.hasOwn(properties, key) ? 'yes' : 'unlisted';
}

/** Whether a structural tag follows the closing parameter tag at `close`: the end of the call or block, or another parameter. */
function structuralAfter(scan: ValueScan, close: number): boolean {
  const { text, to, dialect } = scan;
  const after = skipSpace(text, close + dialect.parameterClose.length, to);
  return after >= to || text.startsWith(dialect.invokeClose, after) || text.startsWith('</', after) || text.startsWith(dialect.parameter, after);
}

/**
 * The calls in `text[from, to)` written in an XML dialect. A value ends at a closing
 * parameter tag that a structural tag follows (the end of the call or block, or a parameter
 * that may come next: one not given yet and, with a schema, one of its properties), as vLLM
 * reads Qwen3-Coder, so code containing `</parameter>` or a quoted `<parameter=…>…
 * </parameter>` survives; a missing closing tag is closed by the next parameter or the end
 * of the call. Linear: every search resumes past its last hit.
 */
export function parseXmlCalls(text: string, from: number, to: number, dialect: XmlDialect, context: NativeContext): NativeCall[] {
  const calls: NativeCall[] = [];
  const invokes = new Finder(text, dialect.invoke, to);
  const invokeCloses = new Finder(text, dialect.invokeClose, to);
  const paramCloses = new Finder(text, dialect.parameterClose, to);
  const paramOpens = new Finder(text, dialect.parameter, to);
  const spans = dialect.quotesCalls ? quotedCallSpans(text, from, to) : [];
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
    const scan: ValueScan = { text, to, dialect, invokes, paramOpens, paramCloses, invokeCloses, schema, given: new Set(), spans };
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
      const open = openTag(text, i, to, dialect);
      if (open === undefined) {
        ok = false;
        i = to;
        break;
      }
      const tagText = text.slice(i + dialect.parameter.length, open.end - 1);
      const key = open.key;
      if (key !== undefined) scan.given.add(key);
      const end = valueEnd(scan, open.end);
      const raw = text.slice(open.end, end.value);
      i = end.next;
      if (key === undefined) {
        ok = false;
        continue;
      }
      const stringAttribute = dialect.attributes ? attribute(tagText, 'string') : undefined;
      const property = propertySchema(schema, key);
      const value = dialect.trim === 'all-but-string' && isPlainString(property) ? raw : trimValue(raw, dialect.trim);
      if (stringAttribute === 'false') {
        // DSML marks non-string values: they are JSON, unless the schema says otherwise
        // (`null` for a string property is the text "null", as vLLM reads it).
        const parsed = tryJson(value);
        setOwn(values, key, parsed === undefined || !allowsJsonValue(property, parsed.value) ? convertXmlValue(value, property) : parsed.value);
      } else if (stringAttribute === 'true') {
        setOwn(values, key, value);
      } else {
        setOwn(values, key, convertXmlValue(value, property));
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

/**
 * Where the value starting at `from` ends (`value`) and where scanning goes on (`next`).
 * A parameter tag inside the value that may not come next opens a quoted one, whose closing
 * tag is skipped (`depth`): a value quoting a whole call (`<function=…><parameter=…>…
 * </parameter></function>`) ends at its own closing tag, not the quoted one. When the quoted
 * tags never pair up, the value ends where it would without them (`fallback`), before the next
 * call of the block.
 */
function valueEnd(scan: ValueScan, from: number): { value: number; next: number } {
  const { text, to, dialect } = scan;
  const closeLength = dialect.parameterClose.length;
  let depth = 0;
  let pos = from;
  let fallback: { value: number; next: number } | undefined;
  // With a fallback, the search stops at the block's next call, or after a few more tags: the
  // next value starts at the fallback and searches that text again, so this keeps it linear.
  let stop = to;
  let steps = 0;
  while (true) {
    if (fallback !== undefined && ++steps > MAX_STEPS_AFTER_FALLBACK) break;
    const close = scan.paramCloses.next(pos);
    const open = scan.paramOpens.next(pos);
    const first = open >= 0 && (close < 0 || open < close) ? open : close;
    if (first >= 0 && first < stop && scan.spans.length !== 0) {
      // A tag of a quoted call is part of the value.
      const skip = spanEnd(scan.spans, first);
      if (skip >= 0) {
        pos = skip;
        continue;
      }
    }
    if (open >= 0 && open < stop && (close < 0 || open < close)) {
      const tag = openTag(text, open, to, dialect);
      if (tag === undefined) {
        pos = open + 1;
        continue;
      }
      // A parameter that may come next, on a line of its own, closes a value whose closing tag is
      // missing; where a closing tag before it could end the value (`fallback`), that one does.
      if (depth === 0 && text.charCodeAt(open - 1) === 0x0a && mayFollow(scan, tag.key) === 'yes') return fallback ?? { value: open, next: open };
      depth++;
      pos = tag.end;
      continue;
    }
    if (close < 0 || close >= stop) break;
    const after = skipSpace(text, close + closeLength, to);
    // A closing tag that ends the value unless quoted tags before it pair up later: where the
    // call or block ends (or another one begins), or before a parameter that may come next.
    let ends = after >= to || text.startsWith(dialect.invokeClose, after) || text.startsWith('</', after);
    if (!ends && depth > 0 && text.startsWith(dialect.parameter, after)) {
      const tag = openTag(text, after, to, dialect);
      ends = tag === undefined || mayFollow(scan, tag.key) === 'yes';
    }
    if (ends) {
      const end = { value: close, next: close + closeLength };
      if (depth === 0) return end;
      if (fallback === undefined) {
        fallback = end;
        const invoke = nextOutside(scan.invokes, end.next, scan.spans);
        if (invoke >= 0) stop = invoke;
      }
    } else if (depth === 0 && text.startsWith(dialect.parameter, after)) {
      const tag = openTag(text, after, to, dialect);
      const follows = tag === undefined ? 'yes' : mayFollow(scan, tag.key);
      if (follows === 'yes') return { value: close, next: close + closeLength };
      if (follows === 'unlisted' && tag !== undefined) {
        // A parameter the schema lacks: made up by the model when its own value ends the way a
        // value does (before the call's end or another parameter), else quoted in this value.
        const own = scan.paramCloses.next(tag.end);
        if (own < 0 || structuralAfter(scan, own)) return { value: close, next: close + closeLength };
      }
    }
    if (depth > 0) depth--;
    pos = close + 1;
  }
  if (fallback !== undefined) return fallback;
  const invokeClose = nextOutside(scan.invokeCloses, from, scan.spans);
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
    setOwn(values, key, convertXmlValue(raw, propertySchema(schema, key)));
    i = valueEndAt + '</arg_value>'.length;
  }
  return { name, args: values, end: to };
}
