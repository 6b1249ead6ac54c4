import { ALL_FORMATS } from '../extract-options.ts';
import type { ToolCallFormat } from '../extract-options.ts';
import { isIdentifierUnit, isNameRunUnit, MAX_NAME_LENGTH } from '../identifier.ts';
import { isJsonSpace, skipSpace } from './json-extent.ts';
import { deepseekToken, kimiName } from './token-calls.ts';

/** How a closed block is read. */
export type BlockBody =
  | 'qwen-xml'
  | 'seed-xml'
  | 'minimax-xml'
  | 'dsml'
  | 'dsml-spaced'
  | 'gcml'
  | 'glm'
  | 'hunyuan'
  | 'iquest'
  | 'ifm'
  | 'deepseek'
  | 'kimi'
  | 'gemma'
  | 'functiongemma'
  | 'apertus'
  | 'solar'
  | 'solar2'
  | 'xtml'
  | 'minimax-m3'
  | 'plamo'
  | 'minicpm'
  | 'hermes';

/** What starts at a `<`, `[` or `>` in model text. */
export type OpenerMatch =
  /**
   * A block read whole once one of `ends` closes it; `trailer`, a closing tag the model may
   * still write after it (only space between), is then part of the block too. `nests`: a
   * whole `<tool_call><function=…` quoted in a value (see `quotedOpens`) has its own closing
   * tag, which does not close the block.
   */
  | { type: 'block'; body: BlockBody; length: number; ends: readonly string[]; trailer?: string; nests?: boolean }
  /**
   * A header before a JSON object: `[TOOL_CALLS]NAME[ARGS]{`, `<function=NAME>{`, `>>>NAME\n{`,
   * harmony, a Kimi call without its section. `stopsAtAngle`: the object ends, broken, at a `<`
   * outside its strings (a Kimi call's arguments that never close end at the next token).
   * `endToken`: a token the model may write after the object (space between), part of the call.
   */
  | { type: 'marker'; name: string; id?: string; length: number; stopsAtAngle?: boolean; endToken?: string }
  /** A reasoning block, ended by one of `closers`, or before one of `interrupts` (which is then read as usual). */
  | { type: 'reasoning'; length: number; closers: readonly string[]; interrupts: readonly string[] }
  /** A known token that opens no call (`<tool_call>` before JSON, a harmony `final` header): plain text. */
  | { type: 'text'; length: number };

/** `'partial'`: the text ends before the opener can be decided (streaming holds it back). */
export type OpenerResult = OpenerMatch | 'partial' | undefined;

/** Longest header read before deciding; a longer one is not an opener (batch and streaming agree). */
const MAX_HEADER = 400;

/** A Kimi K2 call, which real output also writes without its section (and without its end token). */
const KIMI_CALL = '<|tool_call_begin|>';
const KIMI_ARGUMENTS = '<|tool_call_argument_begin|>';
const KIMI_CALL_END = '<|tool_call_end|>';

const REASONING: readonly (readonly [string, readonly string[]])[] = [
  ['<think>', ['</think>']],
  ['<seed:think>', ['</seed:think>']],
  ['<|channel>thought', ['<channel|>']],
  ['<|START_THINKING|>', ['<|END_THINKING|>']],
  ['<|inner_prefix|>', ['<|inner_suffix|>']],
  ['[THINK]', ['[/THINK]']],
];

/**
 * Kimi K2.5 may open its tool section (or, without the section, a call) before closing
 * `<think>` reasoning: that ends reasoning too.
 */
export const REASONING_INTERRUPTS: readonly string[] = ['<|tool_calls_section_begin|>', '<|tool_call_section_begin|>', KIMI_CALL];
const NO_INTERRUPTS: readonly string[] = [];

/** The interrupts of reasoning closed by `closers`: Kimi's tokens inside `<think>`, only when Kimi K2 is read at all. */
export function reasoningInterrupts(closers: readonly string[], context: OpenerContext): readonly string[] {
  return closers.includes('</think>') && context.has('kimi-k2') ? REASONING_INTERRUPTS : NO_INTERRUPTS;
}
const HARMONY_CLOSERS: readonly string[] = ['<|end|>'];
/** A harmony `analysis` message the model left without `<|end|>` ends where the next message's header begins (llama.cpp's GPT-OSS cases). */
const HARMONY_INTERRUPTS: readonly string[] = ['<|start|>', '<|channel|>'];

const DEEPSEEK_ENDS = [
  '<\uff5ctool\u2581calls\u2581end\uff5c>',
  '<\uff5ctool_calls_end\uff5c>',
  '<\uff5ctool calls end\uff5c>',
  '<\uff5ctool\\_calls\\_end\uff5c>',
];

interface SimpleBlock {
  token: string;
  format: ToolCallFormat;
  body: BlockBody;
  ends: readonly string[];
}

const SIMPLE_BLOCKS: readonly SimpleBlock[] = [
  { token: '<seed:tool_call>', format: 'seed-oss', body: 'seed-xml', ends: ['</seed:tool_call>'] },
  { token: '<minimax:tool_call>', format: 'minimax-m2', body: 'minimax-xml', ends: ['</minimax:tool_call>'] },
  // MiniMax M3 writes `]<]minimax[>[` before each tag: the opener starts at its `<` (the `]` stays text).
  { token: '<]minimax[>[<tool_call>', format: 'minimax-m3', body: 'minimax-m3', ends: ['<]minimax[>[</tool_call>'] },
  { token: '<\uff5cDSML\uff5cfunction_calls>', format: 'deepseek-dsml', body: 'dsml', ends: ['</\uff5cDSML\uff5cfunction_calls>'] },
  { token: '<\uff5cDSML\uff5ctool_calls>', format: 'deepseek-dsml', body: 'dsml', ends: ['</\uff5cDSML\uff5ctool_calls>'] },
  // DeepSeek V4.1 (a space after the marker, `calls`) and GigaChat 3.5 (`GCML`): DSML spellings.
  { token: '<\uff5cDSML\uff5c calls>', format: 'deepseek-dsml', body: 'dsml-spaced', ends: ['</\uff5cDSML\uff5c calls>'] },
  { token: '<\uff5cGCML\uff5ctool_calls>', format: 'deepseek-dsml', body: 'gcml', ends: ['</\uff5cGCML\uff5ctool_calls>'] },
  { token: '<iquestcoder_tool_call>', format: 'glm', body: 'iquest', ends: ['</iquestcoder_tool_call>'] },
  { token: '<|tool_calls_section_begin|>', format: 'kimi-k2', body: 'kimi', ends: ['<|tool_calls_section_end|>', '<|tool_call_section_end|>'] },
  { token: '<|tool_call_section_begin|>', format: 'kimi-k2', body: 'kimi', ends: ['<|tool_calls_section_end|>', '<|tool_call_section_end|>'] },
  { token: '<|tool_call>', format: 'gemma4', body: 'gemma', ends: ['<tool_call|>', '<turn|>'] },
  { token: '<start_function_call>', format: 'functiongemma', body: 'functiongemma', ends: ['<end_function_call>'] },
  { token: '<|tools_prefix|>', format: 'apertus', body: 'apertus', ends: ['<|tools_suffix|>'] },
  { token: '<|plamo:begin_tool_requests:plamo|>', format: 'plamo3', body: 'plamo', ends: ['<|plamo:end_tool_requests:plamo|>'] },
  { token: '<|open|>tools<|sep|>', format: 'kimi-k3', body: 'xtml', ends: ['<|close|>tools<|sep|>'] },
  { token: '<|tool_call:start|>', format: 'solar-open', body: 'solar2', ends: ['<|tool_call:end|>'] },
  { token: '<|tool_call:begin|>', format: 'solar-open', body: 'solar', ends: ['<|tool_call:end|>'] },
];

/** What the opener reader needs from the scanner's options. */
export interface OpenerContext {
  has(format: ToolCallFormat): boolean;
  /** Whether a name may be called (the allow-list, or any valid name). */
  accepts(name: string): boolean;
  /**
   * The recipient name when all the text before `s[i]` (what went out before `s` included) is
   * a harmony role-header recipient, ` to=functions.NAME`; undefined otherwise.
   */
  leadingRecipient?(s: string, i: number): string | undefined;
  /**
   * Whether the text before `s[i]` (what went out before `s` included) leaves `s[i]` where
   * Hunyuan writes its reasoning tag: the answer's start, a line's start, or right after a
   * `</think…>` (blank space between). Without it, anywhere.
   */
  reasoningLineStart?(s: string, i: number): boolean;
}

