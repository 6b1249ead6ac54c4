/** What stands where a secret was. */
export const REDACTED = '[redacted]';

/** Shorter values are left alone: they would redact ordinary words. */
export const MIN_SECRET_LENGTH = 8;

/**
 * A secret this long or longer (an API key, a token) is also redacted where only a piece of
 * it shows: any `FRAGMENT` or more of its characters in a row. What servers show to name a
 * key (OpenAI's `sk-abc…wxyz`, 4 or so characters at each end) stays readable; a longer
 * piece, which with others could rebuild much of the key, does not. A shorter secret (a
 * password, a short token) is redacted only whole: its pieces are too often plain words
 * (`upstream` in `sk-upstream`).
 */
const PIECES_FROM = 20;
const FRAGMENT = 10;

/**
 * Turns a text into secret-free text. With `maxChars`, only the text's start is kept: at most
 * `maxChars` characters (more when a redaction runs across the cut), redacted with what follows
 * them as context, so a secret that begins before the cut is found as it would be in the whole
 * text, and then `… (N more characters)`. What it costs depends on the start, not on the
 * whole: for text nobody reads whole (a megabytes-long error body), where the whole would
 * block the event loop.
 */
export type SecretRedactor = (text: string, maxChars?: number) => string;

/**
 * A redactor for `secrets` (each at least 8 characters; shorter and undefined ones are
 * ignored): it replaces each secret with `[redacted]` in the spellings a server or a proxy
 * echoes it in, not only the exact one:
 * - in any letter case;
 * - percent-encoded (`%2B`, `%2f`, even twice: `%252F`), as in a query string;
 * - escaped as in JSON, JavaScript or Markdown (`\/`, `\u002F`, `\x2F`, `\\\/` inside a
 *   JSON string inside a JSON string) or as an HTML character reference (`&#x2F;`, `&#47;`);
 * - base64 (standard or URL-safe) inside a longer value, as in `Authorization: Basic`
 *   (`user:key`): the whole base64 run is redacted;
 * - cut, for a secret of 20 characters or more: any run of 10 or more of its characters,
 *   so a prefix followed by `...` is redacted, while the 4 + 4 characters servers show to
 *   name a key stay. A shorter secret is redacted only whole.
 * A match takes the token characters glued to it (`A-Z a-z 0-9 + / = - _`) with it.
 *
 * One pass over the text for the long secrets and all their spellings, and one for the short
 * ones, each linear in the text's length whatever it holds. Build it once for many texts.
 */
export function createSecretRedactor(secrets: readonly (string | undefined)[]): SecretRedactor {
  const long: string[] = [];
  const whole: string[] = [];
  const automata: SecretAutomaton[] = [];
  for (const secret of new Set(secrets)) {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) continue;
    const spellings = [secret, ...base64Cores(secret).filter((core) => core.length >= MIN_SECRET_LENGTH)];
    // A secret that holds what reads as an escape (`%45`, `\/`, `&#47;`, as a random password
    // may) is read from the text as the character it stands for: that reading is a spelling too.
    const decoded = decodedSpelling(secret);
    if (decoded !== secret && decoded.length >= MIN_SECRET_LENGTH) spellings.push(decoded);
    if (secret.length >= PIECES_FROM) long.push(...spellings);
    else whole.push(...spellings);
  }
  if (long.length > 0) automata.push(new SecretAutomaton(long, FRAGMENT));
  if (whole.length > 0) automata.push(new SecretAutomaton(whole, 'whole'));
  if (automata.length === 0) return (text, maxChars) => (maxChars === undefined ? text : cutText(text, maxChars));
  return (text, maxChars) => (maxChars === undefined || text.length <= maxChars ? redactWith(text, automata, text.length) : redactWith(text, automata, checkedMaxChars(maxChars)));
}

function checkedMaxChars(maxChars: number): number {
  if (!Number.isSafeInteger(maxChars) || maxChars < 0) throw new RangeError(`maxChars must be a whole number of characters; got ${String(maxChars)}.`);
  return maxChars;
}

