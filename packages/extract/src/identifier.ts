// Character classes of the tool-call scanner. ASCII is decided by comparisons; other
// characters by a single-character Unicode property test (no backtracking possible).

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

/** A unit of a possible dotted name: identifier units and `.`. */
export function isNameRunUnit(c: number): boolean {
  return c === 0x2e || isIdentifierUnit(c);
}

function isIdentifierStart(c: number): boolean {
  if (c < 0x80) return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
  if (c >= 0xd800 && c <= 0xdbff) return true;
  return ID_START.test(String.fromCharCode(c));
}

/** Whether `name` is a (dotted) identifier: `search`, `math.factorial`, `天气`. */
export function isValidName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return false;
  let partStart = true;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2e) {
      if (partStart) return false;
      partStart = true;
    } else if (partStart) {
      if (!isIdentifierStart(c)) return false;
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

/** Letters and digits (ASCII or not): a `'` right after one is an apostrophe, not a quote. */
export function isWordUnit(c: number): boolean {
  return isAsciiWord(c) || c >= 0x80;
}

const DEFINITION_KEYWORDS = ['def', 'function', 'fn', 'func', 'fun', 'sub', 'proc'];

/**
 * Whether the text before a name makes it a definition (`def search(`, `function search(`)
 * rather than a call. Looks only at `before[from, end)`, the text right before the name.
 */
export function endsWithDefinitionKeyword(before: string, end: number = before.length, from = 0): boolean {
  let i = end;
  while (i > from && isSpace(before.charCodeAt(i - 1))) i--;
  if (i === end) return false;
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