/** Whether `s` from `i` is a proper prefix of `token` (the text ends inside it). */
function isPrefixAtEnd(s: string, i: number, token: string): boolean {
  const rest = s.length - i;
  if (rest >= token.length) return false;
  // Compared in place: this runs for every held-back opener on every chunk of a token stream.
  for (let k = 0; k < rest; k++) if (s.charCodeAt(i + k) !== token.charCodeAt(k)) return false;
  return true;
}

/**
 * End of a name run starting at `from` (or `from` when there is none). Runs joined by `::`
 * are one name (`ns::tool`, see `isNamespacedName`); `s.length` when the text ends inside
 * such a join (`ns:`), which the next characters decide.
 */
function nameRunEnd(s: string, from: number): number {
  let j = from;
  while (true) {
    while (j < s.length && j - from <= MAX_NAME_LENGTH && isNameRunUnit(s.charCodeAt(j))) j++;
    if (j === from || j >= s.length || j - from > MAX_NAME_LENGTH || s.charCodeAt(j) !== 0x3a) return j;
    if (j + 1 >= s.length) return s.length;
    if (s.charCodeAt(j + 1) !== 0x3a) return j;
    if (j + 2 >= s.length) return s.length;
    if (!isNameRunUnit(s.charCodeAt(j + 2))) return j;
    j += 2;
  }
}

/** Result when the text ran out at `at`: wait for more unless the header is already too long. */
function outOfText(i: number, at: number): OpenerResult {
  return at - i >= MAX_HEADER ? undefined : 'partial';
}

/**
 * Reads the opener at `s[i]` (a `<`, `[` or `>`). Pure: decides on the text it is given,
 * returning `'partial'` when that text ends before a decision (never when `final`).
 */
export function matchOpener(s: string, i: number, context: OpenerContext, final: boolean): OpenerResult {
  const result = matchAt(s, i, context);
  return result === 'partial' && final ? undefined : result;
}

function matchAt(s: string, i: number, context: OpenerContext): OpenerResult {
  const c = s.charCodeAt(i);
  // The first two characters rule out most tokens with a comparison each (this runs again on
  // every chunk while an opener is held back); `d` is -1 when the text ends after the first.
  const d = i + 1 < s.length ? s.charCodeAt(i + 1) : -1;
  // Every token opening with `[` goes on with `T` (`[THINK]`, `[TOOL_CALLS]`): a Python-style
  // list of calls (`[f(…)]`, most outputs of some models) is decided at once.
  if (c === 0x5b && d !== 0x54 && d >= 0) return undefined;
  let partial = false;
  for (const [open, closers] of REASONING) {
    if (open.charCodeAt(0) !== c || (d >= 0 && open.charCodeAt(1) !== d)) continue;
    if (s.startsWith(open, i)) return { type: 'reasoning', length: open.length, closers, interrupts: reasoningInterrupts(closers, context) };
    if (isPrefixAtEnd(s, i, open)) partial = true;
  }
  if (d === 0x74 && c === 0x3c && context.has('glm') && s.startsWith('<think:', i) && (context.reasoningLineStart?.(s, i) ?? true)) {
    // Hunyuan HY v4 writes its checkpoint's tag suffix on reasoning too: `<think:SUFFIX>…</think:SUFFIX>`
    // (read with Hunyuan's calls, the `glm` format, and only where Hunyuan writes it: prose may
    // write `<think:deep>` mid-sentence, and never closes it).
    const end = suffixEnd(s, i + '<think'.length);
    if (end === s.length) return 'partial';
    if (end >= 0) return { type: 'reasoning', length: end + 1 - i, closers: [`</think${s.slice(i + '<think'.length, end)}>`], interrupts: NO_INTERRUPTS };
  }
  if (c === 0x3c) {
    const tagged = matchAngle(s, i, d, context);
    if (tagged !== undefined) return tagged;
  } else if (c === 0x5b) {
    const mistral = matchMistral(s, i, context);
    if (mistral !== undefined) return mistral;
  } else if (c === 0x3e) {
    const functionary = matchFunctionaryV32(s, i, context);
    if (functionary !== undefined) return functionary;
  }
  return partial ? 'partial' : undefined;
}

/** `SIMPLE_BLOCKS` by the code of their second character: a `<` in prose is compared with the few that may follow it. */
const BLOCKS_BY_SECOND = new Map<number, SimpleBlock[]>();
for (const block of SIMPLE_BLOCKS) {
  const second = block.token.charCodeAt(1);
  const list = BLOCKS_BY_SECOND.get(second);
  if (list === undefined) BLOCKS_BY_SECOND.set(second, [block]);
  else list.push(block);
}
const ASCII_BLOCKS: readonly (readonly SimpleBlock[] | undefined)[] = Array.from({ length: 0x80 }, (_, c) => BLOCKS_BY_SECOND.get(c));
/** Longer than every token `matchAngle` tests with `isPrefixAtEnd` outside `SIMPLE_BLOCKS`: farther from the end, none can be cut off. */
const NEAR_END = 24;

/** Whether the text from `i` (second character `d`, -1 when none) is a proper prefix of a token `matchAngle` reads outside `SIMPLE_BLOCKS`. */
function nearEndPrefix(s: string, i: number, d: number, context: OpenerContext): boolean {
  switch (d) {
    case -1:
      return true;
    case 0x74:
      return isPrefixAtEnd(s, i, '<tool_call>');
    case 0x66:
      return (
        isPrefixAtEnd(s, i, '<function=') ||
        (context.has('minicpm5') && isPrefixAtEnd(s, i, MINICPM)) ||
        (context.has('functionary') && isPrefixAtEnd(s, i, FUNCTION_NAME_TAG))
      );
    case 0x64:
      return context.has('minimax-m2') && isPrefixAtEnd(s, i, DOTS);
    case 0x69:
      return context.has('glm') && isPrefixAtEnd(s, i, IFM_CALL);
    case 0x7c:
      return (context.has('kimi-k2') && isPrefixAtEnd(s, i, KIMI_CALL)) || (context.has('harmony') && (isPrefixAtEnd(s, i, '<|channel|>') || isPrefixAtEnd(s, i, '<|start|>')));
    default:
      return false;
  }
}

function matchAngle(s: string, i: number, d: number, context: OpenerContext): OpenerResult {
  let partial = false;
  const blocks = d < 0 ? SIMPLE_BLOCKS : d < 0x80 ? ASCII_BLOCKS[d] : BLOCKS_BY_SECOND.get(d);
  if (blocks !== undefined) {
    for (const block of blocks) {
      if (!context.has(block.format)) continue;
      if (s.startsWith(block.token, i)) {
        if (block.body === 'functiongemma' || block.body === 'gemma') return afterCallToken(s, i, block);
        return { type: 'block', body: block.body, length: block.token.length, ends: block.ends };
      }
      if (isPrefixAtEnd(s, i, block.token)) partial = true;
    }
  }
  if (d === 0xff5c && context.has('deepseek') && s.startsWith('<\uff5c', i)) {
    const end = Math.max(deepseekToken(s, i, ['tool', 'calls', 'begin']), deepseekToken(s, i, ['tool', 'calls']));
    if (end >= 0) return { type: 'block', body: 'deepseek', length: end - i, ends: DEEPSEEK_ENDS };
    // The token is at most 30 characters: wait while the text ends inside one.
    if (s.length - i < 30 && s.indexOf('>', i) < 0) partial = true;
  } else if (context.has('deepseek') && s.length - i === 1) {
    partial = true;
  }
  switch (d) {
    case 0x74:
      if (s.startsWith('<tool_call', i)) {
        const next = s.charCodeAt(i + '<tool_call'.length);
        if (next === 0x3e) {
          const result = afterToolCallTag(s, i, context);
          if (result !== undefined) return result;
        } else if (context.has('glm') && (next === 0x3a || next === 0x73)) {
          const result = matchHunyuanSuffixed(s, i, context);
          if (result !== undefined) return result;
        }
      }
      break;
    case 0x64:
      if (context.has('minimax-m2') && s.startsWith(DOTS, i)) return afterTokens(s, i, i + DOTS.length, ['<invoke'], 'minimax-xml', [DOTS_END]);
      break;
    case 0x69:
      if (context.has('glm') && s.startsWith(IFM_CALL, i)) return afterPairCallTag(s, i, i + IFM_CALL.length, IFM_NEXT, context, 'ifm', [IFM_CALL_END]);
      break;
    case 0x66:
      if ((context.has('qwen3-xml') || context.has('functionary')) && s.startsWith('<function=', i)) return afterFunctionTag(s, i, context);
      if (s.startsWith(MINICPM, i)) {
        const named = afterFunctionName(s, i, context);
        if (named !== undefined) return named;
      }
      break;
    case 0x7c:
      if (context.has('kimi-k2') && s.startsWith(KIMI_CALL, i)) return kimiCall(s, i, context);
      if (context.has('harmony') && (s.startsWith('<|channel|>', i) || s.startsWith('<|start|>', i))) return harmonyHeader(s, i, context);
      break;
    default:
      break;
  }
  // A token cut off by the end of the text (a stream holds it back); only those going on with `d`.
  if (s.length - i < NEAR_END && nearEndPrefix(s, i, d, context)) partial = true;
  return partial ? 'partial' : undefined;
}

