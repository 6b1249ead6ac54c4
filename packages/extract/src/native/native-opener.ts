import type { ToolCallFormat } from '../extract-options.ts';
import { isIdentifierUnit, isNameRunUnit, MAX_NAME_LENGTH } from '../identifier.ts';
import { isJsonSpace, skipSpace } from './json-extent.ts';
import { deepseekToken, kimiName } from './token-calls.ts';

/** How a closed block is read. */
export type BlockBody = 'qwen-xml' | 'seed-xml' | 'minimax-xml' | 'dsml' | 'glm' | 'deepseek' | 'kimi' | 'gemma' | 'functiongemma' | 'apertus';

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
  { token: '<\uff5cDSML\uff5cfunction_calls>', format: 'deepseek-dsml', body: 'dsml', ends: ['</\uff5cDSML\uff5cfunction_calls>'] },
  { token: '<\uff5cDSML\uff5ctool_calls>', format: 'deepseek-dsml', body: 'dsml', ends: ['</\uff5cDSML\uff5ctool_calls>'] },
  { token: '<|tool_calls_section_begin|>', format: 'kimi-k2', body: 'kimi', ends: ['<|tool_calls_section_end|>', '<|tool_call_section_end|>'] },
  { token: '<|tool_call_section_begin|>', format: 'kimi-k2', body: 'kimi', ends: ['<|tool_calls_section_end|>', '<|tool_call_section_end|>'] },
  { token: '<|tool_call>', format: 'gemma4', body: 'gemma', ends: ['<tool_call|>', '<turn|>'] },
  { token: '<start_function_call>', format: 'functiongemma', body: 'functiongemma', ends: ['<end_function_call>'] },
  { token: '<|tools_prefix|>', format: 'apertus', body: 'apertus', ends: ['<|tools_suffix|>'] },
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
}

/** Whether `s` from `i` is a proper prefix of `token` (the text ends inside it). */
function isPrefixAtEnd(s: string, i: number, token: string): boolean {
  const rest = s.length - i;
  if (rest >= token.length) return false;
  // Compared in place: this runs for every held-back opener on every chunk of a token stream.
  for (let k = 0; k < rest; k++) if (s.charCodeAt(i + k) !== token.charCodeAt(k)) return false;
  return true;
}

