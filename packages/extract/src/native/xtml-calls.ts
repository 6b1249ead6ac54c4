import { isJsonSpace, skipSpace, tryJson } from './json-extent.ts';
import { Finder, setOwn } from './native-call.ts';
import type { NativeCall } from './native-call.ts';

/** Kimi K3's XTML markers: `<|open|>TAG ATTRS<|sep|>BODY<|close|>TAG<|sep|>`. */
const OPEN = '<|open|>';
const SEP = '<|sep|>';
const CALL = `${OPEN}call`;
const CALL_CLOSE = '<|close|>call<|sep|>';
const ARGUMENT = `${OPEN}argument`;
const ARGUMENT_CLOSE = '<|close|>argument<|sep|>';
const MAX_HEADER = 300;

/** `key="value"` in an XTML header, with the template's `&quot;` and `&amp;` undone. */
function xtmlAttribute(header: string, key: string): string | undefined {
  let from = 0;
  while (from < header.length) {
    const at = header.indexOf(`${key}="`, from);
    if (at < 0) return undefined;
    from = at + key.length + 2;
    if (at > 0 && !isJsonSpace(header.charCodeAt(at - 1))) continue;
    const close = header.indexOf('"', from);
    if (close < 0) return undefined;
    return header.slice(from, close).replaceAll('&quot;', '"').replaceAll('&amp;', '&');
  }
  return undefined;
}

/** The header of a tag opened at `at` (`<|open|>call …<|sep|>`): its text and where the body starts, or undefined. */
function header(text: string, at: number, tag: string, to: number): { attrs: string; body: number } | undefined {
  // Searched only as far as a header may reach: a search to the block's end from every one of
  // many openers without a `<|sep|>` would be quadratic.
  const window = text.slice(at + tag.length, Math.min(to, at + MAX_HEADER + SEP.length));
  const found = window.indexOf(SEP);
  if (found < 0) return undefined;
  const sep = at + tag.length + found;
  // `<|open|>callx` is another tag.
  const after = text.charCodeAt(at + tag.length);
  if (sep !== at + tag.length && !isJsonSpace(after)) return undefined;
  return { attrs: text.slice(at + tag.length, sep), body: sep + SEP.length };
}

/**
 * Kimi K3 calls in a tools channel (`text[from, to)`, between `<|open|>tools<|sep|>` and
 * `<|close|>tools<|sep|>`): `<|open|>call tool="NAME" index="1"<|sep|>` then arguments
 * `<|open|>argument key="K" type="T"<|sep|>VALUE<|close|>argument<|sep|>`, closed by
 * `<|close|>call<|sep|>`. A `string` value is the raw text; any other type is JSON (the raw
 * text when it does not parse). A value ends at the first argument close. Linear: every
 * search resumes past its last hit.
 */
export function parseXtmlCalls(text: string, from: number, to: number): NativeCall[] {
  const calls: NativeCall[] = [];
  const opens = new Finder(text, CALL, to);
  const argumentCloses = new Finder(text, ARGUMENT_CLOSE, to);
  let pos = from;
  while (pos < to) {
    const start = opens.next(pos);
    if (start < 0) break;
    const head = header(text, start, CALL, to);
    if (head === undefined) {
      pos = start + CALL.length;
      continue;
    }
    const name = xtmlAttribute(head.attrs, 'tool') ?? '';
    const values: Record<string, unknown> = {};
    let i = head.body;
    let closed = false;
    while (i < to) {
      i = skipSpace(text, i, to);
      if (text.startsWith(CALL_CLOSE, i)) {
        i += CALL_CLOSE.length;
        closed = true;
        break;
      }
      const argument = text.startsWith(ARGUMENT, i) ? header(text, i, ARGUMENT, to) : undefined;
      if (argument === undefined) {
        // Stray text inside a call: on to the next marker.
        const next = text.indexOf('<|', i + 1);
        if (next < 0 || next >= to) break;
        i = next;
        continue;
      }
      const end = argumentCloses.next(argument.body);
      if (end < 0) break;
      const raw = text.slice(argument.body, end);
      const key = xtmlAttribute(argument.attrs, 'key');
      const type = xtmlAttribute(argument.attrs, 'type') ?? 'string';
      if (key !== undefined && key !== '') {
        const parsed = type === 'string' ? undefined : tryJson(raw.trim());
        setOwn(values, key, parsed === undefined ? raw : parsed.value);
      }
      i = end + ARGUMENT_CLOSE.length;
    }
    if (!closed) break;
    if (name !== '') calls.push({ name, args: values, end: i });
    pos = i;
  }
  return calls;
}
