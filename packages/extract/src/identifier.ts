// Character classes of the tool-call scanner. ASCII is decided by comparisons; other
// characters by a single-character Unicode property test (no backtracking possible).
import { isToolNameUnit } from '@toolwire/core';

const ID_START = /^[\p{ID_Start}_]$/u;
const ID_CONTINUE = /^[\p{ID_Continue}]$/u;

/** Longest name the scanner accepts; longer identifier runs are never held back as a possible name. */
export const MAX_NAME_LENGTH = 128;

function isAsciiWord(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/** A UTF-16 unit that can be part of an identifier (surrogate halves count: astral letters). */
export function isIdentifierUnit(c: number): boolean {
  if (c < 0x80) return isAsciiWord(c);
  if (c >= 0xd800 && c <= 0xdfff) return true;
  return ID_CONTINUE.test(String.fromCharCode(c));
}

/** `isNameRunUnit` of the ASCII characters, by table: it runs on every character of a name, backwards and forwards. */
const NAME_RUN_ASCII = new Uint8Array(0x80);
for (let c = 0; c < 0x80; c++) NAME_RUN_ASCII[c] = c === 0x2e || isToolNameUnit(c) ? 1 : 0;

/**
 * A unit of a possible name: identifier units, `.` (dotted names) and `-` (core's tool-name
 * rule allows it: `weather-now`). ASCII follows `isToolNameUnit` from core.
 */
export function isNameRunUnit(c: number): boolean {
  if (c < 0x80) return NAME_RUN_ASCII[c] === 1;
  return isIdentifierUnit(c);
}

/**
 * Characters of scripts written without spaces between words (CJK, kana, Hangul, Thai, Lao,
 * Khmer, Myanmar, Yi, full-width forms) and astral characters (surrogates: rare ideographs,
 * emoji). Prose in these scripts runs straight into an ASCII name: `请调用get_weather(`.
 */
function isUnspacedScript(c: number): boolean {
  // Below the first range (ASCII, Latin, Greek, Cyrillic…): decided by one comparison.
  if (c < 0x0e00) return false;
  return (
    (c >= 0x0e00 && c <= 0x109f) ||
    (c >= 0x1780 && c <= 0x17ff) ||
    (c >= 0x2e80 && c <= 0xa4cf) ||
    (c >= 0xac00 && c <= 0xd7af) ||
    (c >= 0xd800 && c <= 0xdfff) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xff00 && c <= 0xffef)
  );
}

/** Whether a name may start at `next` after `before`: an unspaced-script character followed by ASCII. */
export function isScriptBoundary(before: number, next: number): boolean {
  return next < 0x80 && isUnspacedScript(before);
}

function isIdentifierStart(c: number): boolean {
  if (c < 0x80) return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
  if (c >= 0xd800 && c <= 0xdbff) return true;
  return ID_START.test(String.fromCharCode(c));
}

/**
 * Whether `name` is a name the scanner accepts without an allow-list: identifiers joined by
 * `.` or `-` (`search`, `math.factorial`, `weather-now`, `天气`). A part after `.` starts
 * like an identifier; a part after `-` may start with a digit (`gpt-4o`). No empty parts, so
 * `-b` or `a--b` are never names.
 */
export function isValidName(name: string): boolean {
  return isValidNameIn(name, 0, name.length);
}

/**
 * A namespaced name, `ns::tool` (valid names joined by `::`, as namespace tools and some
 * templates write them). Accepted without an allow-list where a format's own markup delimits
 * the name (native blocks, JSON), never in call syntax (`std::move(x)` is C++); there, only a
 * listed path is read (the scanner's `callNameStart`).
 */
export function isNamespacedName(name: string): boolean {
  if (name.length > MAX_NAME_LENGTH) return false;
  let parts = 0;
  let from = 0;
  while (true) {
    const at = name.indexOf('::', from);
    const end = at < 0 ? name.length : at;
    if (!isValidNameIn(name, from, end)) return false;
    parts++;
    if (at < 0) return parts > 1;
    from = at + 2;
  }
}

/** `isValidName` of `s[start, end)`, read in place (the scanner checks names without cutting them out). */
export function isValidNameIn(s: string, start: number, end: number): boolean {
  if (end <= start || end - start > MAX_NAME_LENGTH) return false;
  let partStart = true;
  let afterHyphen = false;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2e || c === 0x2d) {
      if (partStart) return false;
      partStart = true;
      afterHyphen = c === 0x2d;
    } else if (partStart) {
      if (afterHyphen ? !isIdentifierUnit(c) : !isIdentifierStart(c)) return false;
      partStart = false;
    } else if (!isIdentifierUnit(c)) {
      return false;
    }
  }
  return !partStart;
}

/** Whitespace as the scanner sees it. */
export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c || c === 0xa0;
}

/**
 * Letters and digits (ASCII or not): a `'` right after one is an apostrophe, not a quote. A
 * no-break space (U+00A0, U+FEFF) is a space here, as core's argument reading takes it: after
 * one, a `'` opens a string in both, so the frame scan and the reading end a call at the same `)`.
 */
export function isWordUnit(c: number): boolean {
  return isAsciiWord(c) || (c >= 0x80 && c !== 0xa0 && c !== 0xfeff);
}

const DEFINITION_KEYWORDS = ['def', 'function', 'fn', 'func', 'fun', 'sub', 'proc'];
/** The last letters of `DEFINITION_KEYWORDS` (1), by character code. */
const KEYWORD_LAST = new Uint8Array(0x80);
for (const keyword of DEFINITION_KEYWORDS) KEYWORD_LAST[keyword.charCodeAt(keyword.length - 1)] = 1;

/**
 * Whether the text before a name makes it a definition (`def search(`, `function search(`)
 * rather than a call. Looks only at `before[from, end)`, the text right before the name.
 */
export function endsWithDefinitionKeyword(before: string, end: number = before.length, from = 0): boolean {
  let i = end;
  while (i > from && isSpace(before.charCodeAt(i - 1))) i--;
  if (i === end || i === from) return false;
  // Most text before a name (`, ` in a list of calls) ends in no keyword's last letter.
  const last = before.charCodeAt(i - 1);
  if (last >= 0x80 || KEYWORD_LAST[last] !== 1) return false;
  for (const keyword of DEFINITION_KEYWORDS) {
    const start = i - keyword.length;
    if (start < from || !before.startsWith(keyword, start)) continue;
    if (start === from || !isIdentifierUnit(before.charCodeAt(start - 1))) return true;
  }
  return false;
}

/** Control-flow words that are followed by `(` in code but are never tool calls (any-name mode). */
export const NOT_CALL_NAMES: ReadonlySet<string> = new Set([
  'if',
  'elif',
  'for',
  'foreach',
  'while',
  'switch',
  'catch',
  'return',
  'function',
  'def',
  'lambda',
  'typeof',
  'sizeof',
  'with',
  'and',
  'or',
  'not',
  'in',
  'assert',
  'await',
  'yield',
  'new',
]);

/** Length of the longest of `NOT_CALL_NAMES`: a longer name is never one of them (no string cut out to ask). */
export const NOT_CALL_NAME_LENGTH = Math.max(...[...NOT_CALL_NAMES].map((name) => name.length));
