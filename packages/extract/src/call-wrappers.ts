// What wraps a call written as text, read on the text right before and right after it: the
// cleaner of a text-tools answer (call-text-cleaner.ts) leaves these out of the shown text.
// Pure functions over a string and an index; every look-back is bounded.

/**
 * What a wrapper opened before a call owes after it: a closing tag by name, a special token, a
 * fence, a list's `]`, an inline code span's backticks. `text`: the opener as written (with the
 * blank space after it), for the kinds that are shown again when the block holds more than
 * calls (a fence, a bracket, a code span: left half-removed, they would unbalance the answer).
 */
export type WrapperCloser =
  | { kind: 'tag'; name: string }
  | { kind: 'token' }
  | { kind: 'fence'; text: string }
  | { kind: 'bracket'; text: string }
  | { kind: 'code'; length: number; text: string };

/**
 * Markers that wrap calls, and end tokens small models leak. Read like wrappers: they go at the
 * start or the end of the answer or next to a call, and stay in text around them (an answer
 * that explains a format).
 */
export const MARKERS = [
  '<tool_call>',
  '</tool_call>',
  '<function_call>',
  '</function_call>',
  '<|python_tag|>',
  '[TOOL_CALLS]',
  '<end_of_turn>',
  '<|eot_id|>',
  '<|im_end|>',
  // Special tokens around the classic formats' call blocks and answers: LFM2, Llama 4, Granite,
  // InternLM2, GigaChat 3.1, Cohere R7B's action, response and text. (Plain tags such as
  // `<tool_calls>` are not markers: they are wrappers only where they wrap a call, see below.)
  '<|tool_call_start|>',
  '<|tool_call_end|>',
  '<|python_start|>',
  '<|python_end|>',
  '<|tool_call|>',
  '<|action_start|>',
  '<|plugin|>',
  '<|action_end|>',
  '<|function_call|>',
  '<|START_ACTION|>',
  '<|END_ACTION|>',
  '<|START_RESPONSE|>',
  '<|END_RESPONSE|>',
  '<|START_TEXT|>',
  '<|END_TEXT|>',
  // Functionary v3.2's header of a text segment.
  '>>>all\n',
  // Left around native calls: Functionary's closing tag, harmony's message framing, end tokens.
  '</function>',
  '<|channel|>final<|message|>',
  // A commentary message without a recipient is a preamble the user sees (llama.cpp's GPT-OSS cases).
  '<|channel|>commentary<|message|>',
  '<|start|>assistant',
  '<|end|>',
  '<|return|>',
  '<|call|>',
  // Kimi's end tokens after a call written without its section.
  '<|tool_calls_section_end|>',
  '</think>',
  '<turn|>',
  '<\uff5cend\u2581of\u2581sentence\uff5c>',
  // K2 Horizon's group of calls, and Kimi K3's channel framing around the answer.
  '<ifm|tool_calls>',
  '</ifm|tool_calls>',
  '<|open|>response<|sep|>',
  '<|close|>response<|sep|>',
  '<|close|>message<|sep|>',
];

/** The longest marker: a longer held prefix cannot be one. */
export const LONGEST_MARKER = Math.max(...MARKERS.map((marker) => marker.length));

/** Three characters of `s` from `at` as one number (every marker has at least three). */
function key3(s: string, at: number): number {
  return (s.charCodeAt(at) * 0x10000 + s.charCodeAt(at + 1)) * 0x10000 + s.charCodeAt(at + 2);
}

// Markers by their first and their last three characters, and their proper prefixes: the
// cleaner asks on every piece of a token stream, so each question is a lookup or two.
const BY_START = new Map<number, string[]>();
const BY_END = new Map<number, string[]>();
const PREFIXES = new Set<string>();
for (const marker of MARKERS) {
  for (const [map, key] of [[BY_START, key3(marker, 0)], [BY_END, key3(marker, marker.length - 3)]] as const) {
    const list = map.get(key);
    if (list === undefined) map.set(key, [marker]);
    else list.push(marker);
  }
  for (let k = 1; k < marker.length; k++) PREFIXES.add(marker.slice(0, k));
}

/** The length of the marker that starts at `s[i]`, 0 when none does. */
export function markerAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if ((c !== LT && c !== 0x5b && c !== GT) || s.length - i < 3) return 0;
  const candidates = BY_START.get(key3(s, i));
  if (candidates !== undefined) for (const marker of candidates) if (s.startsWith(marker, i)) return marker.length;
  return 0;
}