const DOTS = '<dots_function_call>';
const DOTS_END = '</dots_function_call>';
const IFM_CALL = '<ifm|tool_call>';
const IFM_CALL_END = '</ifm|tool_call>';
const IFM_NEXT: readonly string[] = ['<ifm|arg_key>', IFM_CALL_END];
/** Longest Hunyuan tag suffix read (`:opensource`, `:6124c78e`). */
const MAX_SUFFIX = 64;

/**
 * After an opener token that ends at `after` (opener at `i`), whitespace then one of `tokens`:
 * a block read as `body` up to one of `ends`; otherwise the token is text (dots' JSON body
 * is then read by the JSON scanner).
 */
function afterTokens(s: string, i: number, after: number, tokens: readonly string[], body: BlockBody, ends: readonly string[]): OpenerResult {
  const next = skipSpace(s, after);
  if (next >= s.length) return outOfText(i, next);
  if (next - i >= MAX_HEADER) return undefined;
  for (const token of tokens) if (s.startsWith(token, next)) return { type: 'block', body, length: after - i, ends };
  for (const token of tokens) if (isPrefixAtEnd(s, next, token)) return 'partial';
  return { type: 'text', length: after - i };
}

/**
 * After a call tag of a GLM-like format that ends at `after` (opener at `i`): a name, then
 * (after whitespace or a literal "\n") one of `next`. JSON after the tag is left to the
 * JSON scanner; anything else is text.
 */
function afterPairCallTag(s: string, i: number, after: number, next: readonly string[], context: OpenerContext, body: BlockBody, ends: readonly string[]): OpenerResult {
  const start = skipSpace(s, after);
  if (start >= s.length) return outOfText(i, start);
  if (start - i >= MAX_HEADER) return undefined;
  const text: OpenerMatch = { type: 'text', length: after - i };
  const c = s.charCodeAt(start);
  if (c === 0x3c || !isIdentifierUnit(c)) return text;
  const nameEnd = nameRunEnd(s, start);
  if (nameEnd >= s.length) return outOfText(i, nameEnd);
  let j = skipSpace(s, nameEnd);
  while (s.startsWith('\\n', j) && j - i < MAX_HEADER) j = skipSpace(s, j + 2);
  if (j >= s.length || (j === s.length - 1 && s.charCodeAt(j) === 0x5c)) return outOfText(i, j);
  if (j - i >= MAX_HEADER) return undefined;
  for (const token of next) if (s.startsWith(token, j)) return context.accepts(s.slice(start, nameEnd)) ? { type: 'block', body, length: after - i, ends } : text;
  for (const token of next) if (isPrefixAtEnd(s, j, token)) return 'partial';
  return text;
}

/** End of a Hunyuan tag suffix (`:SUFFIX>`) starting at `from`: the index of its `>`, -1 when none, `s.length` when the text ends first. */
function suffixEnd(s: string, from: number): number {
  if (from >= s.length) return s.length;
  if (s.charCodeAt(from) !== 0x3a) return -1;
  let j = from + 1;
  while (j < s.length && j - from <= MAX_SUFFIX) {
    const c = s.charCodeAt(j);
    if (c === 0x3e) return j > from + 1 ? j : -1;
    if (c <= 0x20 || c === 0x3c) return -1;
    j++;
  }
  return j >= s.length && j - from <= MAX_SUFFIX ? s.length : -1;
}

/**
 * Hunyuan HY v3/v4 with a checkpoint's tag suffix: `<tool_calls:SUFFIX>` (the wrapper, then
 * `<tool_call:SUFFIX>`) or `<tool_call:SUFFIX>NAME` then `<arg_key:SUFFIX>`, `<tool_sep:SUFFIX>`
 * or `</tool_call:SUFFIX>`. Read with the GLM body of the same suffix.
 */
function matchHunyuanSuffixed(s: string, i: number, context: OpenerContext): OpenerResult {
  const wrapper = s.startsWith('<tool_calls', i);
  if (!wrapper && isPrefixAtEnd(s, i, '<tool_calls')) return 'partial';
  const from = i + (wrapper ? '<tool_calls' : '<tool_call').length;
  const end = suffixEnd(s, from);
  if (end === s.length) return 'partial';
  if (end < 0) return undefined;
  const suffix = s.slice(from, end);
  if (wrapper) return afterTokens(s, i, end + 1, [`<tool_call${suffix}>`], 'hunyuan', [`</tool_calls${suffix}>`]);
  return afterPairCallTag(s, i, end + 1, [`<arg_key${suffix}>`, `<tool_sep${suffix}>`, `</tool_call${suffix}>`], context, 'hunyuan', [`</tool_call${suffix}>`]);
}

/** What may follow Gemma's call tokens (after space): the call, with the stray colon some outputs write. */
const GEMMA_CALL: readonly string[] = ['call:', ':call:'];

const GEMMA_CALL_TOKENS: readonly (readonly [string, ToolCallFormat])[] = [
  ['<start_function_call>', 'functiongemma'],
  ['<|tool_call>', 'gemma4'],
];

/**
 * FunctionGemma's `<start_function_call>` and Gemma 4's `<|tool_call>` open a call only when
 * `call:` follows (space between): prose that names the token ("it emits
 * <start_function_call> first") is text, and does not hold back the rest of the output as an
 * unclosed block.
 */
function afterCallToken(s: string, i: number, block: SimpleBlock): OpenerResult {
  const length = block.token.length;
  const after = skipSpace(s, i + length);
  if (after >= s.length) return outOfText(i, after);
  if (after - i >= MAX_HEADER) return { type: 'text', length };
  if (GEMMA_CALL.some((call) => s.startsWith(call, after))) return { type: 'block', body: block.body, length, ends: block.ends };
  if (GEMMA_CALL.some((call) => isPrefixAtEnd(s, after, call))) return 'partial';
  return { type: 'text', length };
}

/**
 * A Kimi call outside a section: `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>`
 * then the JSON arguments (read like a marker's; the id is the model's).
 */
function kimiCall(s: string, i: number, context: OpenerContext): OpenerResult {
  const idStart = i + KIMI_CALL.length;
  // Searched in a bounded window, as harmony's headers are.
  const found = s.slice(idStart, i + MAX_HEADER).indexOf(KIMI_ARGUMENTS);
  if (found < 0) return outOfText(i, s.length);
  const id = s.slice(idStart, idStart + found).trim();
  const name = kimiName(id);
  const body = skipSpace(s, idStart + found + KIMI_ARGUMENTS.length);
  if (body >= s.length) return outOfText(i, body);
  if (body - i >= MAX_HEADER || s.charCodeAt(body) !== 0x7b || id === '' || !context.accepts(name)) return undefined;
  // Valid arguments hold no `<` outside their strings: one there is the next token (`</think>`,
  // `<|tool_call_end|>`, the next call's), and the arguments, never closed, end before it.
  const marker: OpenerMatch = { type: 'marker', name, length: body - i, stopsAtAngle: true, endToken: KIMI_CALL_END };
  if (id !== name) marker.id = id;
  return marker;
}

/** The formats whose `renderToolCall` writes a call they cannot hold as Hermes JSON. */
const HERMES_FALLBACK_FORMATS: readonly ToolCallFormat[] = [
  'minimax-m3',
  'kimi-k3',
  'deepseek-dsml',
  'minicpm5',
  'solar-open',
  'qwen3-xml',
  'seed-oss',
  'minimax-m2',
  'glm',
  'gemma4',
  'functiongemma',
];

