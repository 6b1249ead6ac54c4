import type { ToolCall } from '@toolwire/core';
import { isValidName } from './identifier.ts';
import type { TextToolFormat } from './text-tool-format.ts';

const FW = '\uff5c';
const DS = (words: string): string => `<${FW}${words.replaceAll(' ', '\u2581')}${FW}>`;
const DSML = `${FW}DSML${FW}`;

/** A value as an XML-style template prints it: strings raw, everything else as JSON. */
function xmlValue(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/**
 * A Seed-OSS value as its reader reads it back: the reader drops a value's opening line break
 * and then the closing one that pairs with it, so a value that opens with a line break gets a
 * pair of its own (the closing one `\r\n` after a `\r`, which the reader drops as one).
 */
function seedValue(text: string): string {
  if (text.charCodeAt(0) !== 0x0a && !text.startsWith('\r\n')) return text;
  return `\n${text}${text.endsWith('\r') ? '\r\n' : '\n'}`;
}

/**
 * JSON with every `<` written `\u003c` (it can only stand in a string): no closing tag or
 * special token of any format can appear in it, and it reads back the same.
 */
function jsonText(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replaceAll('<', '\\u003c');
}

/** `xmlValue`, with non-strings as `jsonText`. */
function xmlText(value: unknown): string {
  return typeof value === 'string' ? value : jsonText(value);
}

/** Whether `s` holds any of `tokens`. */
function holdsAny(s: string, tokens: readonly string[]): boolean {
  for (const token of tokens) if (s.includes(token)) return true;
  return false;
}

/**
 * A name or key the XML-style readers (DSML, MiniCPM5) take as written in a `name="…"`
 * attribute: no space, quote, angle bracket, brace or `=` (they read no escapes; a key with a
 * quote does not even end the value before it).
 */
function isPlainXmlName(name: string): boolean {
  return name !== '' && name.length <= 300 && !/[\s"'<>{}=]/u.test(name);
}

/** Gemma 4's value syntax: bare keys (sorted, as its template does), `quote` (`<|"|>`; FunctionGemma's `<escape>`) around strings. */
function gemmaValue(value: unknown, quote = '<|"|>'): string {
  if (typeof value === 'string') return `${quote}${value}${quote}`;
  if (Array.isArray(value)) return `[${value.map((item) => gemmaValue(item, quote)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${key}:${gemmaValue(record[key], quote)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Whether Gemma 4 (`quote` `<|"|>`) or FunctionGemma (`<escape>`) can write `value`: no string
 * holds one of `tokens` (its quote, its call's tokens), every key is a bare word.
 */
function gemmaWritable(value: unknown, tokens: readonly string[]): boolean {
  if (typeof value === 'string') return !holdsAny(value, tokens);
  if (Array.isArray(value)) return value.every((item) => gemmaWritable(item, tokens));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).every(([k, v]) => /^[A-Za-z_][\w.-]{0,299}$/u.test(k) && gemmaWritable(v, tokens));
  }
  return true;
}

const GEMMA_TOKENS = ['<|"|>', '<|tool_call>', '<tool_call|>', '<turn|>'];
const FUNCTIONGEMMA_TOKENS = ['<escape>', '<start_function_call>', '<end_function_call>'];
const QWEN_XML_TAGS = ['<tool_call>', '</tool_call>', '<function=', '</function>', '<parameter=', '</parameter>'];
const SEED_TAGS = ['<seed:tool_call>', '</seed:tool_call>', '<function=', '</function>', '<parameter=', '</parameter>'];
const MINIMAX_M2_TAGS = ['<minimax:tool_call>', '</minimax:tool_call>', '<invoke name=', '</invoke>', '<parameter name=', '</parameter>'];
const GLM_TAGS = ['<tool_call>', '</tool_call>', '<arg_key>', '</arg_key>', '<arg_value>', '</arg_value>'];

/**
 * Whether an XML-style format that has no escape writes the call as it is: its name and keys
 * fit an attribute or tag (`isPlainXmlName`) and no value, as written, holds one of its `tags`.
 */
function xmlWritable(name: string, entries: readonly [string, unknown][], tags: readonly string[]): boolean {
  return isPlainXmlName(name) && entries.every(([k, v]) => isPlainXmlName(k) && !holdsAny(xmlValue(v), tags));
}

const M3 = ']<]minimax[>[';

/** MiniMax M3's element content of a value: text, `item` elements for a list, an element per key for an object. */
function m3Value(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? '[]' : value.map((item) => `${M3}<item>${m3Value(item)}${M3}</item>`).join('');
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    return entries.length === 0 ? '{}' : entries.map(([k, v]) => `${M3}<${k}>${m3Value(v)}${M3}</${k}>`).join('');
  }
  return xmlValue(value);
}

/** Whether MiniMax M3 can write `value`: no string holds its marker, every key is a tag name (not empty, no `<` or `>`, no `/` first: a closing tag). */
function m3Writable(value: unknown): boolean {
  if (typeof value === 'string') return !value.includes(M3);
  if (Array.isArray(value)) return value.every(m3Writable);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).every(([k, v]) => k !== '' && k.length <= 300 && !k.startsWith('/') && !k.includes('<') && !k.includes('>') && m3Writable(v));
  }
  return true;
}