/** Where the marker that ends at `end` starts (not before `floor`), -1 when none does. */
function markerEndingAt(s: string, end: number, floor: number): number {
  if (end - floor < 3) return -1;
  const candidates = BY_END.get(key3(s, end - 3));
  if (candidates === undefined) return -1;
  for (const marker of candidates) {
    const at = end - marker.length;
    if (at >= floor && s.startsWith(marker, at)) return at;
  }
  return -1;
}

/** Whether `s` from `i` to its end could still grow into a marker. */
export function isMarkerPrefix(s: string, i: number): boolean {
  return s.length - i < LONGEST_MARKER && PREFIXES.has(s.slice(i));
}

/**
 * Where a trailing run of markers (with blank space and separators between them) starts in
 * `s`: what goes at the end of the answer. `s.length` when `s` does not end with a marker.
 */
export function markerRunStart(s: string): number {
  const floor = Math.max(0, s.length - MAX_OPENER);
  let start = s.length;
  for (;;) {
    let j = start;
    while (j > floor && isSeparator(s.charCodeAt(j - 1))) j--;
    const at = j > floor ? markerEndingAt(s, j, floor) : -1;
    if (at < 0) return start;
    start = at;
  }
}

/** The most text held back as a possible opener: bounded, so that the text is read in one pass. */
export const MAX_OPENER = 96;
/** The longest tag name read as a wrapper's (`<longcat_tool_call>`, `<|action_start|>`). */
const MAX_TAG_NAME = 64;
/** The longest language after a fence (```` ```tool_code ````). */
const MAX_LANGUAGE = 32;
/** A fence is 3 to 15 backticks: a longer run is text, so that a run is never read twice. */
const MIN_FENCE = 3;
const MAX_FENCE = 15;
/** At most this many `[` in a run of openers (`[[f()]]`): a longer run of brackets is text, and is not read again per piece. */
const MAX_BRACKETS = 4;

/**
 * Words that introduce a call when one follows them at once and they start a line (or the
 * answer): Cohere's `Action:`, Phi-4-mini's `functools`, GigaChat 3's `function call`,
 * HyperCLOVA X's `-> tool/function_call`. No word may end in the start of one (RWKV's
 * `**Tool Call:**` does, so it stays text): the start of a word held at the end of a piece
 * would then depend on how the text was split.
 */
const OPENER_WORDS = ['Action:', 'functools', 'function call', '-> tool/function_call'];
const LONGEST_WORD = Math.max(...OPENER_WORDS.map((word) => word.length));
const WORD_FIRST = new Set(OPENER_WORDS.map((word) => word.charCodeAt(0)));
/**
 * A tag is a wrapper if its name has one of these (`<tools>`, `<TOOLCALL>`, `<function_calls>`;
 * `<response>`, `<json>`, `<xml>` as llama.cpp reads them around Hermes JSON), or starts with
 * `|` (a special token).
 */
const WRAPPER_NAME_PARTS = ['tool', 'function', 'call', 'action', 'plugin', 'response', 'json', 'xml'];
/**
 * Tags that are wrappers by their whole name: Hunyuan A13B's `<answer>` around its calls (vLLM's
 * `hunyuan_a13b` reads calls inside it). Only right around calls: an answer in `<answer>…</answer>`
 * stays as written (prompts often ask for that tag and read it back).
 */
const WRAPPER_NAMES = ['answer'];

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const PIPE = 0x7c;
const BACKTICK = 0x60;
const NEWLINE = 0x0a;

/** Characters that may frame calls: list brackets, separators and the whitespace between them. */
export function isFraming(c: number): boolean {
  return c === 0x5b || c === 0x5d || isSeparator(c);
}