/**
 * Whether the formats looked for, JSON not among them, hold one whose `renderToolCall` writes
 * what it cannot hold as Hermes JSON: a `<tool_call>{…}</tool_call>` block is then read on its
 * own, so that a forced `format: 'minimax-m3'` reads Toolwire's own history back.
 */
function readsHermesFallback(context: OpenerContext): boolean {
  for (const format of HERMES_FALLBACK_FORMATS) if (context.has(format)) return true;
  return false;
}

/** `<tool_call>` then JSON (Hermes: read by the JSON scanner, or as a block, see `readsHermesFallback`), `<function=` (Qwen3 XML) or a name (GLM). */
function afterToolCallTag(s: string, i: number, context: OpenerContext): OpenerResult {
  const length = '<tool_call>'.length;
  const after = skipSpace(s, i + length);
  if (after >= s.length) return outOfText(i, after);
  if (after - i >= MAX_HEADER) return undefined;
  const c = s.charCodeAt(after);
  if (c === 0x7b && !context.has('json') && readsHermesFallback(context)) return { type: 'block', body: 'hermes', length, ends: ['</tool_call>'] };
  if (c === 0x7b || c === 0x5b) return { type: 'text', length };
  if (context.has('json')) {
    if (s.startsWith('function', after)) {
      const stepAudio = afterFunctionLine(s, i, after + 'function'.length, context);
      if (stepAudio !== undefined) return stepAudio;
    } else if (isPrefixAtEnd(s, after, 'function')) {
      return 'partial';
    }
  }
  if (context.has('qwen3-xml')) {
    if (s.startsWith('<function=', after)) return { type: 'block', body: 'qwen-xml', length, ends: ['</tool_call>'], nests: true };
    if (isPrefixAtEnd(s, after, '<function=')) return 'partial';
  }
  if (context.has('glm') && c !== 0x3c && isIdentifierUnit(c)) {
    // GLM: the name, then (after whitespace or a literal "\n") `<arg_key>` or `</tool_call>`.
    // Anything else (prose such as "<tool_call> tags are…") is text.
    const nameEnd = nameRunEnd(s, after);
    let next = skipSpace(s, nameEnd);
    // A "GLM 5.2" deployment leaves a stray `</arg_value>` after the name; the name still counts.
    if (s.startsWith('</arg_value>', next)) next = skipSpace(s, next + '</arg_value>'.length);
    else if (next < s.length && isPrefixAtEnd(s, next, '</arg_value>')) return outOfText(i, next);
    while (s.startsWith('\\n', next) && next - i < MAX_HEADER) next = skipSpace(s, next + 2);
    if (next >= s.length || (next === s.length - 1 && s.charCodeAt(next) === 0x5c)) return outOfText(i, next);
    if (next - i >= MAX_HEADER) return undefined;
    const name = s.slice(after, nameEnd);
    // Hunyuan HY v3 writes `<tool_sep>` after the name.
    if (s.startsWith('<arg_key>', next) || s.startsWith('</tool_call>', next) || s.startsWith('<tool_sep>', next)) {
      if (context.accepts(name)) return { type: 'block', body: 'glm', length, ends: ['</tool_call>'] };
    } else if (isPrefixAtEnd(s, next, '<arg_key>') || isPrefixAtEnd(s, next, '</tool_call>') || isPrefixAtEnd(s, next, '<tool_sep>')) {
      return 'partial';
    }
  }
  return { type: 'text', length };
}

/**
 * Step-Audio 2: `<tool_call>function` then, on the next line, NAME, then its JSON arguments
 * (`from` is just past `function`). Undefined when the text goes on otherwise (a GLM call named
 * `function…`).
 */
function afterFunctionLine(s: string, i: number, from: number, context: OpenerContext): OpenerResult {
  const nameStart = skipSpace(s, from);
  if (nameStart === from) return from >= s.length ? 'partial' : undefined;
  if (nameStart >= s.length) return outOfText(i, nameStart);
  const nameEnd = nameRunEnd(s, nameStart);
  if (nameEnd >= s.length) return outOfText(i, nameEnd);
  if (nameEnd === nameStart) return undefined;
  const brace = skipSpace(s, nameEnd);
  if (brace >= s.length) return outOfText(i, brace);
  if (brace - i >= MAX_HEADER || s.charCodeAt(brace) !== 0x7b) return undefined;
  const name = s.slice(nameStart, nameEnd);
  return context.accepts(name) ? { type: 'marker', name, length: brace - i } : { type: 'text', length: '<tool_call>'.length };
}

const MINICPM = '<function name=';

/** The first `>` after `s[i]` within `MAX_HEADER` characters, or -1. */
function headerEnd(s: string, i: number): number {
  const limit = Math.min(s.length, i + MAX_HEADER);
  for (let k = i + 1; k < limit; k++) if (s.charCodeAt(k) === 0x3e) return k;
  return -1;
}

/**
 * MiniCPM5: `<function name="NAME">` then whitespace and `<param name=` or `</function>`. The
 * header is decided at its `>` (a stream waits for that character alone).
 */
function afterMiniCpmTag(s: string, i: number, context: OpenerContext): OpenerResult {
  const gt = headerEnd(s, i);
  if (gt < 0) return s.length - i >= MAX_HEADER ? undefined : 'partial';
  let name = s.slice(i + MINICPM.length, gt).trim();
  const quote = name.charCodeAt(0);
  if ((quote === 0x22 || quote === 0x27) && name.length > 1 && name.charCodeAt(name.length - 1) === quote) name = name.slice(1, -1);
  if (name === '' || !context.accepts(name)) return undefined;
  return afterTokens(s, i, gt + 1, MINICPM_NEXT, 'minicpm', ['</function>']);
}

/** What opens a MiniCPM5 call's body: `<param` then space (not `<parameter`, `<params>`), or the call's end. */
const MINICPM_NEXT: readonly string[] = ['<param ', '<param\t', '<param\n', '<param\r', '</function>'];

/** `<function=NAME>` then `{` (Functionary v3.1) or `<parameter=`/`</function>` (Qwen3 XML without the wrapper). */
function afterFunctionTag(s: string, i: number, context: OpenerContext): OpenerResult {
  const nameStart = i + '<function='.length;
  const nameEnd = nameRunEnd(s, nameStart);
  if (nameEnd >= s.length) return outOfText(i, nameEnd);
  if (s.charCodeAt(nameEnd) !== 0x3e || nameEnd === nameStart) return undefined;
  const name = s.slice(nameStart, nameEnd);
  if (!context.accepts(name)) return undefined;
  const after = skipSpace(s, nameEnd + 1);
  if (after >= s.length) return outOfText(i, after);
  if (after - i >= MAX_HEADER) return undefined;
  if (context.has('functionary') && s.charCodeAt(after) === 0x7b) return { type: 'marker', name, length: after - i };
  if (context.has('qwen3-xml')) {
    if (s.startsWith('<parameter=', after) || s.startsWith('</function>', after)) {
      // Models that skip the opening `<tool_call>` often still write the closing one.
      return { type: 'block', body: 'qwen-xml', length: 0, ends: ['</function>'], trailer: '</tool_call>' };
    }
    if (isPrefixAtEnd(s, after, '<parameter=') || isPrefixAtEnd(s, after, '</function>')) return 'partial';
  }
  return undefined;
}

/**
 * Hermes 2 Pro's spelling of Functionary v3.1's tag (llama.cpp reads it):
 * `<function name="NAME">{…}</function>`, the name also in single quotes, space allowed before `>`.
 */
const FUNCTION_NAME_TAG = '<function name=';

/** Where the `>` of a `<function name="NAME"` tag whose name ends at `nameEnd` stands, when its quote `quote` closes it there; -1 when not; `s.length` when the text ends first. */
function functionNameTagEnd(s: string, quote: number, nameEnd: number): number {
  if (nameEnd >= s.length) return s.length;
  if (s.charCodeAt(nameEnd) !== quote) return -1;
  const gt = skipSpace(s, nameEnd + 1);
  if (gt >= s.length) return s.length;
  return s.charCodeAt(gt) === 0x3e ? gt : -1;
}

