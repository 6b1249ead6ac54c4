/**
 * What a model, a tool or a server wrote, made safe to show on a terminal: every character
 * a terminal would act on instead of print becomes a visible escape (`\x1b`, `\u009b`,
 * `\u202e`), so an escape sequence cannot move the cursor, clear the screen, set the window
 * title, write the clipboard or hide what a tool did. JSON output never goes through here.
 */

/** Shows control characters as escapes; `\n` and `\t` stay when `multiline`, a lone `\r` never does. */
export function visible(text: string, options: { multiline?: boolean } = {}): string {
  const multiline = options.multiline ?? false;
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!needsEscape(code, multiline, strictFormat(options))) continue;
    // CRLF in prose is a line end, not an overwrite.
    if (multiline && code === 0x0d && text.charCodeAt(i + 1) === 0x0a) {
      out += text.slice(start, i);
      start = i + 1;
      continue;
    }
    out += text.slice(start, i) + escapeOf(code);
    start = i + 1;
  }
  return start === 0 ? text : out + text.slice(start);
}

/** Model text as it streams: like `visible(…, { multiline: true })`, with a `\r` at a chunk's end held until the next one says whether `\n` follows. */
export function createVisibleStream(): { push(chunk: string): string; end(): string } {
  let heldCr = false;
  return {
    push(chunk) {
      let text = heldCr ? `\r${chunk}` : chunk;
      heldCr = text.endsWith('\r');
      if (heldCr) text = text.slice(0, -1);
      return visible(text, { multiline: true });
    },
    end() {
      const rest = heldCr ? visible('\r', { multiline: true }) : '';
      heldCr = false;
      return rest;
    },
  };
}

/**
 * One argument of a command the user is asked to approve: bare when it is plain ASCII, else
 * quoted with every invisible or reordering character (zero-width, bidi) shown as an escape.
 */
export function quoteArgument(arg: string): string {
  if (arg !== '' && isPlainWord(arg)) return arg;
  let out = '"';
  for (let i = 0; i < arg.length; i++) {
    const code = arg.charCodeAt(i);
    if (code === 0x22) out += '\\"';
    else if (code === 0x5c) out += '\\\\';
    else if (code === 0x0a) out += '\\n';
    else if (code === 0x0d) out += '\\r';
    else if (code === 0x09) out += '\\t';
    else if (needsEscape(code, false, true)) out += escapeOf(code);
    else out += String.fromCharCode(code);
  }
  return `${out}"`;
}

function strictFormat(options: { multiline?: boolean }): boolean {
  // Single-line contexts (names, arguments, one-line messages) also show zero-width
  // characters; prose keeps them, since emoji sequences are joined with U+200D.
  return options.multiline !== true;
}

function isPlainWord(arg: string): boolean {
  for (let i = 0; i < arg.length; i++) {
    const c = arg.charCodeAt(i);
    const ok =
      (c >= 0x30 && c <= 0x39) ||
      (c >= 0x41 && c <= 0x5a) ||
      (c >= 0x61 && c <= 0x7a) ||
      c === 0x5f || // _
      c === 0x2e || // .
      c === 0x2f || // /
      c === 0x3a || // :
      c === 0x3d || // =
      c === 0x40 || // @
      c === 0x25 || // %
      c === 0x2b || // +
      c === 0x2d; // -
    if (!ok) return false;
  }
  return true;
}

function needsEscape(code: number, multiline: boolean, strict: boolean): boolean {
  if (code < 0x20) return !(multiline && (code === 0x0a || code === 0x09));
  if (code < 0x7f) return false;
  if (code <= 0x9f) return true; // DEL and the C1 controls (U+009B is a one-byte CSI)
  if (code === 0x061c || code === 0x200e || code === 0x200f) return true; // bidi marks
  if (code >= 0x202a && code <= 0x202e) return true; // bidi embeddings and overrides
  if (code >= 0x2066 && code <= 0x2069) return true; // bidi isolates
  if (!strict) return false;
  return code === 0x00ad || code === 0x200b || code === 0x200c || code === 0x200d || code === 0x2060 || code === 0xfeff;
}

function escapeOf(code: number): string {
  if (code === 0x0d) return '\\r';
  if (code === 0x0a) return '\\n';
  if (code === 0x09) return '\\t';
  const hex = code.toString(16).padStart(2, '0');
  return code < 0x80 ? `\\x${hex}` : `\\u${hex.padStart(4, '0')}`;
}