/** Kimi K3's argument type tag of a value: strings raw, everything else JSON. */
function xtmlType(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : 'object';
}

/** An XTML attribute value, escaped as Kimi K3's template does. */
function xtmlAttribute(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
}

/** What ends a Kimi K3 value wherever it stands: its argument close, and the tools section's close. */
const XTML_CLOSES = ['<|close|>argument<|sep|>', '<|close|>tools<|sep|>'];
const SOLAR_TOKENS = ['<|tool_arg:start|>', '<|tool_arg:value|>', '<|tool_arg:end|>', '<|tool_call:start|>', '<|tool_call:end|>'];
const MINICPM_TAGS = ['<param', '</param', '<function', '</function'];
const DSML_MARK = `${FW}DSML${FW}`;

/**
 * A call a format cannot hold, as Hermes JSON with every `<` written `\u003c` (no string in it
 * can end the block early): every default format list reads it, and so does a list without
 * JSON that holds the format (a forced `format: 'minimax-m3'`).
 */
function hermesFallback(name: string, args: Record<string, unknown>): string {
  return `<tool_call>\n${jsonText({ name, arguments: args })}\n</tool_call>`;
}

/** A Solar Open id the reader keeps (1 to 64 of `[A-Za-z0-9_.:-]`), else none (it makes one). */
function solarId(id: string | undefined): string {
  return id !== undefined && /^[\w.:-]{1,64}$/u.test(id) && id !== '__proto__' ? id : '';
}

/** Kimi ids are `functions.NAME:IDX`; keep the call's own when it has that shape. */
function kimiId(call: Pick<ToolCall, 'name'> & { id?: string }): string {
  const id = call.id;
  return id !== undefined && id.startsWith(`functions.${call.name}:`) ? id : `functions.${call.name}:0`;
}

/**
 * A tool call written the way the prompt asks the model to write it, so that earlier
 * calls in the history read as examples: `get_weather(city="Paris")`,
 * `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`, or the
 * native format of a model family (`'qwen3-xml'`, `'harmony'`, …). The text parses back to
 * the same call (XML formats give strings back unless the tool's schema types them). Where a
 * format cannot hold a value (its own delimiters in it, a key no tag holds), Solar Open and
 * DSML write it in their JSON form; they and the other formats without an escape (MiniMax M3
 * and M2, Kimi K3, MiniCPM5, Qwen3 XML, Seed-OSS, GLM, Gemma 4, FunctionGemma) write the call
 * as Hermes JSON.
 */