/** Separators between calls (`,`, `;`) and blank space: what an opener run or a closer run skips. */
export function isSeparator(c: number): boolean {
  return c === 0x2c || c === 0x3b || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** A character of a tag's name: `<tool_calls>`, `<minimax:tool_call>`, `<|plugin|>`, `<ifm|tool_call>`. */
function isTagNameCode(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x3a || c === 0x2e || c === 0x2d || c === PIPE;
}

function isWordCode(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
}

function isWrapperName(name: string): boolean {
  if (name.charCodeAt(0) === PIPE) return true;
  const lower = name.toLowerCase();
  if (WRAPPER_NAMES.includes(lower)) return true;
  return WRAPPER_NAME_PARTS.some((part) => lower.includes(part));
}

/**
 * Whether the text before `at` ends a line: only spaces or tabs back to a line break, a tag's
 * `>`, or the start of `s` where `lineStart` says the text before `s` ended a line.
 */
export function startsLine(s: string, at: number, lineStart: boolean): boolean {
  let i = at;
  while (i > 0 && (s.charCodeAt(i - 1) === 0x20 || s.charCodeAt(i - 1) === 0x09)) i--;
  if (i === 0) return lineStart;
  const c = s.charCodeAt(i - 1);
  return c === NEWLINE || c === GT;
}

/**
 * Where a trailing run of openers in `s` starts: wrapper tags (`<tool_calls>`, `<|plugin|>`),
 * fences with their language, markers, a list's `[` (at most `MAX_BRACKETS`), opener words at a
 * line's start, with separators between them; when not `partial`, also one or two backticks
 * right at the end (an inline code span against the call). `partial`: also what may still grow
 * into one at the very end (`<tool_ca`, one or two backticks, `funct`), held back while a piece
 * may follow. `s.length` when the text does not
 * end so. Only the last `MAX_OPENER` characters are looked at. `into` receives what the run's
 * openers owe after the call, in order.
 */
export function openerRunStart(s: string, lineStart: boolean, partial: boolean, into?: WrapperCloser[]): number {
  const floor = Math.max(0, s.length - MAX_OPENER);
  const viaEnd = runStart(s, s.length, floor, lineStart, partial, into);
  if (!partial) return viaEnd;
  // The start of an opener word with blank space in it (`function c`) is cut by the framing
  // the reading above skips: read from there too, and the longer run wins.
  const word = partialWordStart(s, floor, lineStart);
  return word === s.length ? viaEnd : Math.min(viaEnd, runStart(s, word, floor, lineStart, false));
}

function runStart(s: string, from: number, floor: number, lineStart: boolean, partial: boolean, into?: WrapperCloser[]): number {
  let start = from;
  // What a held run owes is not needed until a call comes: a held run keeps none.
  const owed: WrapperCloser[] | undefined = into === undefined ? undefined : [];
  let brackets = 0;
  for (;;) {
    // A marker may end in blank space (`>>>all\n`): looked for before the space is skipped.
    const marker = start > floor ? markerEndingAt(s, start, floor) : -1;
    if (marker >= 0) {
      start = marker;
      continue;
    }
    let j = start;
    while (j > floor && isSeparator(s.charCodeAt(j - 1))) j--;
    if (j === floor) break;
    if (s.charCodeAt(j - 1) === 0x5b && ++brackets > MAX_BRACKETS) break;
    const count = owed?.length ?? 0;
    // Backticks right against the call (no space between) open an inline code span around it.
    const tight = !partial && j === from && from === s.length;
    const item = itemStart(s, j, floor, lineStart, partial && j === s.length, tight, owed);
    if (item < 0) break;
    const closer = owed !== undefined && owed.length > count ? owed[owed.length - 1] : undefined;
    if (closer !== undefined && closer.kind !== 'tag' && closer.kind !== 'token') closer.text = s.slice(item, start);
    start = item;
  }
  if (into !== undefined && owed !== undefined) for (let k = owed.length - 1; k >= 0; k--) into.push(owed[k] as WrapperCloser);
  return start;
}

/** Where one opener ending at `end` starts (its closer goes to `owed`); -1 when none ends there. */
function itemStart(s: string, end: number, floor: number, lineStart: boolean, partial: boolean, tight: boolean, owed: WrapperCloser[] | undefined): number {
  const marker = markerEndingAt(s, end, floor);
  if (marker >= 0) return marker;
  const last = s.charCodeAt(end - 1);
  if (last === 0x5b) {
    owed?.push({ kind: 'bracket', text: '[' });
    return end - 1;
  }
  if (last === GT) {
    let i = end - 1;
    while (i > floor && end - 1 - i < MAX_TAG_NAME && isTagNameCode(s.charCodeAt(i - 1))) i--;
    if (i === end - 1 || i === floor || s.charCodeAt(i - 1) !== LT) return -1;
    const first = s.charCodeAt(i);
    if (!((first >= 0x61 && first <= 0x7a) || (first >= 0x41 && first <= 0x5a) || first === 0x5f || first === PIPE)) return -1;
    const name = s.slice(i, end - 1);
    if (!isWrapperName(name)) return -1;
    owed?.push(first === PIPE ? { kind: 'token' } : { kind: 'tag', name });
    return i - 1;
  }
  // A fence with or without its language.
  let i = end;
  while (i > floor && end - i < MAX_LANGUAGE && isWordCode(s.charCodeAt(i - 1))) i--;
  let k = i;
  while (k > floor && i - k <= MAX_FENCE && s.charCodeAt(k - 1) === BACKTICK) k--;
  const run = i - k;
  if (run >= MIN_FENCE && run <= MAX_FENCE) {
    owed?.push({ kind: 'fence', text: '' });
    return k;
  }
  if (run > 0 && run < MIN_FENCE && i === end) {
    if (partial) return k;
    if (tight) {
      owed?.push({ kind: 'code', length: run, text: '' });
      return k;
    }
  }
  for (const word of OPENER_WORDS) {
    const at = end - word.length;
    if (at >= floor && s.startsWith(word, at) && startsLine(s, at, lineStart)) return at;
  }
  if (partial) {
    // `<`, `<name`, `<|name|`: a tag's start (read before the words: `<functools` is a tag's start).
    k = end;
    while (k > floor && end - k < MAX_TAG_NAME && isTagNameCode(s.charCodeAt(k - 1))) k--;
    if (k > floor && s.charCodeAt(k - 1) === LT) return k - 1;
  }
  return -1;
}

/** Where the end of `s` starts what may still grow into an opener word (`funct`, `function c`); `s.length` when nothing does. */
function partialWordStart(s: string, floor: number, lineStart: boolean): number {
  const end = s.length;
  for (let at = Math.max(floor, end - LONGEST_WORD + 1); at < end; at++) {
    if (!WORD_FIRST.has(s.charCodeAt(at)) || !startsLine(s, at, lineStart)) continue;
    const tail = s.slice(at);
    if (OPENER_WORDS.some((word) => word.length > tail.length && word.startsWith(tail))) return at;
  }
  return end;
}

/**
 * How long the closer of `owed` at `i` is: `</name>` for a tag of that name, a special token
 * (`<|action_end|>`) for a token, a fence without a language for a fence, `]` for a bracket,
 * the same number of backticks for a code span. 0 when it is not
 * there; -1 when `s` ends inside what may still become it (never when `final`: nothing follows).
 */
export function closerLength(s: string, i: number, owed: WrapperCloser, final: boolean): number {
  const open = final ? 0 : -1;
  const c = s.charCodeAt(i);
  if (owed.kind === 'bracket') return c === 0x5d ? 1 : 0;
  if (c === BACKTICK && owed.kind === 'code') {
    let k = i;
    while (k < s.length && k - i <= owed.length && s.charCodeAt(k) === BACKTICK) k++;
    // More backticks may still come (a fence): the next piece decides.
    if (k === s.length && k - i <= owed.length && !final) return -1;
    return k - i === owed.length ? owed.length : 0;
  }
  if (c === BACKTICK) {
    if (owed.kind !== 'fence') return 0;
    let k = i;
    while (k < s.length && k - i <= MAX_FENCE && s.charCodeAt(k) === BACKTICK) k++;
    const run = k - i;
    if (run > MAX_FENCE) return 0;
    // A language may still follow: then it opens a block rather than closing this one.
    if (k === s.length) return run >= MIN_FENCE && final ? run : open;
    return run >= MIN_FENCE && !isWordCode(s.charCodeAt(k)) ? run : 0;
  }
  if (c !== LT || owed.kind === 'fence' || owed.kind === 'code') return 0;
  if (i + 1 === s.length) return open;
  const second = s.charCodeAt(i + 1);
  if (owed.kind === 'token' ? second !== PIPE : second !== SLASH) return 0;
  const nameStart = owed.kind === 'token' ? i + 1 : i + 2;
  let k = nameStart;
  while (k < s.length && k - nameStart < MAX_TAG_NAME && isTagNameCode(s.charCodeAt(k))) k++;
  if (owed.kind === 'tag' && !owed.name.startsWith(s.slice(nameStart, k))) return 0;
  if (k === s.length) return open;
  if (s.charCodeAt(k) !== GT || k === nameStart) return 0;
  if (owed.kind === 'tag' && k - nameStart !== owed.name.length) return 0;
  return k + 1 - i;
}