/** `<function name="NAME">` (or `'NAME'`, or a space before `>`) then `{`. */
function afterFunctionNameTag(s: string, i: number, context: OpenerContext): OpenerResult {
  const quoteAt = i + FUNCTION_NAME_TAG.length;
  if (quoteAt >= s.length) return outOfText(i, quoteAt);
  const quote = s.charCodeAt(quoteAt);
  if (quote !== 0x22 && quote !== 0x27) return undefined;
  const nameStart = quoteAt + 1;
  const nameEnd = nameRunEnd(s, nameStart);
  if (nameEnd === nameStart && nameEnd < s.length) return undefined;
  const gt = functionNameTagEnd(s, quote, nameEnd);
  if (gt >= s.length) return outOfText(i, s.length);
  if (gt < 0 || nameEnd === nameStart) return undefined;
  const name = s.slice(nameStart, nameEnd);
  if (!context.accepts(name)) return undefined;
  const after = skipSpace(s, gt + 1);
  if (after >= s.length) return outOfText(i, after);
  if (after - i >= MAX_HEADER) return undefined;
  return s.charCodeAt(after) === 0x7b ? { type: 'marker', name, length: after - i } : undefined;
}

/**
 * `<function name=…>`: Hermes 2 Pro's Functionary tag (`"NAME">` then `{`) or MiniCPM5's call
 * (then `<param` or `</function>`). A decided call of either wins; while the Functionary
 * reading waits, so does the tag (MiniCPM5's reading never decides a call there).
 */
function afterFunctionName(s: string, i: number, context: OpenerContext): OpenerResult {
  const functionary = context.has('functionary') && s.startsWith(FUNCTION_NAME_TAG, i) ? afterFunctionNameTag(s, i, context) : undefined;
  if (functionary !== undefined && functionary !== 'partial') return functionary;
  const minicpm = context.has('minicpm5') ? afterMiniCpmTag(s, i, context) : undefined;
  if (functionary === 'partial') return minicpm !== undefined && minicpm !== 'partial' && minicpm.type === 'block' ? minicpm : 'partial';
  return minicpm;
}

/** `[TOOL_CALLS]NAME[ARGS]{…}`, `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}` and `[TOOL_CALLS]NAME{…}`. */
function matchMistral(s: string, i: number, context: OpenerContext): OpenerResult {
  const marker = '[TOOL_CALLS]';
  if (!context.has('mistral') && !context.has('json')) return undefined;
  if (!s.startsWith(marker, i)) return isPrefixAtEnd(s, i, marker) ? 'partial' : undefined;
  const nameStart = skipSpace(s, i + marker.length);
  if (nameStart >= s.length) return outOfText(i, nameStart);
  const nameEnd = nameRunEnd(s, nameStart);
  if (nameEnd >= s.length) return outOfText(i, nameEnd);
  const text: OpenerMatch = { type: 'text', length: marker.length };
  if (nameEnd === nameStart) return text;
  const name = s.slice(nameStart, nameEnd);
  let j = nameEnd;
  let id: string | undefined;
  if (s.startsWith('[CALL_ID]', j) && context.has('mistral')) {
    const idStart = j + '[CALL_ID]'.length;
    let k = idStart;
    while (k < s.length && k - idStart <= 64 && (isIdentifierUnit(s.charCodeAt(k)) || s.charCodeAt(k) === 0x2d)) k++;
    if (k >= s.length) return outOfText(i, k);
    id = s.slice(idStart, k);
    j = k;
    if (!s.startsWith('[ARGS]', j)) return isPrefixAtEnd(s, j, '[ARGS]') ? 'partial' : text;
  } else if (isPrefixAtEnd(s, j, '[CALL_ID]') && context.has('mistral')) {
    return 'partial';
  }
  if (s.startsWith('[ARGS]', j) && context.has('mistral')) j = skipSpace(s, j + '[ARGS]'.length);
  else if (isPrefixAtEnd(s, j, '[ARGS]') && context.has('mistral')) return 'partial';
  if (j >= s.length) return outOfText(i, j);
  if (s.charCodeAt(j) !== 0x7b || !context.accepts(name)) return text;
  return id === undefined || id === '' ? { type: 'marker', name, length: j - i } : { type: 'marker', name, id, length: j - i };
}

/**
 * Where a Functionary v3.2 header `>>>NAME` (then only space) that ends at the `{` at `brace`
 * starts, not before `floor`; -1 when none. A whole text is read this way, from the `{`
 * (`matchOpener` then decides it from its `>>>`), rather than searched for every `>`.
 */
export function functionaryBefore(s: string, brace: number, floor: number): number {
  let j = brace;
  while (j > floor && isJsonSpace(s.charCodeAt(j - 1))) j--;
  const nameEnd = j;
  // The forward reading takes a run of up to MAX_NAME_LENGTH + 1 units (`nameRunEnd`), runs
  // joined by `::` included.
  while (true) {
    while (j > floor && nameEnd - j <= MAX_NAME_LENGTH && isNameRunUnit(s.charCodeAt(j - 1))) j--;
    if (j - 3 < floor || j === nameEnd || nameEnd - j > MAX_NAME_LENGTH || s.charCodeAt(j - 1) !== 0x3a || s.charCodeAt(j - 2) !== 0x3a || !isNameRunUnit(s.charCodeAt(j - 3))) break;
    j -= 2;
  }
  if (j === nameEnd || j - 3 < floor) return -1;
  return s.charCodeAt(j - 1) === 0x3e && s.charCodeAt(j - 2) === 0x3e && s.charCodeAt(j - 3) === 0x3e ? j - 3 : -1;
}

/** Functionary v3.2: `>>>NAME\n{…}`; `>>>all\n` is plain text. */
function matchFunctionaryV32(s: string, i: number, context: OpenerContext): OpenerResult {
  if (!context.has('functionary')) return undefined;
  if (!s.startsWith('>>>', i)) return isPrefixAtEnd(s, i, '>>>') ? 'partial' : undefined;
  const nameStart = i + 3;
  const nameEnd = nameRunEnd(s, nameStart);
  if (nameEnd >= s.length) return outOfText(i, nameEnd);
  if (nameEnd === nameStart) return undefined;
  const name = s.slice(nameStart, nameEnd);
  const after = skipSpace(s, nameEnd);
  if (after >= s.length) return outOfText(i, after);
  if (name === 'all') return { type: 'text', length: after - i };
  if (s.charCodeAt(after) !== 0x7b || !context.accepts(name)) return undefined;
  return { type: 'marker', name, length: after - i };
}

/**
 * A harmony header up to `<|message|>`: a call when addressed `to=functions.NAME` by the
 * assistant, reasoning on the `analysis` channel, otherwise text (`final`, a commentary
 * preamble, a tool's own message, built-in tools such as `browser.search`).
 */
function harmonyHeader(s: string, i: number, context: OpenerContext): OpenerResult {
  const message = '<|message|>';
  // Searched in a bounded window, so a run of headers without a message stays linear.
  const found = s.slice(i, i + MAX_HEADER + message.length).indexOf(message);
  if (found < 0) return s.length - i >= MAX_HEADER ? undefined : 'partial';
  const at = i + found;
  const header = s.slice(i, at);
  // Another message's end inside the header: not a header.
  if (header.includes('<|end|>') || header.includes('<|call|>') || header.includes('<|return|>')) return undefined;
  const length = at + message.length - i;
  let role: string | undefined;
  if (header.startsWith('<|start|>')) {
    const roleEnd = firstOf(header, '<|start|>'.length, [' ', '<|']);
    role = header.slice('<|start|>'.length, roleEnd).trim();
  }
  const channelAt = header.indexOf('<|channel|>');
  const channel = channelAt < 0 ? undefined : header.slice(channelAt + '<|channel|>'.length, firstOf(header, channelAt + '<|channel|>'.length, [' ', '<|'])).trim();
  let recipient: string | undefined;
  const to = header.indexOf('to=');
  if (to >= 0) recipient = header.slice(to + 3, firstOf(header, to + 3, [' ', '<|'])).trim();
  if (role !== undefined && role !== 'assistant') return { type: 'text', length };
  // The prompt ends with `<|start|>assistant`, so the model's first header may begin with the
  // rest of the role part: ` to=functions.NAME<|channel|>…` (llama.cpp's GPT-OSS cases).
  let leading = false;
  if (recipient === undefined && role === undefined) {
    const lead = context.leadingRecipient?.(s, i);
    if (lead !== undefined) {
      recipient = `functions.${lead}`;
      leading = true;
    }
  }
  if (recipient !== undefined && recipient.startsWith('functions.')) {
    const name = recipient.slice('functions.'.length);
    const body = skipSpace(s, at + message.length);
    if (body >= s.length) return outOfText(i, body);
    if (s.charCodeAt(body) !== 0x7b) {
      // A recipient read only from the text before the header is a guess: an analysis message
      // that is no call's arguments is still reasoning.
      if (leading && channel === 'analysis') return { type: 'reasoning', length, closers: HARMONY_CLOSERS, interrupts: HARMONY_INTERRUPTS };
      return { type: 'text', length };
    }
    if (!context.accepts(name)) return { type: 'text', length };
    return { type: 'marker', name, length: body - i };
  }
  if (recipient === undefined && channel === 'analysis') return { type: 'reasoning', length, closers: HARMONY_CLOSERS, interrupts: HARMONY_INTERRUPTS };
  return { type: 'text', length };
}

