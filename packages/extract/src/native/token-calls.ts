import { isRecord, jsonExtent, skipSpace, tryJson } from './json-extent.ts';
import { Finder } from './native-call.ts';
import type { NativeCall, NativeContext } from './native-call.ts';
import { parseXmlCalls, STEP_XML } from './xml-calls.ts';

const BAR = '\uff5c';
/** DeepSeek writes `▁` where a space would be; distilled models write `_`, a space or `\_`. */
const DS_SEPARATORS = ['\u2581', '_', ' ', '\\_'];

/**
 * Matches a DeepSeek special token `<｜word▁word｜>` at `i`, accepting the separator
 * variants; returns the index past it or -1.
 */
export function deepseekToken(s: string, i: number, words: readonly string[]): number {
  if (!s.startsWith(`<${BAR}`, i)) return -1;
  let j = i + 2;
  for (let w = 0; w < words.length; w++) {
    const word = words[w] ?? '';
    if (w > 0) {
      const separator = DS_SEPARATORS.find((sep) => s.startsWith(sep, j));
      if (separator === undefined) return -1;
      j += separator.length;
    }
    if (!s.startsWith(word, j)) return -1;
    j += word.length;
  }
  return s.startsWith(`${BAR}>`, j) ? j + 2 : -1;
}

/** Index of the next DeepSeek token `words` at or after `from`, with its end. */
function findDeepseekToken(s: string, from: number, to: number, words: readonly string[]): { at: number; end: number } | undefined {
  let i = from;
  while (i < to) {
    const at = s.indexOf(`<${BAR}`, i);
    if (at < 0 || at >= to) return undefined;
    const end = deepseekToken(s, at, words);
    if (end >= 0 && end <= to) return { at, end };
    i = at + 1;
  }
  return undefined;
}

/**
 * `findDeepseekToken` that remembers its last answer, so a parser asking for the same token
 * from many places (a block of call openers without a close) stays linear.
 */
class DeepseekFinder {
  private last: { at: number; end: number } | undefined;
  private searchedFrom = -1;
  private readonly s: string;
  private readonly to: number;
  private readonly words: readonly string[];

  constructor(s: string, to: number, words: readonly string[]) {
    this.s = s;
    this.to = to;
    this.words = words;
  }

  next(from: number): { at: number; end: number } | undefined {
    if (this.searchedFrom >= 0 && from >= this.searchedFrom && (this.last === undefined || this.last.at >= from)) return this.last;
    this.searchedFrom = from;
    this.last = findDeepseekToken(this.s, from, this.to, this.words);
    return this.last;
  }
}

function parseJsonArguments(text: string): Record<string, unknown> | undefined {
  // Only an object can be arguments: skip the (costly) failed parse of anything else.
  if (text.charCodeAt(skipSpace(text, 0)) !== 0x7b) return undefined;
  const parsed = tryJson(text);
  return parsed !== undefined && isRecord(parsed.value) ? parsed.value : undefined;
}

/**
 * DeepSeek R1/V3 and V3.1 calls inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>`
 * (`text[from, to)`): `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` + a fenced JSON
 * block (R1, V3), or `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>JSON` (V3.1), each closed by
 * `<｜tool▁call▁end｜>`. StepFun Step-3 writes a `<steptml:invoke>` element in the call instead
 * of JSON (after `function<｜tool▁sep｜>NAME`, or right after the call token).
 */
export function parseDeepseekCalls(text: string, from: number, to: number, context: NativeContext): NativeCall[] {
  const calls: NativeCall[] = [];
  const begins = new DeepseekFinder(text, to, ['tool', 'call', 'begin']);
  const seps = new DeepseekFinder(text, to, ['tool', 'sep']);
  const callEnds = new DeepseekFinder(text, to, ['tool', 'call', 'end']);
  let pos = from;
  while (pos < to) {
    // R1 distills may write `function<｜tool▁sep｜>` with no call opener (llama.cpp reads it),
    // for any call of the block; only that R1 shape, so V3.1's `NAME<｜tool▁sep｜>` still needs one.
    let callStart = bareFunctionAt(text, pos, to);
    if (callStart < 0) {
      const begin = begins.next(pos);
      if (begin === undefined) break;
      callStart = begin.end;
    }
    const callEnd = callEnds.next(callStart);
    const step = stepInvokeAt(text, callStart, to);
    if (step >= 0) {
      const regionEnd = callEnd === undefined ? to : callEnd.at;
      const invoked = parseXmlCalls(text, step, regionEnd, STEP_XML, context);
      const end = callEnd === undefined ? regionEnd : callEnd.end;
      invoked.forEach((call, k) => calls.push(k === invoked.length - 1 ? { ...call, end } : call));
      pos = end;
      continue;
    }
    const sep = seps.next(callStart);
    if (sep === undefined) break;
    const head = text.slice(callStart, sep.at).trim();
    let name: string;
    let argsStart: number;
    if (head === 'function' || head === '') {
      // R1 / V3: the name runs to the end of the line, then a ```json fence.
      let lineEnd = text.indexOf('\n', sep.end);
      if (lineEnd < 0 || lineEnd > to) lineEnd = to;
      name = text.slice(sep.end, lineEnd).trim();
      argsStart = skipSpace(text, lineEnd, to);
      if (text.startsWith('```', argsStart)) {
        const fenceLine = text.indexOf('\n', argsStart);
        argsStart = fenceLine < 0 || fenceLine > to ? to : fenceLine + 1;
      }
    } else {
      name = head;
      argsStart = sep.end;
    }
    const argsEnd = jsonExtent(text, argsStart, to);
    if (argsEnd < 0) break;
    // The end token follows the arguments (after the closing fence in R1/V3).
    let after = skipSpace(text, argsEnd, to);
    if (text.startsWith('```', after)) after = skipSpace(text, after + 3, to);
    const end = deepseekToken(text, after, ['tool', 'call', 'end']);
    const closed = end >= 0 && end <= to ? end : argsEnd;
    calls.push({ name, args: parseJsonArguments(text.slice(argsStart, argsEnd)), end: closed });
    pos = closed;
  }
  return calls;
}

