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
 * the same call (XML formats give strings back unless the tool's schema types them).
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
      return `<tool_call>\n<function=${name}>\n${entries.map(([k, v]) => `<parameter=${k}>\n${xmlValue(v)}\n</parameter>\n`).join('')}</function>\n</tool_call>`;
    case 'seed-oss':
      return `<seed:tool_call>\n<function=${name}>\n${entries.map(([k, v]) => `<parameter=${k}>${xmlValue(v)}</parameter>\n`).join('')}</function>\n</seed:tool_call>`;
    case 'minimax-m2':
      return `<minimax:tool_call>\n<invoke name="${name}">\n${entries.map(([k, v]) => `<parameter name="${k}">${xmlValue(v)}</parameter>\n`).join('')}</invoke>\n</minimax:tool_call>`;
    case 'minimax-m3':
      return `${M3}<tool_call>\n${M3}<invoke name="${name}">${m3Value(args)}${M3}</invoke>\n${M3}</tool_call>`;
    case 'glm':
      return `<tool_call>${name}\n${entries.map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${xmlValue(v)}</arg_value>\n`).join('')}</tool_call>`;
    case 'deepseek':
      return `${DS('tool calls begin')}${DS('tool call begin')}${name}${DS('tool sep')}${json}${DS('tool call end')}${DS('tool calls end')}`;
    case 'deepseek-dsml':
      return `<${DSML}function_calls>\n<${DSML}invoke name="${name}">\n${entries
        .map(([k, v]) => `<${DSML}parameter name="${k}" string="${typeof v === 'string' ? 'true' : 'false'}">${xmlValue(v)}</${DSML}parameter>\n`)
        .join('')}</${DSML}invoke>\n</${DSML}function_calls>`;
    case 'kimi-k2':
      return `<|tool_calls_section_begin|><|tool_call_begin|>${kimiId(call)}<|tool_call_argument_begin|>${json}<|tool_call_end|><|tool_calls_section_end|>`;
    case 'kimi-k3':
      return `<|open|>tools<|sep|><|open|>call tool="${xtmlAttribute(name)}" index="1"<|sep|>${entries
        .map(([k, v]) => `<|open|>argument key="${xtmlAttribute(k)}" type="${xtmlType(v)}"<|sep|>${xmlValue(v)}<|close|>argument<|sep|>`)
        .join('')}<|close|>call<|sep|><|close|>tools<|sep|>`;
    case 'gemma4':
      return `<|tool_call>call:${name}${gemmaValue(args)}<tool_call|>`;
    case 'functiongemma':
      return `<start_function_call>call:${name}${gemmaValue(args, '<escape>')}<end_function_call>`;
    case 'harmony':
      return `<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${json}<|call|>`;
    case 'mistral':
      return `[TOOL_CALLS]${name}[ARGS]${json}`;
    case 'functionary':
      return `<function=${name}>${json}</function>`;
    case 'apertus':
      return `<|tools_prefix|>[${JSON.stringify({ [name]: args })}]<|tools_suffix|>`;
    case 'minicpm5':
      return `<function name="${name}">${entries.map(([k, v]) => `<param name="${k}">${xmlValue(v)}</param>`).join('')}</function>`;
    case 'plamo3': {
      const p = (word: string) => `<|plamo:${word}:plamo|>`;
      return `${p('begin_tool_requests')}${p('begin_tool_request')}${p('begin_tool_name')}${name}${p('end_tool_name')}${p('begin_tool_arguments')}${json}${p('end_tool_arguments')}${p('end_tool_request')}${p('end_tool_requests')}`;
    }
    case 'solar-open':
      return `<|tool_call:start|>${name}\n${entries.map(([k, v]) => `<|tool_arg:start|>${k}<|tool_arg:value|>${xmlValue(v)}<|tool_arg:end|>\n`).join('')}<|tool_call:end|>`;
    default: {
      const unknown: never = format;
      throw new Error(`unknown format ${String(unknown)}`);
    }
  }
}