/** Longest text before a first harmony header that may be its role-part recipient. */
export const MAX_LEADING_RECIPIENT = 16 + MAX_NAME_LENGTH;

/**
 * Reads `text` (all the text before a first harmony header) as a role-part recipient:
 * whitespace, `to=functions.NAME`, whitespace. Returns the name; `'prefix'` while `text` may
 * still grow into one; undefined when it cannot.
 */
export function readLeadingRecipient(text: string): { name: string } | 'prefix' | undefined {
  if (text.length > MAX_LEADING_RECIPIENT) return undefined;
  const marker = 'to=functions.';
  const at = skipSpace(text, 0);
  if (at === text.length) return 'prefix';
  const rest = text.length - at;
  if (rest <= marker.length) return marker.startsWith(text.slice(at)) ? 'prefix' : undefined;
  if (!text.startsWith(marker, at)) return undefined;
  const nameStart = at + marker.length;
  const nameEnd = nameRunEnd(text, nameStart);
  if (skipSpace(text, nameEnd) !== text.length) return undefined;
  return nameEnd === nameStart ? 'prefix' : { name: text.slice(nameStart, nameEnd) };
}

/**
 * What a held-back opener (`'partial'`) waits for in a stream. It stays undecided while its
 * text from offset `at` stays a proper prefix of one of `tokens` (`prefix`); until `char` arrives
 * (`char`); while name characters (`name`) or whitespace (`space`) arrive; in each case
 * only below `limit` characters. A token stream brings one character at a time; the scanner
 * re-reads the opener only for a character that may decide it (re-reading it for every
 * character costs the square of its length: a harmony header runs to 400). A prefix wait
 * knows that the first `checked` characters of the held text match every one of its tokens.
 */
export type OpenerWait =
  | {
      type: 'prefix';
      tokens: readonly string[];
      at: number;
      checked: number;
      /** A wait on one held character (a `<` begins some thirty tokens): its tokens by their second character. */
      bySecond?: ReadonlyMap<number, readonly string[]>;
    }
  | { type: 'char'; char: number; limit: number }
  | { type: 'name'; limit: number }
  | { type: 'space'; limit: number };

/** A name run that reaches the end of the text from `nameStart` (opener at `i`) keeps it undecided below this length. */
function nameLimit(i: number, nameStart: number): number {
  // `nameRunEnd` reads at most MAX_NAME_LENGTH + 1 characters; `outOfText` gives up at MAX_HEADER.
  return Math.min(MAX_HEADER, nameStart - i + MAX_NAME_LENGTH + 2);
}

/**
 * Openers of fixed text, each with the format it needs (none: always looked for). No one is a
 * prefix of another; MiniCPM5's and Functionary's `<function name=` are the same text, listed
 * for each format.
 */
const FIXED_OPENERS: readonly (readonly [string, ToolCallFormat | undefined])[] = [
  ...REASONING.map(([open]): readonly [string, undefined] => [open, undefined]),
  ...SIMPLE_BLOCKS.map((block): readonly [string, ToolCallFormat] => [block.token, block.format]),
  ['<tool_call>', undefined],
  ['<tool_call:', 'glm'],
  ['<think:', 'glm'],
  ['<tool_calls:', 'glm'],
  [IFM_CALL, 'glm'],
  [DOTS, 'minimax-m2'],
  ['<function=', undefined],
  [MINICPM, 'minicpm5'],
  [FUNCTION_NAME_TAG, 'functionary'],
  ['<|channel|>', 'harmony'],
  ['<|start|>', 'harmony'],
  [KIMI_CALL, 'kimi-k2'],
  ['>>>', 'functionary'],
];

type FixedOpener = readonly [string, ToolCallFormat | undefined];
const NO_OPENERS: readonly FixedOpener[] = [];
/** `FIXED_OPENERS` by their first two characters (a held opener of two or more characters is one of few). */
const FIXED_BY_START = new Map<number, FixedOpener[]>();
for (const opener of FIXED_OPENERS) {
  const key = opener[0].charCodeAt(0) * 0x10000 + opener[0].charCodeAt(1);
  const list = FIXED_BY_START.get(key);
  if (list === undefined) FIXED_BY_START.set(key, [opener]);
  else list.push(opener);
}

/**
 * What the opener at `s[i]`, for which `matchOpener` gave `'partial'`, waits for; undefined
 * when any character may decide it. Every wait given here keeps `matchOpener` at `'partial'`
 * (it is read again whenever the wait ends, so a wait may end early, never late).
 */
export function openerWait(s: string, i: number, context: OpenerContext): OpenerWait | undefined {
  const held = s.length - i;
  if (held === 1) return loneWait(s.charCodeAt(i), loneDecisions(context), context);
  return heldWait(s, i, context);
}

/**
 * What a stream does with one character (`[`, `<`, `>`) held back alone after released text:
 * releases it as text (`'text'`), or holds it back as an opener, waiting as given (`'hold'`:
 * on any character). Undefined: something else (never, for one character).
 */
export type LoneOpener = OpenerWait | 'text' | 'hold';

/** What one held character decides, for one set of formats looked for. */
export interface LoneDecisions {
  /** `openerWait` of the character held alone, by its code. */
  readonly waits: Map<number, OpenerWait | undefined>;
  /** `loneOpener`, by code. */
  readonly openers: Map<number, LoneOpener | undefined>;
}

/**
 * The formats looked for, as one bit per format of `ALL_FORMATS` (at most 31 formats): the
 * decisions of one held character depend on nothing else (`has` is all the opener readers ask
 * the context about a text of one character).
 */
function formatBits(context: OpenerContext): number {
  let bits = 0;
  for (let k = 0; k < ALL_FORMATS.length; k++) if (context.has(ALL_FORMATS[k] ?? 'call')) bits |= 1 << k;
  return bits;
}

/**
 * `LoneDecisions` by format set (`formatBits`), shared by every stream with those formats: each
 * new parser (one per model response) worked them out again, about a tenth of a short
 * response's streaming time. Callers use few format sets; the oldest set is dropped past
 * MAX_FORMAT_SETS, so many distinct sets cost time, never memory.
 */
const LONE_DECISIONS = new Map<number, LoneDecisions>();
const MAX_FORMAT_SETS = 64;

/** The decisions of one held character for the formats `context` looks for (see `LONE_DECISIONS`). */
export function loneDecisions(context: OpenerContext): LoneDecisions {
  const bits = formatBits(context);
  let decisions = LONE_DECISIONS.get(bits);
  if (decisions === undefined) {
    if (LONE_DECISIONS.size >= MAX_FORMAT_SETS) {
      const oldest = LONE_DECISIONS.keys().next();
      if (oldest.done !== true) LONE_DECISIONS.delete(oldest.value);
    }
    decisions = { waits: new Map(), openers: new Map() };
    LONE_DECISIONS.set(bits, decisions);
  }
  return decisions;
}

/**
 * What a stream does with `c` (`[`, `<` or `>`) pushed alone after released text (see
 * `LoneOpener`), made once per format set: `[` opens most outputs of some models, and each
 * response is a new parser. `decisions`: `loneDecisions(context)`, which a stream keeps.
 */
export function loneOpener(c: number, decisions: LoneDecisions, context: OpenerContext): LoneOpener | undefined {
  const known = decisions.openers.get(c);
  if (known !== undefined || decisions.openers.has(c)) return known;
  const s = String.fromCharCode(c);
  const match = matchOpener(s, 0, context, false);
  const decided = match === undefined ? 'text' : match === 'partial' ? (loneWait(c, decisions, context) ?? 'hold') : undefined;
  decisions.openers.set(c, decided);
  return decided;
}

