import { generateId } from '../generate-id.ts';
import type { ToolCall } from '../types/tool-call.ts';
import type { Warning } from '../types/warning.ts';

const TAG_OPEN = '<tool_call>';
const TAG_CLOSE = '</tool_call>';

/**
 * Whether an answer's text so far may still turn out to be one tool call written as text:
 * `{"name": …, "arguments": …}`, bare or in a `<tool_call>` tag. Models served with native
 * tools whose call the server's parser misses write exactly that and leave the tool calls
 * empty (qwen2.5-coder on Ollama, ollama/ollama#12174; vLLM without a tool parser). A
 * provider holds such text back until it knows.
 */
export function mayBeTextCall(text: string): boolean {
  return textCallOpening(text) !== 'text';
}

/**
 * How long text may stay undecided (whitespace, the opening tag, a short first key) before
 * it counts as text: a call written as text opens within a few characters.
 */
const UNDECIDED_CHARS = 4096;

/**
 * What the opening of an answer's text says, for a provider that holds it back while it may
 * be a call written as text (see `mayBeTextCall`): `'text'` (it is not one: release it),
 * `'call'` (it opens as one, with a call's first key: only the end of the answer decides, so
 * hold it without asking again: asking on every delta would cost the held length each time),
 * or `'undecided'` (ask again with more text). Reads at most the first 4 KiB, whatever the
 * text's length.
 */
export function textCallOpening(text: string): 'text' | 'undecided' | 'call' {
  const long = text.length > UNDECIDED_CHARS;
  let start = (long ? text.slice(0, UNDECIDED_CHARS) : text).trimStart();
  if (start.startsWith(TAG_OPEN)) start = start.slice(TAG_OPEN.length).trimStart();
  else if (start.length <= TAG_OPEN.length && TAG_OPEN.startsWith(start)) return long ? 'text' : 'undecided';
  if (start === '') return long ? 'text' : 'undecided';
  if (!start.startsWith('{')) return 'text';
  const opening = callObjectOpening(start);
  return opening === 'undecided' && long ? 'text' : opening;
}

/** The keys a call object written as text may open with. */
const CALL_KEYS = new Set(['name', 'arguments', 'parameters']);

/**
 * Whether `{…` may still be a call object: its first key, once complete, is one a call has.
 * An answer in JSON (`{"answer": …}`) is released as soon as its first key is known, rather
 * than held to its end. Reads at most a short key, whatever the text's length.
 */
function callObjectOpening(text: string): 'text' | 'undecided' | 'call' {
  let i = 1;
  while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  if (i === text.length) return 'undecided';
  if (text[i] !== '"') return 'text';
  const close = text.indexOf('"', i + 1);
  if (close === -1) return text.length - i <= LONGEST_CALL_KEY + 1 ? 'undecided' : 'text';
  return CALL_KEYS.has(text.slice(i + 1, close)) ? 'call' : 'text';
}

const LONGEST_CALL_KEY = 'parameters'.length;

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * The call a whole answer's text is, when it is nothing but one call to one of `offered`
 * (bare JSON, or inside one `<tool_call>` tag; `arguments` or `parameters`, as an object
 * or a JSON string); `undefined` otherwise, and the text stays text.
 *
 * @example readTextCall('{"name":"get_weather","arguments":{"city":"Paris"}}', [{ name: 'get_weather' }])
 */
export function readTextCall(text: string, offered: readonly { name: string }[]): ToolCall | undefined {
  if (offered.length === 0) return undefined;
  let body = text.trim();
  if (body.startsWith(TAG_OPEN)) {
    body = body.slice(TAG_OPEN.length).trim();
    if (body.endsWith(TAG_CLOSE)) body = body.slice(0, -TAG_CLOSE.length).trim();
  }
  if (!body.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  const name = value['name'];
  if (typeof name !== 'string' || !offered.some((tool) => tool.name === name)) return undefined;
  let args: unknown = value['arguments'] ?? value['parameters'] ?? {};
  if (typeof args === 'string') {
    try {
      args = args.trim() === '' ? {} : JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  if (!isPlainObject(args)) return undefined;
  return { id: generateId('call_'), name, arguments: args };
}

/** The warning a provider gives when it read a call written as text. */
export function textCallWarning(name: string, server: string): Warning {
  return {
    type: 'other',
    message: `The model wrote its call to "${name}" as text instead of a native tool call (${server} did not parse it); it was read as a tool call.`,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