export function renderToolCall(call: Pick<ToolCall, 'name' | 'arguments'> & { id?: string }, format: TextToolFormat = 'call'): string {
  const { name } = call;
  const args = call.arguments;
  const json = JSON.stringify(args);
  const entries = Object.entries(args);
  switch (format) {
    case 'json-tag':
      return `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;
    case 'hermes':
      return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
    case 'call': {
      const keys = Object.keys(args);
      // Keys that are not plain identifiers (dotted, hyphenated) go in the object form.
      if (keys.some((key) => !isValidName(key) || key.includes('.') || key.includes('-'))) return `${name}(${json})`;
      return `${name}(${keys.map((key) => `${key}=${JSON.stringify(args[key]) ?? 'null'}`).join(', ')})`;
    }
    case 'qwen3-xml':
      if (!xmlWritable(name, entries, QWEN_XML_TAGS)) return hermesFallback(name, args);
      return `<tool_call>\n<function=${name}>\n${entries.map(([k, v]) => `<parameter=${k}>\n${xmlValue(v)}\n</parameter>\n`).join('')}</function>\n</tool_call>`;
    case 'seed-oss':
      if (!xmlWritable(name, entries, SEED_TAGS)) return hermesFallback(name, args);
      return `<seed:tool_call>\n<function=${name}>\n${entries.map(([k, v]) => `<parameter=${k}>${seedValue(xmlValue(v))}</parameter>\n`).join('')}</function>\n</seed:tool_call>`;
    case 'minimax-m2':
      if (!xmlWritable(name, entries, MINIMAX_M2_TAGS)) return hermesFallback(name, args);
      return `<minimax:tool_call>\n<invoke name="${name}">\n${entries.map(([k, v]) => `<parameter name="${k}">${xmlValue(v)}</parameter>\n`).join('')}</invoke>\n</minimax:tool_call>`;
    case 'minimax-m3':
      // No escape exists for the marker in a value or for a key that is no tag name: such a call is written as Hermes JSON.
      if (!m3Writable(args) || name.includes('"') || name.includes('>') || name.trim() !== name) return hermesFallback(name, args);
      return `${M3}<tool_call>\n${M3}<invoke name="${name}">${m3Value(args)}${M3}</invoke>\n${M3}</tool_call>`;
    case 'glm':
      if (!xmlWritable(name, entries, GLM_TAGS)) return hermesFallback(name, args);
      return `<tool_call>${name}\n${entries.map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${xmlValue(v)}</arg_value>\n`).join('')}</tool_call>`;
    case 'deepseek':
      return `${DS('tool calls begin')}${DS('tool call begin')}${name}${DS('tool sep')}${json}${DS('tool call end')}${DS('tool calls end')}`;
    case 'deepseek-dsml': {
      // A name or key no attribute holds, or a lone `arguments`/`input` key (read as the wrapped
      // arguments): Hermes JSON. A string holding the markup: a `string="false"` JSON value.
      const wrapped = entries.length === 1 && (entries[0]?.[0] === 'arguments' || entries[0]?.[0] === 'input');
      if (!isPlainXmlName(name) || wrapped || entries.some(([k]) => !isPlainXmlName(k))) return hermesFallback(name, args);
      return `<${DSML}function_calls>\n<${DSML}invoke name="${name}">\n${entries
        .map(([k, v]) => {
          const raw = typeof v === 'string' && !v.includes(DSML_MARK);
          return `<${DSML}parameter name="${k}" string="${raw ? 'true' : 'false'}">${raw ? v : jsonText(v)}</${DSML}parameter>\n`;
        })
        .join('')}</${DSML}invoke>\n</${DSML}function_calls>`;
    }
    case 'kimi-k2':
      return `<|tool_calls_section_begin|><|tool_call_begin|>${kimiId(call)}<|tool_call_argument_begin|>${json}<|tool_call_end|><|tool_calls_section_end|>`;
    case 'kimi-k3':
      // A string value holding the argument or section close, or a header a reader cannot find the end of: Hermes JSON.
      if (
        entries.some(([, v]) => typeof v === 'string' && holdsAny(v, XTML_CLOSES)) ||
        [name, ...entries.map(([k]) => k)].some((text) => text.includes('<|sep|>') || xtmlAttribute(text).length > 200)
      ) {
        return hermesFallback(name, args);
      }
      return `<|open|>tools<|sep|><|open|>call tool="${xtmlAttribute(name)}" index="1"<|sep|>${entries
        .map(([k, v]) => `<|open|>argument key="${xtmlAttribute(k)}" type="${xtmlType(v)}"<|sep|>${xmlText(v)}<|close|>argument<|sep|>`)
        .join('')}<|close|>call<|sep|><|close|>tools<|sep|>`;
    case 'gemma4':
      if (!isPlainXmlName(name) || !gemmaWritable(args, GEMMA_TOKENS)) return hermesFallback(name, args);
      return `<|tool_call>call:${name}${gemmaValue(args)}<tool_call|>`;
    case 'functiongemma':
      if (!isPlainXmlName(name) || !gemmaWritable(args, FUNCTIONGEMMA_TOKENS)) return hermesFallback(name, args);
      return `<start_function_call>call:${name}${gemmaValue(args, '<escape>')}<end_function_call>`;
    case 'harmony':
      return `<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${json}<|call|>`;
    case 'mistral':
      return `[TOOL_CALLS]${name}[ARGS]${json}`;
    case 'functionary':
      return `<function=${name}>${json}</function>`;
    case 'apertus':
      // `<` escaped: a string holding `<|tools_suffix|>` would end the list.
      return `<|tools_prefix|>[${jsonText({ [name]: args })}]<|tools_suffix|>`;
    case 'minicpm5': {
      // No escape and no JSON form: a string holding its tags, or a name or key no attribute holds, makes the call Hermes JSON.
      if (!isPlainXmlName(name) || entries.some(([k]) => !isPlainXmlName(k)) || entries.some(([, v]) => typeof v === 'string' && holdsAny(v, MINICPM_TAGS))) return hermesFallback(name, args);
      return `<function name="${name}">${entries.map(([k, v]) => `<param name="${k}">${xmlText(v)}</param>`).join('')}</function>`;
    }
    case 'plamo3': {
      const p = (word: string) => `<|plamo:${word}:plamo|>`;
      return `${p('begin_tool_requests')}${p('begin_tool_request')}${p('begin_tool_name')}${name}${p('end_tool_name')}${p('begin_tool_arguments')}${json}${p('end_tool_arguments')}${p('end_tool_request')}${p('end_tool_requests')}`;
    }
    case 'solar-open': {
      // Solar Open 2's pairs cannot hold its tokens, nor keep a key's surrounding space: Solar Open's JSON form then.
      const pairs = isPlainXmlName(name) && entries.every(([k, v]) => k !== '' && k.trim() === k && !k.includes('<|') && !(typeof v === 'string' && holdsAny(v, SOLAR_TOKENS)));
      if (pairs) return `<|tool_call:start|>${name}\n${entries.map(([k, v]) => `<|tool_arg:start|>${k}<|tool_arg:value|>${xmlText(v)}<|tool_arg:end|>\n`).join('')}<|tool_call:end|>`;
      if (name.includes('<') || name.trim() !== name || name === '') return hermesFallback(name, args);
      return `<|tool_call:begin|>${solarId(call.id)}<|tool_call:name|>${name}<|tool_call:args|>${jsonText(args)}<|tool_call:end|>`;
    }
    default: {
      const unknown: never = format;
      throw new Error(`unknown format ${String(unknown)}`);
    }
  }
}