/** Where `function` starts when `text` at `from` (after space) is `function<｜tool▁sep｜>` (R1 without a call opener); -1 otherwise. */
function bareFunctionAt(text: string, from: number, to: number): number {
  const at = skipSpace(text, from, to);
  if (!text.startsWith('function', at)) return -1;
  const end = deepseekToken(text, skipSpace(text, at + 'function'.length, to), ['tool', 'sep']);
  return end >= 0 && end <= to ? at : -1;
}

/**
 * Where Step-3's `<steptml:invoke` starts when it opens the call: right after the call token,
 * or after `function<｜tool▁sep｜>` (and a name line), space between; -1 otherwise. Anywhere
 * else (inside a JSON string of DeepSeek arguments) it is the arguments' text.
 */
function stepInvokeAt(text: string, callStart: number, to: number): number {
  let at = skipSpace(text, callStart, to);
  if (text.startsWith(STEP_XML.invoke, at)) return at;
  if (!text.startsWith('function', at)) return -1;
  const sepEnd = deepseekToken(text, skipSpace(text, at + 'function'.length, to), ['tool', 'sep']);
  if (sepEnd < 0 || sepEnd > to) return -1;
  at = skipSpace(text, sepEnd, to);
  if (text.startsWith(STEP_XML.invoke, at)) return at;
  // `function<｜tool▁sep｜>NAME` then the invoke on the next line.
  const lineEnd = text.indexOf('\n', at);
  if (lineEnd < 0 || lineEnd >= to) return -1;
  at = skipSpace(text, lineEnd, to);
  return text.startsWith(STEP_XML.invoke, at) ? at : -1;
}

/** The tool name in a Kimi call id: what lies between `functions.` and the last `:` (`functions.a.b:0` → `a.b`). */
export function kimiName(id: string): string {
  const name = id.startsWith('functions.') ? id.slice('functions.'.length) : id;
  const colon = name.lastIndexOf(':');
  return colon > 0 ? name.slice(0, colon) : name;
}

/**
 * Kimi K2 calls inside a tool-call section (`text[from, to)`):
 * `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>JSON<|tool_call_end|>`.
 * The whole `functions.NAME:IDX` is the call's id; the name is what lies between
 * `functions.` and the last `:` (a dotted name stays dotted).
 */
export function parseKimiCalls(text: string, from: number, to: number): NativeCall[] {
  const calls: NativeCall[] = [];
  const begins = new Finder(text, '<|tool_call_begin|>', to);
  // Arguments that do not close before the next call are dropped, and the next call read
  // (vLLM's case of a broken call before a good one). Arguments whose string holds the token
  // are read past it (to the section's end): a read that gives an object is taken, and the
  // position jumps past it, so each character is paid once; failed reads are charged against
  // a budget the size of the section, which keeps the reading linear.
  let budget = to - from;
  let pos = from;
  while (pos < to) {
    const begin = begins.next(pos);
    if (begin < 0) break;
    const idStart = begin + '<|tool_call_begin|>'.length;
    const argBegin = text.indexOf('<|tool_call_argument_begin|>', idStart);
    if (argBegin < 0 || argBegin >= to || argBegin - idStart > 300) break;
    const id = text.slice(idStart, argBegin).trim();
    const name = kimiName(id);
    const argsStart = argBegin + '<|tool_call_argument_begin|>'.length;
    const next = begins.next(argsStart);
    let argsEnd = jsonExtent(text, argsStart, next < 0 ? to : next);
    let args = argsEnd < 0 ? undefined : parseJsonArguments(text.slice(argsStart, argsEnd));
    if (argsEnd < 0 && next >= 0 && budget > 0) {
      const unbounded = jsonExtent(text, argsStart, to);
      const read = unbounded < 0 ? undefined : parseJsonArguments(text.slice(argsStart, unbounded));
      if (read === undefined) {
        budget -= (unbounded < 0 ? to : unbounded) - argsStart;
      } else {
        argsEnd = unbounded;
        args = read;
      }
    }
    if (argsEnd < 0) {
      if (next < 0) break;
      pos = next;
      continue;
    }
    const endAt = skipSpace(text, argsEnd, to);
    const callEnd = text.startsWith('<|tool_call_end|>', endAt) ? endAt + '<|tool_call_end|>'.length : argsEnd;
    const call: NativeCall = { name, args, end: callEnd };
    if (id !== name) call.id = id;
    calls.push(call);
    pos = callEnd;
  }
  return calls;
}

/** Apertus: `[{"NAME": {args}}, …]` between `<|tools_prefix|>` and `<|tools_suffix|>` (`text[from, to)`). */
export function parseApertusCalls(text: string, from: number, to: number): NativeCall[] {
  const parsed = tryJson(text.slice(from, to));
  if (parsed === undefined) return [];
  const items = Array.isArray(parsed.value) ? (parsed.value as unknown[]) : [parsed.value];
  const calls: NativeCall[] = [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    const keys = Object.keys(item);
    const name = keys[0];
    if (keys.length !== 1 || name === undefined) continue;
    const args = item[name];
    calls.push({ name, args: isRecord(args) ? args : args === null ? {} : undefined, end: to });
  }
  // One span for the whole list: the last call carries the block's text.
  return calls;
}