/** What stands after a text that was cut: how much of it was left out. */
function cutNote(leftOut: number): string {
  return `… (${leftOut} more characters)`;
}

/** `text` cut to `maxChars` characters (never inside a surrogate pair), saying how many were left out. */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= checkedMaxChars(maxChars)) return text;
  const cut = isLowSurrogate(text.charCodeAt(maxChars)) && maxChars > 0 ? maxChars - 1 : maxChars;
  return text.slice(0, cut) + cutNote(text.length - cut);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** `text` with each of `secrets` redacted in every spelling `createSecretRedactor` knows. */
export function redactSecretText(text: string, secrets: readonly (string | undefined)[]): string {
  return createSecretRedactor(secrets)(text);
}

// ── Folding: what counts as the same character ──────────────────────────────────────────

/**
 * Letters in either case are one; so are base64's `+` `/` and base64url's `-` `_` (a key
 * that differs from the secret only there is still taken for it: over-redaction is cheap).
 */
function fold(code: number): number {
  if (code >= 0x41 && code <= 0x5a) return code + 0x20;
  if (code === 0x2d) return 0x2b;
  if (code === 0x5f) return 0x2f;
  if (code < 0x80) return code;
  // Beyond ASCII, a letter's lower case where it is one character (`Ä` and `ä`).
  const lower = String.fromCharCode(code).toLowerCase();
  return lower.length === 1 ? lower.charCodeAt(0) : code;
}

/**
 * The parts of the base64 of `secret` that do not depend on what is encoded around it, for
 * each of the three positions it can take in a longer value (`user:key`): whole 3-byte
 * groups of the secret only.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let lead = 0; lead < 3; lead++) {
    const padded = Buffer.concat([Buffer.alloc(lead), bytes]);
    const encoded = padded.toString('base64');
    const start = lead === 0 ? 0 : 4;
    const end = Math.floor(padded.length / 3) * 4;
    if (end > start) cores.push(encoded.slice(start, end));
  }
  return cores;
}

/** `text` as the redactor reads it: each escape or encoding taken for the character it stands for. */
function decodedSpelling(text: string): string {
  const unit: Unit = { code: 0, end: 0 };
  let out = '';
  let plainUntil = 0;
  for (let i = 0; i < text.length; i = unit.end) {
    plainUntil = readUnit(text, i, plainUntil, unit);
    out += String.fromCharCode(unit.code);
  }
  return out;
}

// ── Units: one character of the text as it means, with where it is spelled ─────────────

/**
 * The unit that begins at a position: one character after decoding one escape or encoding
 * (`%2F`, `\/`, `\u002F`, `&#47;`), or a plain character. Reused for every unit (no
 * allocation per character).
 */
interface Unit {
  code: number;
  end: number;
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  return -1;
}