/**
 * The wait of one held character (a stream holds a `<` back at every chunk end that has one),
 * made once per format set: a `<` begins some thirty tokens, so the wait also keeps them by
 * their second character for the next one to pick.
 */
function loneWait(c: number, decisions: LoneDecisions, context: OpenerContext): OpenerWait | undefined {
  const waits = decisions.waits;
  if (waits.has(c)) return waits.get(c);
  let wait = heldWait(String.fromCharCode(c), 0, context);
  if (wait?.type === 'prefix' && wait.tokens.length > 4) wait = { ...wait, bySecond: bySecond(wait.tokens) };
  waits.set(c, wait);
  return wait;
}

function heldWait(s: string, i: number, context: OpenerContext): OpenerWait | undefined {
  const held = s.length - i;
  // A DeepSeek token (its spelling varies) is undecided until its closing `>`, up to 30 characters.
  if (context.has('deepseek') && s.startsWith('<\uff5c', i) && held < 30 && s.indexOf('>', i) < 0) return { type: 'char', char: 0x3e, limit: 30 };
  if (context.has('kimi-k2') && s.startsWith(KIMI_CALL, i)) {
    // The id runs to `<|tool_call_argument_begin|>`, which only a `>` can complete; then space.
    const found = s.indexOf(KIMI_ARGUMENTS, i + KIMI_CALL.length);
    if (found < 0) return held < MAX_HEADER ? { type: 'char', char: 0x3e, limit: MAX_HEADER } : undefined;
    return skipSpace(s, found + KIMI_ARGUMENTS.length) >= s.length ? { type: 'space', limit: MAX_HEADER } : undefined;
  }
  if (context.has('harmony') && (s.startsWith('<|channel|>', i) || s.startsWith('<|start|>', i))) {
    // A header waits for `<|message|>`, which only a `>` can complete.
    return s.indexOf('<|message|>', i) < 0 && held < MAX_HEADER ? { type: 'char', char: 0x3e, limit: MAX_HEADER } : undefined;
  }
  // Every token the text may still become (`<` begins many): a wait on the first alone would
  // end, and read the opener again, where the text goes on as another (`<to` after `<think>`).
  let tokens: string[] | undefined;
  const first = s.charCodeAt(i);
  const candidates = held > 1 ? (FIXED_BY_START.get(first * 0x10000 + s.charCodeAt(i + 1)) ?? NO_OPENERS) : FIXED_OPENERS;
  for (const [token, format] of candidates) {
    if (token.charCodeAt(0) === first && isPrefixAtEnd(s, i, token) && (format === undefined || context.has(format))) (tokens ??= []).push(token);
  }
  const mistral = context.has('mistral') || context.has('json');
  if (mistral && isPrefixAtEnd(s, i, '[TOOL_CALLS]')) (tokens ??= []).push('[TOOL_CALLS]');
  if (tokens !== undefined) return { type: 'prefix', tokens, at: 0, checked: held };
  // Past a complete opener token: waits of the header that follows (as the matchers above read it).
  if (mistral && s.startsWith('[TOOL_CALLS]', i)) {
    const nameStart = skipSpace(s, i + '[TOOL_CALLS]'.length);
    if (nameStart >= s.length) return { type: 'space', limit: MAX_HEADER };
    const nameEnd = nameRunEnd(s, nameStart);
    if (nameEnd >= s.length) return { type: 'name', limit: nameLimit(i, nameStart) };
    if (!context.has('mistral') || nameEnd === nameStart) return undefined;
    if (s.startsWith('[ARGS]', nameEnd)) return skipSpace(s, nameEnd + '[ARGS]'.length) >= s.length ? { type: 'space', limit: MAX_HEADER } : undefined;
    return tagPrefixWait(s, i, nameEnd, ['[ARGS]', '[CALL_ID]']);
  }
  for (const [token, format] of GEMMA_CALL_TOKENS) {
    if (!context.has(format) || !s.startsWith(token, i)) continue;
    const after = skipSpace(s, i + token.length);
    return after >= s.length ? { type: 'space', limit: MAX_HEADER } : tagPrefixWait(s, i, after, GEMMA_CALL);
  }
  if (context.has('functionary') && s.startsWith('>>>', i)) {
    const nameEnd = nameRunEnd(s, i + 3);
    if (nameEnd >= s.length) return { type: 'name', limit: nameLimit(i, i + 3) };
    return nameEnd > i + 3 && skipSpace(s, nameEnd) >= s.length ? { type: 'space', limit: MAX_HEADER } : undefined;
  }
  if ((context.has('qwen3-xml') || context.has('functionary')) && s.startsWith('<function=', i)) {
    const nameStart = i + '<function='.length;
    const nameEnd = nameRunEnd(s, nameStart);
    if (nameEnd >= s.length) return { type: 'name', limit: nameLimit(i, nameStart) };
    if (nameEnd === nameStart || s.charCodeAt(nameEnd) !== 0x3e) return undefined;
    const after = skipSpace(s, nameEnd + 1);
    if (after >= s.length) return { type: 'space', limit: MAX_HEADER };
    return context.has('qwen3-xml') ? tagPrefixWait(s, i, after, ['<parameter=', '</function>']) : undefined;
  }
  if (context.has('functionary') && s.startsWith(FUNCTION_NAME_TAG, i)) {
    // While this waits, MiniCPM5's reading of the same tag waits too (see `afterFunctionName`);
    // without it, that reading's own wait (below) holds only while that reading is undecided.
    const wait = functionNameTagWait(s, i);
    if (wait !== undefined || !context.has('minicpm5') || afterMiniCpmTag(s, i, context) !== 'partial') return wait;
  }
  if (s.startsWith('<tool_call>', i)) {
    const after = skipSpace(s, i + '<tool_call>'.length);
    if (after >= s.length) return { type: 'space', limit: MAX_HEADER };
    if (context.has('qwen3-xml') && isPrefixAtEnd(s, after, '<function=')) return { type: 'prefix', tokens: ['<function='], at: after - i, checked: held };
    const c = s.charCodeAt(after);
    if (context.has('glm') && c !== 0x3c && isIdentifierUnit(c)) {
      const nameEnd = nameRunEnd(s, after);
      if (nameEnd >= s.length) return { type: 'name', limit: nameLimit(i, after) };
      let next = skipSpace(s, nameEnd);
      while (s.startsWith('\\n', next) && next - i < MAX_HEADER) next = skipSpace(s, next + 2);
      if (next >= s.length) return { type: 'space', limit: MAX_HEADER };
      return tagPrefixWait(s, i, next, ['<arg_key>', '</tool_call>', '<tool_sep>']);
    }
  }
  if (context.has('minicpm5') && s.startsWith(MINICPM, i)) {
    const gt = headerEnd(s, i);
    if (gt < 0) return held < MAX_HEADER ? { type: 'char', char: 0x3e, limit: MAX_HEADER } : undefined;
    return tokensWait(s, i, gt + 1, MINICPM_NEXT);
  }
  if (context.has('glm') && s.startsWith('<think:', i) && (context.reasoningLineStart?.(s, i) ?? true)) {
    const from = i + '<think'.length;
    return suffixEnd(s, from) === s.length ? { type: 'name', limit: from - i + MAX_SUFFIX + 1 } : undefined;
  }
  if (context.has('minimax-m2') && s.startsWith(DOTS, i)) return tokensWait(s, i, i + DOTS.length, ['<invoke']);
  if (context.has('glm') && s.startsWith(IFM_CALL, i)) return pairCallWait(s, i, i + IFM_CALL.length, IFM_NEXT);
  if (context.has('glm') && s.startsWith('<tool_call', i)) {
    const wrapper = s.startsWith('<tool_calls', i);
    const from = i + (wrapper ? '<tool_calls' : '<tool_call').length;
    const end = suffixEnd(s, from);
    // A suffix being read stays undecided while name characters come, up to its longest.
    if (end === s.length) return from < s.length ? { type: 'name', limit: from - i + MAX_SUFFIX + 1 } : undefined;
    if (end < 0) return undefined;
    const suffix = s.slice(from, end);
    if (wrapper) return tokensWait(s, i, end + 1, [`<tool_call${suffix}>`]);
    return pairCallWait(s, i, end + 1, [`<arg_key${suffix}>`, `<tool_sep${suffix}>`, `</tool_call${suffix}>`]);
  }
  return undefined;
}