/** End of a name run starting at `from` (or `from` when there is none). */
function nameRunEnd(s: string, from: number): number {
  let j = from;
  while (j < s.length && j - from <= MAX_NAME_LENGTH && isNameRunUnit(s.charCodeAt(j))) j++;
  return j;
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

function matchAngle(s: string, i: number, d: number, context: OpenerContext): OpenerResult {
  let partial = false;
  for (const block of SIMPLE_BLOCKS) {
    if ((d >= 0 && block.token.charCodeAt(1) !== d) || !context.has(block.format)) continue;
    if (s.startsWith(block.token, i)) {
      if (block.body === 'functiongemma' || block.body === 'gemma') return afterCallToken(s, i, block);
      return { type: 'block', body: block.body, length: block.token.length, ends: block.ends };
    }
    if (isPrefixAtEnd(s, i, block.token)) partial = true;
  }
  if (d === 0x7c && context.has('kimi-k2')) {
    if (s.startsWith(KIMI_CALL, i)) return kimiCall(s, i, context);
    if (isPrefixAtEnd(s, i, KIMI_CALL)) partial = true;
  }
  if (d === 0xff5c && context.has('deepseek') && s.startsWith('<\uff5c', i)) {
    const end = Math.max(deepseekToken(s, i, ['tool', 'calls', 'begin']), deepseekToken(s, i, ['tool', 'calls']));
    if (end >= 0) return { type: 'block', body: 'deepseek', length: end - i, ends: DEEPSEEK_ENDS };
    // The token is at most 30 characters: wait while the text ends inside one.
    if (s.length - i < 30 && s.indexOf('>', i) < 0) partial = true;
  } else if (context.has('deepseek') && s.length - i === 1) {
    partial = true;
  }
  if (d === 0x74 && s.startsWith('<tool_call>', i)) {
    const result = afterToolCallTag(s, i, context);
    if (result !== undefined) return result;
  } else if (isPrefixAtEnd(s, i, '<tool_call>')) {
    partial = true;
  }
  if (d === 0x66 && (context.has('qwen3-xml') || context.has('functionary')) && s.startsWith('<function=', i)) {
    return afterFunctionTag(s, i, context);
  }
  if (isPrefixAtEnd(s, i, '<function=')) partial = true;
  if (d === 0x66 && context.has('functionary') && s.startsWith(FUNCTION_NAME_TAG, i)) return afterFunctionNameTag(s, i, context);
  if (isPrefixAtEnd(s, i, FUNCTION_NAME_TAG) && context.has('functionary')) partial = true;
  if ((d === 0x7c || d < 0) && context.has('harmony')) {
    if (s.startsWith('<|channel|>', i) || s.startsWith('<|start|>', i)) return harmonyHeader(s, i, context);
    if (isPrefixAtEnd(s, i, '<|channel|>') || isPrefixAtEnd(s, i, '<|start|>')) partial = true;
  }
  return partial ? 'partial' : undefined;
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

/** `<tool_call>` then JSON (Hermes: read by the JSON scanner), `<function=` (Qwen3 XML) or a name (GLM). */
function afterToolCallTag(s: string, i: number, context: OpenerContext): OpenerResult {
  const length = '<tool_call>'.length;
  const after = skipSpace(s, i + length);
  if (after >= s.length) return outOfText(i, after);
  if (after - i >= MAX_HEADER) return undefined;
  const c = s.charCodeAt(after);
  if (c === 0x7b || c === 0x5b) return { type: 'text', length };
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
    if (s.startsWith('<arg_key>', next) || s.startsWith('</tool_call>', next)) {
      if (context.accepts(name)) return { type: 'block', body: 'glm', length, ends: ['</tool_call>'] };
    } else if (isPrefixAtEnd(s, next, '<arg_key>') || isPrefixAtEnd(s, next, '</tool_call>')) {
      return 'partial';
    }
  }
  return { type: 'text', length };
}

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
  // The forward reading takes a run of up to MAX_NAME_LENGTH + 1 units (`nameRunEnd`).
  while (j > floor && nameEnd - j <= MAX_NAME_LENGTH && isNameRunUnit(s.charCodeAt(j - 1))) j--;
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
  | { type: 'prefix'; tokens: readonly string[]; at: number; checked: number }
  | { type: 'char'; char: number; limit: number }
  | { type: 'name'; limit: number }
  | { type: 'space'; limit: number };

/** A name run that reaches the end of the text from `nameStart` (opener at `i`) keeps it undecided below this length. */
function nameLimit(i: number, nameStart: number): number {
  // `nameRunEnd` reads at most MAX_NAME_LENGTH + 1 characters; `outOfText` gives up at MAX_HEADER.
  return Math.min(MAX_HEADER, nameStart - i + MAX_NAME_LENGTH + 2);
}

/** Openers of fixed text, each with the format it needs (none: always looked for). No one is a prefix of another. */
const FIXED_OPENERS: readonly (readonly [string, ToolCallFormat | undefined])[] = [
  ...REASONING.map(([open]): readonly [string, undefined] => [open, undefined]),
  ...SIMPLE_BLOCKS.map((block): readonly [string, ToolCallFormat] => [block.token, block.format]),
  ['<tool_call>', undefined],
  ['<function=', undefined],
  [FUNCTION_NAME_TAG, 'functionary'],
  ['<|channel|>', 'harmony'],
  ['<|start|>', 'harmony'],
  [KIMI_CALL, 'kimi-k2'],
  ['>>>', 'functionary'],
];

/**
 * What the opener at `s[i]`, for which `matchOpener` gave `'partial'`, waits for; undefined
 * when any character may decide it. Every wait given here keeps `matchOpener` at `'partial'`
 * (it is read again whenever the wait ends, so a wait may end early, never late).
 */
export function openerWait(s: string, i: number, context: OpenerContext): OpenerWait | undefined {
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
  for (const [token, format] of FIXED_OPENERS) {
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
      return tagPrefixWait(s, i, next, ['<arg_key>', '</tool_call>']);
    }
  }
  return undefined;
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
      let kept: string[] | undefined;
      for (const token of wait.tokens) {
        if (checked ? length + 1 < token.length && token.charCodeAt(length) === c : continues(token, held, wait.at, c)) (kept ??= []).push(token);
      }
      if (kept === undefined) return undefined;
      return { type: 'prefix', tokens: kept.length === wait.tokens.length ? wait.tokens : kept, at: wait.at, checked: held.length + 1 };
    }
    case 'char':
      return c !== wait.char && held.length + 1 < wait.limit ? wait : undefined;
    case 'name':
      return isNameRunUnit(c) && held.length + 1 < wait.limit ? wait : undefined;
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