function hexAt(text: string, at: number, digits: number): number {
  if (at + digits > text.length) return -1;
  let value = 0;
  for (let i = 0; i < digits; i++) {
    const digit = hexValue(text.charCodeAt(at + i));
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * The byte a `%XX` at `at` stands for (`%252F`, encoded twice or deeper, too), its end in
 * `unit.end`; -1 (and `unit` as it was) when there is none.
 */
function percentByte(text: string, at: number, unit: Unit): number {
  let byte = hexAt(text, at + 1, 2);
  if (byte < 0) return -1;
  let end = at + 3;
  while (byte === 0x25 && hexAt(text, end, 2) >= 0) {
    byte = hexAt(text, end, 2);
    end += 2;
  }
  unit.code = byte;
  unit.end = end;
  return byte;
}

function isAsciiPunctuation(code: number): boolean {
  return (code >= 0x21 && code <= 0x2f) || (code >= 0x3a && code <= 0x40) || (code >= 0x5b && code <= 0x60) || (code >= 0x7b && code <= 0x7e);
}

/**
 * Reads the unit at `i` into `unit`. `plainUntil`: the end of a run of backslashes already
 * found to escape nothing, whose backslashes are plain units (so a long run is scanned once).
 * Every character is looked at a bounded number of times.
 */
function readUnit(text: string, i: number, plainUntil: number, unit: Unit): number {
  const length = text.length;
  const code = text.charCodeAt(i);
  unit.code = code;
  unit.end = i + 1;
  if (code === 0x25) {
    // `%2F`, and `%252F` (encoded twice) or deeper.
    const byte = percentByte(text, i, unit);
    if (byte >= 0xc2 && byte < 0xf0) {
      // The UTF-8 of a character outside ASCII (`%C3%A4`), one or two continuation bytes more.
      const lead = unit.end;
      let value = byte < 0xe0 ? byte & 0x1f : byte & 0x0f;
      for (let more = byte < 0xe0 ? 1 : 2; more > 0; more--) {
        const next = unit.end < length && text.charCodeAt(unit.end) === 0x25 ? percentByte(text, unit.end, unit) : -1;
        if (next < 0x80 || next > 0xbf) {
          value = -1;
          break;
        }
        value = (value << 6) | (next & 0x3f);
      }
      if (value >= 0x80) {
        unit.code = value;
      } else {
        unit.code = byte;
        unit.end = lead;
      }
    }
  } else if (code === 0x5c && i >= plainUntil) {
    // A run of backslashes (one per level of string nesting) and then an escape.
    let run = i;
    while (run < length && text.charCodeAt(run) === 0x5c) run++;
    const next = run < length ? text.charCodeAt(run) : -1;
    let escaped = -1;
    let end = run + 1;
    if (next === 0x75) {
      escaped = hexAt(text, run + 1, 4);
      end = run + 5;
    } else if (next === 0x78) {
      escaped = hexAt(text, run + 1, 2);
      end = run + 3;
    } else if (isAsciiPunctuation(next)) {
      escaped = next;
    }
    if (escaped >= 0) {
      unit.code = escaped;
      unit.end = end;
    } else {
      return run;
    }
  } else if (code === 0x26 && i + 2 < length && text.charCodeAt(i + 1) === 0x23) {
    // `&#47;` or `&#x2F;` (at most 5 digits).
    const hex = text.charCodeAt(i + 2) === 0x78 || text.charCodeAt(i + 2) === 0x58;
    let at = hex ? i + 3 : i + 2;
    const first = at;
    let number = 0;
    while (at < length && at - first < 5) {
      const digit = hex ? hexValue(text.charCodeAt(at)) : text.charCodeAt(at) - 0x30;
      if (digit < 0 || digit > (hex ? 15 : 9)) break;
      number = number * (hex ? 16 : 10) + digit;
      at++;
    }
    if (at > first && at < length && text.charCodeAt(at) === 0x3b) {
      unit.code = number;
      unit.end = at + 1;
    }
  }
  return plainUntil;
}

// ── Matching: every run of `fragment` or more units that is a piece of a secret ────────

/**
 * A suffix automaton of all spellings of the secrets, one after the other with a separator
 * the text cannot hold between them: reading the text's units through it gives, at each
 * unit, the longest piece of a spelling ending there, in amortised constant time.
 */
class SecretAutomaton {
  readonly #alphabet = new Map<number, number>();
  /** The alphabet index of each ASCII code (-1: in no secret), the hot path's lookup. */
  readonly #ascii = new Int32Array(128);
  /**
   * The alphabet index of each character beyond ASCII in either case (looked up without
   * folding, which would cost a string per character); absent when every spelling is ASCII.
   */
  readonly #wide: Map<number, number> | undefined;
  readonly #size: number;
  /** Where each of the last units began, for the start of a piece that ends at the current one. */
  readonly #ring: Int32Array;
  readonly #next: Int32Array;
  readonly #link: Int32Array;
  readonly #length: Int32Array;
  /** Pieces of at least this many units count; 0: only whole spellings do. */
  readonly fragment: number;
  /**
   * For whole spellings: the lengths of the spellings among each state's strings (a state
   * holds one string of each length in its range), the shortest of them (0: none), and the
   * longest spelling among the strings of the states up its suffix links, all of which are
   * suffixes of any string of the state.
   */
  readonly #own = new Map<number, number[]>();
  readonly #ownMin: Int32Array;
  readonly #ancestorMax: Int32Array;

  constructor(spellings: readonly string[], fragment: number | 'whole') {
    this.fragment = fragment === 'whole' ? 0 : fragment;
    const codes: number[] = [];
    for (const [index, spelling] of spellings.entries()) {
      // A separator is negative: no unit of a text is, so no match spans one. One for all
      // keeps the alphabet (a row of the table per state) small whatever the number of secrets.
      if (index > 0) codes.push(-1);
      for (let i = 0; i < spelling.length; i++) codes.push(fold(spelling.charCodeAt(i)));
    }
    for (const code of codes) if (!this.#alphabet.has(code)) this.#alphabet.set(code, this.#alphabet.size);
    const wide = new Map<number, number>();
    for (const [code, index] of this.#alphabet) {
      if (code < 128) continue;
      wide.set(code, index);
      const upper = String.fromCharCode(code).toUpperCase();
      if (upper.length === 1) wide.set(upper.charCodeAt(0), index);
    }
    this.#wide = wide.size > 0 ? wide : undefined;
    for (let code = 0; code < 128; code++) this.#ascii[code] = this.#alphabet.get(fold(code)) ?? -1;
    const size = this.#alphabet.size;
    const capacity = 2 * codes.length + 1;
    const next = new Int32Array(capacity * size).fill(-1);
    const link = new Int32Array(capacity).fill(-1);
    const length = new Int32Array(capacity);
    let states = 1;
    let last = 0;
    for (const code of codes) {
      const c = this.#alphabet.get(code) ?? 0;
      const current = states++;
      length[current] = (length[last] ?? 0) + 1;
      let p = last;
      while (p >= 0 && (next[p * size + c] ?? -1) < 0) {
        next[p * size + c] = current;
        p = link[p] ?? -1;
      }
      if (p < 0) {
        link[current] = 0;
      } else {
        const q = next[p * size + c] ?? 0;
        if ((length[p] ?? 0) + 1 === length[q]) {
          link[current] = q;
        } else {
          const clone = states++;
          length[clone] = (length[p] ?? 0) + 1;
          next.copyWithin(clone * size, q * size, q * size + size);
          link[clone] = link[q] ?? 0;
          while (p >= 0 && next[p * size + c] === q) {
            next[p * size + c] = clone;
            p = link[p] ?? -1;
          }
          link[q] = clone;
          link[current] = clone;
        }
      }
      last = current;
    }
    this.#size = size;
    this.#ring = new Int32Array(codes.length + 1);
    this.#next = next;
    this.#link = link;
    this.#length = length;
    this.#ownMin = new Int32Array(fragment === 'whole' ? states : 0);
    this.#ancestorMax = new Int32Array(fragment === 'whole' ? states : 0);
    if (fragment === 'whole') this.#markSpellings(spellings, states);
  }

  /** Finds the state of each whole spelling, and for each state the longest one up its links. */
  #markSpellings(spellings: readonly string[], states: number): void {
    const size = this.#size;
    const ownMax = new Int32Array(states);
    for (const spelling of spellings) {
      let state = 0;
      for (let i = 0; i < spelling.length; i++) state = this.#next[state * size + (this.#alphabet.get(fold(spelling.charCodeAt(i))) ?? 0)] ?? 0;
      const lengths = this.#own.get(state) ?? [];
      if (!lengths.includes(spelling.length)) lengths.push(spelling.length);
      this.#own.set(state, lengths);
      const min = this.#ownMin[state] ?? 0;
      if (min === 0 || spelling.length < min) this.#ownMin[state] = spelling.length;
      ownMax[state] = Math.max(ownMax[state] ?? 0, spelling.length);
    }
    // States by length: a state's suffix link is shorter, so it is done first.
    const order = Array.from({ length: states }, (_, state) => state).sort((a, b) => (this.#length[a] ?? 0) - (this.#length[b] ?? 0));
    for (const state of order) {
      const up = this.#link[state] ?? -1;
      if (up >= 0) this.#ancestorMax[state] = Math.max(this.#ancestorMax[up] ?? 0, ownMax[up] ?? 0);
    }
  }

  /** The longest whole spelling that ends at the current unit (0: none), in `state` after `matched` units. */
  #wholeEnding(state: number, matched: number): number {
    let found = this.#ancestorMax[state] ?? 0;
    const min = this.#ownMin[state] ?? 0;
    if (min > 0 && min <= matched) for (const length of this.#own.get(state) ?? []) if (length <= matched && length > found) found = length;
    return found;
  }

  /**
   * Adds the `[start, end)` text spans of every piece of at least `fragment` units to
   * `spans`, by start. Units are decoded as they are read; only the starts of the last
   * `longest` units are kept (no piece is longer), so memory does not grow with the text.
   *
   * Reads only as far as the text before `keep` needs: past `keep`, it stops where no
   * piece that began before `keep` can still go on (the longest one ending here begins at
   * `keep` or later), or at `stop` at the latest. Returns where the text may be cut: `keep`,
   * or, when a piece begun before it was still going on at `stop`, that piece's start.
   */
  collect(text: string, spans: number[], keep: number, stop: number): number {
    const size = this.#size;
    const next = this.#next;
    const link = this.#link;
    const stateLength = this.#length;
    const ascii = this.#ascii;
    const fragment = this.fragment;
    const ring = this.#ring;
    const ringSize = ring.length;
    const unit: Unit = { code: 0, end: 0 };
    let state = 0;
    let matched = 0;
    let openStart = -1;
    let openEnd = -1;
    let plainUntil = 0;
    let slot = 0;
    let end: number;
    let cut = keep;
    for (let i = 0; i < text.length; i = end, slot = slot + 1 === ringSize ? 0 : slot + 1) {
      if (i >= keep) {
        // The longest piece ending before `i` began at `keep` or later: nothing before the cut goes on.
        if (matched === 0 || (ring[(slot - matched + ringSize) % ringSize] ?? 0) >= keep) break;
        if (i >= stop) {
          cut = ring[(slot - matched + ringSize) % ringSize] ?? 0;
          break;
        }
      }
      let code = text.charCodeAt(i);
      // Only `%`, `\` and `&` can begin an encoded character.
      if (code === 0x25 || code === 0x5c || code === 0x26) {
        plainUntil = readUnit(text, i, plainUntil, unit);
        code = unit.code;
        end = unit.end;
      } else {
        end = i + 1;
      }
      ring[slot] = i;
      // A text's characters beyond ASCII are looked up only when a secret has some.
      const c = code < 128 ? (ascii[code] ?? -1) : (this.#wide?.get(code) ?? -1);
      if (c < 0) {
        state = 0;
        matched = 0;
      } else {
        while (state > 0 && (next[state * size + c] ?? -1) < 0) {
          state = link[state] ?? 0;
          matched = stateLength[state] ?? 0;
        }
        const to = next[state * size + c] ?? -1;
        if (to >= 0) {
          state = to;
          matched++;
        } else {
          matched = 0;
        }
      }
      let found = matched;
      if (fragment === 0) {
        found = matched === 0 ? 0 : this.#wholeEnding(state, matched);
        if (found === 0) continue;
      } else if (matched < fragment) {
        continue;
      }
      const first = ring[(slot - found + 1 + ringSize) % ringSize] ?? 0;
      if (openStart >= 0 && first <= openEnd) {
        // A longer whole spelling may begin before the one that opened the span.
        if (first < openStart) openStart = first;
        openEnd = end;
      } else {
        if (openStart >= 0) spans.push(openStart, openEnd);
        openStart = first;
        openEnd = end;
      }
    }
    if (openStart >= 0) spans.push(openStart, openEnd);
    return cut;
  }
}

/** `[start, end]` pairs sorted by start. */
function byStart(spans: readonly number[]): number[] {
  const order: number[] = [];
  for (let i = 0; i < spans.length; i += 2) order.push(i);
  order.sort((a, b) => (spans[a] ?? 0) - (spans[b] ?? 0));
  const sorted: number[] = [];
  for (const at of order) sorted.push(spans[at] ?? 0, spans[at + 1] ?? 0);
  return sorted;
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function isBase64Char(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x2b || code === 0x2f || code === 0x3d || code === 0x2d || code === 0x5f
  );
}

/**
 * How far past the cut a redaction with `maxChars` reads, at most, for a piece of a secret
 * that began before it: a secret's spelling is far shorter, unless it is escaped many times
 * over (then the text is cut before it).
 */
function readPast(maxChars: number): number {
  return Math.max(maxChars, 4096);
}

/**
 * Replaces each matched span, widened to the whole run of base64 characters around it (a
 * Basic credential's user and edges; a key glued to other token characters), with
 * `[redacted]`. Spans come by start and do not overlap, so each character is walked once.
 * Keeps the text up to `keep` (see `SecretRedactor`).
 */
function redactWith(text: string, automata: readonly SecretAutomaton[], keep: number): string {
  if (text.length < MIN_SECRET_LENGTH) return keep < text.length ? cutText(text, keep) : text;
  let spans: number[] = [];
  let cut = text.length;
  const stop = Math.min(text.length, keep + readPast(keep));
  for (const automaton of automata) cut = Math.min(cut, automaton.collect(text, spans, keep, stop));
  if (spans.length === 0) return cut < text.length ? cutText(text, tokenStart(text, cut, 0)) : text;
  // Spans come by start from one automaton of pieces; several, or whole spellings of several lengths, are put in order.
  if (automata.length > 1 || automata[0]?.fragment === 0) spans = byStart(spans);
  let out = '';
  let copied = 0;
  for (let i = 0; i < spans.length; i += 2) {
    let start = spans[i] ?? 0;
    let end = spans[i + 1] ?? 0;
    if (start >= cut) break;
    if (end <= copied) continue;
    start = Math.max(start, copied);
    // Blank space at a span's edges (a piece of `Bearer sk-…`) tells nothing: it stays.
    while (start < end && isBlank(text.charCodeAt(start))) start++;
    while (end > start && isBlank(text.charCodeAt(end - 1))) end--;
    // Only a span that begins or ends inside a token widens there (one that begins with the
    // secret's own space leaves the word before it). Padding (`=`) only ends a value: to the
    // left it is a name's `=` (`token=…`).
    if (isBase64Char(text.charCodeAt(start))) {
      while (start > copied && isBase64Char(text.charCodeAt(start - 1)) && text.charCodeAt(start - 1) !== 0x3d) start--;
    }
    // Not past the cut: what lies there is left out anyway.
    if (isBase64Char(text.charCodeAt(end - 1))) while (end < cut && isBase64Char(text.charCodeAt(end))) end++;
    // A span that overlaps or touches the one before (from another spelling) joins it.
    if (copied === 0 || start > copied) out += text.slice(copied, start) + REDACTED;
    copied = end;
  }
  if (cut >= text.length) return out + text.slice(copied);
  // The text ends at the cut, or after a redaction that runs across it.
  if (copied >= cut) return copied < text.length ? out + cutNote(text.length - copied) : out;
  const at = tokenStart(text, cut, copied);
  return out + text.slice(copied, at) + cutNote(text.length - at);
}

/**
 * Where a text cut at `cut` ends: not inside a token of up to `WHOLE_TOKEN` characters (the
 * whole text could have a match further on in it, which widens to all of it: a Basic
 * credential's user before the encoded key); inside a longer one, a base64 group (4
 * characters) earlier, so that the group an encoded key begins in, which the match does not
 * cover, is not kept; nor inside a surrogate pair; not before `from`.
 */
function tokenStart(text: string, cut: number, from: number): number {
  let at = cut;
  if (isBase64Char(text.charCodeAt(at)) && isBase64Char(text.charCodeAt(at - 1))) {
    const limit = Math.max(from, cut - WHOLE_TOKEN);
    while (at > limit && isBase64Char(text.charCodeAt(at - 1)) && text.charCodeAt(at - 1) !== 0x3d) at--;
    if (at === limit && at > from && isBase64Char(text.charCodeAt(at - 1))) at = Math.max(from, cut - 4);
  }
  return at > from && isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at;
}

/** The longest token a cut leaves out whole rather than cuts. */
const WHOLE_TOKEN = 256;