/** The wait of `afterFunctionNameTag` (see there) when it gave `'partial'`. */
function functionNameTagWait(s: string, i: number): OpenerWait | undefined {
  const quoteAt = i + FUNCTION_NAME_TAG.length;
  // The quote: the next character decides.
  if (quoteAt >= s.length) return undefined;
  const quote = s.charCodeAt(quoteAt);
  const nameStart = quoteAt + 1;
  const nameEnd = nameRunEnd(s, nameStart);
  if (nameEnd >= s.length) return { type: 'name', limit: nameLimit(i, nameStart) };
  if (nameEnd === nameStart) return undefined;
  const gt = functionNameTagEnd(s, quote, nameEnd);
  // Space after the closing quote, or after `>`: more space or the next character decides.
  if (gt >= s.length) return { type: 'space', limit: MAX_HEADER };
  return gt >= 0 && skipSpace(s, gt + 1) >= s.length ? { type: 'space', limit: MAX_HEADER } : undefined;
}

/** The wait of `afterTokens` (see there) when it gave `'partial'`. */
function tokensWait(s: string, i: number, after: number, tokens: readonly string[]): OpenerWait | undefined {
  const next = skipSpace(s, after);
  if (next >= s.length) return { type: 'space', limit: MAX_HEADER };
  return tagPrefixWait(s, i, next, tokens);
}

/** The wait of `afterPairCallTag` (see there) when it gave `'partial'`. */
function pairCallWait(s: string, i: number, after: number, next: readonly string[]): OpenerWait | undefined {
  const start = skipSpace(s, after);
  if (start >= s.length) return { type: 'space', limit: MAX_HEADER };
  const nameEnd = nameRunEnd(s, start);
  if (nameEnd >= s.length) return { type: 'name', limit: nameLimit(i, start) };
  let j = skipSpace(s, nameEnd);
  while (s.startsWith('\\n', j) && j - i < MAX_HEADER) j = skipSpace(s, j + 2);
  if (j >= s.length) return { type: 'space', limit: MAX_HEADER };
  return tagPrefixWait(s, i, j, next);
}

/** `tokens` (each longer than two characters) by their second character. */
function bySecond(tokens: readonly string[]): ReadonlyMap<number, readonly string[]> {
  const map = new Map<number, string[]>();
  for (const token of tokens) {
    const second = token.charCodeAt(1);
    const list = map.get(second);
    if (list === undefined) map.set(second, [token]);
    else list.push(token);
  }
  return map;
}

/** A prefix wait on those of `tokens` that the text from `after` begins (opener at `i`). */
function tagPrefixWait(s: string, i: number, after: number, tokens: readonly string[]): OpenerWait | undefined {
  const begun = tokens.filter((token) => isPrefixAtEnd(s, after, token));
  return begun.length === 0 ? undefined : { type: 'prefix', tokens: begun, at: after - i, checked: s.length - i };
}

/** Whether `held` from `at`, then `c`, is a proper prefix of `token`. */
function continues(token: string, held: string, at: number, c: number): boolean {
  const length = held.length - at;
  if (length + 1 >= token.length || token.charCodeAt(length) !== c) return false;
  // Bounded by the token's length; the tokens of one wait part ways after their first characters.
  for (let k = 0; k < length; k++) if (held.charCodeAt(at + k) !== token.charCodeAt(k)) return false;
  return true;
}

/** Whether a held-back opener (its text `held`, from the opener on) still waits after character `c`. */
export function keepsWaiting(wait: OpenerWait, held: string, c: number): boolean {
  return waitAfter(wait, held, c) !== undefined;
}

/**
 * What a held-back opener (its text `held`, from the opener on) waits for after character `c`:
 * `wait` itself, a prefix wait on fewer tokens (those `c` continues, so that a stream does not
 * test the others on every later character), or undefined when `c` may decide the opener.
 */
export function waitAfter(wait: OpenerWait, held: string, c: number): OpenerWait | undefined {
  switch (wait.type) {
    case 'prefix': {
      // Held text the wait has seen (`checked` characters) matches each of its tokens: only
      // the new character is compared (a stream brings the held text one character at a time).
      const length = held.length - wait.at;
      const checked = wait.checked === held.length;
      if (wait.bySecond !== undefined && length === 1 && checked) {
        const next = wait.bySecond.get(c);
        return next === undefined ? undefined : { type: 'prefix', tokens: next, at: wait.at, checked: held.length + 1 };
      }
      let kept: string[] | undefined;
      for (const token of wait.tokens) {
        if (checked ? length + 1 < token.length && token.charCodeAt(length) === c : continues(token, held, wait.at, c)) (kept ??= []).push(token);
      }
      if (kept === undefined) return undefined;
      return { type: 'prefix', tokens: kept.length === wait.tokens.length ? wait.tokens : kept, at: wait.at, checked: held.length + 1 };
    }
    case 'char':
      return c !== wait.char && held.length + 1 < wait.limit ? wait : undefined;
    case 'name': {
      if (held.length + 1 >= wait.limit) return undefined;
      // Through a `::` join (`ns::tool`, see `nameRunEnd`): `a:` then `:` or a name character
      // after `a::` leaves the name undecided; a name character after a single `:` ends it.
      const last = held.charCodeAt(held.length - 1);
      const single = last === 0x3a && held.charCodeAt(held.length - 2) !== 0x3a;
      if (c === 0x3a) return isNameRunUnit(last) || single ? wait : undefined;
      return isNameRunUnit(c) && !single ? wait : undefined;
    }
    case 'space':
      return isJsonSpace(c) && held.length + 1 < wait.limit ? wait : undefined;
    default: {
      const unknown: never = wait;
      throw new Error(`unknown opener wait ${String(unknown)}`);
    }
  }
}

function firstOf(s: string, from: number, needles: readonly string[]): number {
  let best = s.length;
  for (const needle of needles) {
    const at = s.indexOf(needle, from);
    if (at >= 0 && at < best) best = at;
  }
  return best;
}

/** Most space read between a block's closing token and its trailer. */
const MAX_TRAILER_SPACE = 16;

/**
 * Where a block whose closing token ends at `s[at]` ends: past `trailer` when only space
 * comes before it, at `at` when anything else follows, or -1 when the text ends before that
 * is known (never when `final`).
 */
export function trailerEnd(s: string, at: number, trailer: string, final: boolean): number {
  const limit = at + MAX_TRAILER_SPACE;
  let j = at;
  while (j < s.length && j < limit && isJsonSpace(s.charCodeAt(j))) j++;
  if (j < s.length) {
    if (j >= limit) return at;
    if (s.startsWith(trailer, j)) return j + trailer.length;
    if (!isPrefixAtEnd(s, j, trailer)) return at;
  }
  return final ? at : -1;
}

/** Most space read back from a quoted call's `<tool_call>` to a `</function>` before it. */
const MAX_BACK_SPACE = 16;

/**
 * Whether the `<tool_call>` at `s[at]` opens a Qwen3-XML call quoted in a value, as an agent
 * writing a parser fixture writes one: `<tool_call>` then (after space, before `to`)
 * `<function=`, not right after a `</function>` (there it is the model's next call, its
 * previous `</tool_call>` forgotten). `floor`: where the block starts in `s`, the limit of that look back.
 */
export function isQuotedOpen(s: string, at: number, to: number, floor: number): boolean {
  const after = skipSpace(s, at + '<tool_call>'.length, to);
  if (!s.startsWith('<function=', after)) return false;
  let before = at;
  while (before > floor && at - before < MAX_BACK_SPACE && isJsonSpace(s.charCodeAt(before - 1))) before--;
  return !(before - '</function>'.length >= floor && s.startsWith('</function>', before - '</function>'.length));
}

/** How many Qwen3-XML calls open in `s[from, to)` quoted in a value (see `isQuotedOpen`). */
export function quotedOpens(s: string, from: number, to: number, floor: number): number {
  let count = 0;
  let at = s.indexOf('<tool_call>', from);
  while (at >= 0 && at < to) {
    if (isQuotedOpen(s, at, to, floor)) count++;
    at = s.indexOf('<tool_call>', at + 1);
  }
  return count;
}
