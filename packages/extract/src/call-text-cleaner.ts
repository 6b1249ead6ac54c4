import { closerLength, isFraming, isMarkerPrefix, LONGEST_MARKER, markerAt, markerRunStart, openerRunStart, startsLine } from './call-wrappers.ts';
import type { WrapperCloser } from './call-wrappers.ts';
import { M3_MARKER } from './native/minimax-m3-calls.ts';

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The header of a harmony message (gpt-oss): a message's markers come before and after it. */
const MESSAGE_HEADER = '<|start|>assistant';

/** Whether a whole marker holds `s[k]` (the `>` of `</tool_call>` starts no marker there). */
function inMarker(s: string, k: number): boolean {
  for (let p = k - 1; p >= 0 && k - p < LONGEST_MARKER; p--) if (markerAt(s, p) > k - p) return true;
  return false;
}

/** What Kimi K2 sometimes writes as the whole answer text of a turn that only calls tools. */
const NO_CONTENT = '(no content)';

/**
 * Cleans the visible text of a text-tools answer, as a stream. It removes what only framed or
 * wrapped calls (call-wrappers.ts): right before a call, a run of openers (wrapper tags,
 * fences, opener words, markers such as `<tool_call>`, a list's `[`, an inline code span's
 * backtick against the call) and the blank space before them; between calls, separators; right
 * after the calls, the closers those owe (`</tools>`, the closing fence, `]`), markers and
 * the separators of the call's line. A fence, `[` or backtick whose closer does not come right
 * after the calls is shown again (its block holds more than calls). Markers and leaked end
 * tokens also go at the answer's start and end (a harmony message header counts as a call
 * there: the markers around it go); in text they stay. Brackets and separators of
 * text stay (`[1]`, `[x](url)`). It holds back only a possible marker prefix, a run of framing
 * characters and a possible opener (at most `MAX_OPENER` characters), so the result does not
 * depend on how the text was split.
 */
export class CallTextCleaner {
  /** A possible marker prefix at the end of the text so far. */
  private pending = '';
  /** Framing characters (brackets, separators, blank space) that what follows decides. */
  private framing = '';
  /** Text that may open a call if one follows (shown otherwise), or right after a call a closer's start. */
  private opener = '';
  /** Only framing (and closers) shown since the last call. */
  private afterCall = false;
  /** What the openers of the calls since the last shown text owe, innermost last (while `afterCall`). */
  private owed: WrapperCloser[] = [];
  /** Nothing but closers since the call: an inline code span's backticks close only right against it. */
  private tight = false;
  /** The blank space dropped before those openers: shown again before an opener that is. */
  private gap = '';
  /** Whether anything but blank space and markers came (or a call): markers before that are the answer's framing. */
  private started = false;
  /** The text after a harmony message header that `markersRead` found, still to be read. */
  private afterHeader: string | undefined;
  /** Whether the text so far ends a line (see `startsLine`): an opener word must start one. */
  private lineStart = true;
  /** The answer's opening text while it may still be Kimi's `(no content)` placeholder; undefined once decided. */
  private lead: string | undefined = '';
  /** How many characters of the placeholder `lead` has matched (after its leading space). */
  private leadMatched = 0;

  /** Text between calls; returns what can be shown now. */
  text(text: string): string {
    if (this.lead !== undefined) {
      const opening = this.lead + text;
      if (this.mayStillBePlaceholder(text)) {
        this.lead = opening;
        return '';
      }
      this.lead = undefined;
      return this.cleaned(opening, false);
    }
    return this.cleaned(text, false);
  }

  /** Reads `text` on from where the placeholder check stopped (each character once): could the answer still be just space, the placeholder, space? */
  private mayStillBePlaceholder(text: string): boolean {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const matched = this.leadMatched;
      if (matched === 0 || matched === NO_CONTENT.length) {
        if (isSpace(c)) continue;
        if (matched === NO_CONTENT.length) return false;
      }
      if (c !== NO_CONTENT.charCodeAt(matched)) return false;
      this.leadMatched = matched + 1;
    }
    return true;
  }

  /** Markers at the answer's start out first, then wrappers: both read on the text as it is shown, however markers were split. */
  private cleaned(text: string, final: boolean): string {
    let out = this.unwrapped(this.markersRead(text, final), final);
    for (let rest = this.afterHeader; rest !== undefined; rest = this.afterHeader) {
      this.afterHeader = undefined;
      out += this.call();
      out += this.unwrapped(this.markersRead(rest, final), final);
    }
    return out;
  }

  /**
   * `text` with a possible marker prefix at its end held back in `pending` (unless `final`), so
   * that what follows reads whole markers; at the answer's start (only blank space and markers
   * so far), without its markers.
   */
  private markersRead(text: string, final: boolean): string {
    const s = this.pending + text;
    this.pending = '';
    let kept = '';
    let from = 0;
    let i = 0;
    while (!this.started && i < s.length) {
      if (isSpace(s.charCodeAt(i))) {
        i++;
        continue;
      }
      const marker = markerAt(s, i);
      if (marker > 0) {
        kept += s.slice(from, i);
        i += marker;
        from = i;
        continue;
      }
      if (!final && isMarkerPrefix(s, i)) {
        this.pending = s.slice(i);
        return kept + s.slice(from, i);
      }
      this.started = true;
    }
    const header = i < s.length ? s.indexOf(MESSAGE_HEADER, i) : -1;
    if (header >= 0) {
      // A new harmony message (a commentary preamble, then the final answer): the header is read
      // as a call is, so the markers that end the message before it and open this one go.
      this.afterHeader = s.slice(header + MESSAGE_HEADER.length);
      return kept + s.slice(from, header);
    }
    if (!final) {
      for (let k = Math.max(i, s.length - LONGEST_MARKER + 1); k < s.length; k++) {
        const c = s.charCodeAt(k);
        if ((c === 0x3c || c === 0x5b || c === 0x3e) && isMarkerPrefix(s, k) && !inMarker(s, k)) {
          this.pending = s.slice(k);
          return kept + s.slice(from, k);
        }
      }
    }
    return from === 0 ? s : kept + s.slice(from);
  }

  /**
   * `text` without what right after a call its openers owe (and markers there), with a possible
   * opener at its end held back in `opener`; at the end of the answer (`final`), without the
   * markers it ends with.
   */
  private unwrapped(text: string, final: boolean): string {
    const s = this.opener + text;
    this.opener = '';
    let from = 0;
    if (this.afterCall) {
      // Only framing since the call: the closers it owes go, and markers, with the blank space before them.
      let i = 0;
      while (i < s.length) {
        const owed = this.owed[this.owed.length - 1];
        const closer = owed === undefined || (owed.kind === 'code' && !this.tight) ? 0 : closerLength(s, i, owed, final);
        if (closer < 0) {
          this.opener = s.slice(i);
          return this.shown(s.slice(from, i));
        }
        if (closer > 0) {
          this.owed.pop();
          // The framing before it goes, and with it what it said of the line (as after the call).
          this.framing = '';
          this.lineStart = true;
          i += closer;
          from = i;
          continue;
        }
        // Framing that is no closer: held (see `filterFraming`) until what follows decides it.
        if (isFraming(s.charCodeAt(i))) {
          i++;
          this.tight = false;
          continue;
        }
        const marker = markerAt(s, i);
        if (marker === 0) break;
        i += marker;
        from = i;
        this.framing = '';
        this.lineStart = true;
        this.tight = false;
      }
    }
    const rest = from === 0 ? s : s.slice(from);
    const start = final ? markerRunStart(rest) : openerRunStart(rest, this.lineStart, true);
    if (start < rest.length && !final) this.opener = rest.slice(start);
    return this.shown(start === rest.length ? rest : rest.slice(0, start));
  }

  /** Passes `text` on to be shown (framing held back), noting whether it ends a line. */
  private shown(text: string): string {
    if (text === '') return '';
    let i = text.length;
    while (i > 0 && (text.charCodeAt(i - 1) === 0x20 || text.charCodeAt(i - 1) === 0x09)) i--;
    if (i > 0) this.lineStart = startsLine(text, text.length, false);
    return this.filterFraming(text);
  }

  /**
   * A call was taken out here: framing and a complete opener run held before it go (what
   * could only have grown into one is shown), and so does a `(no content)` placeholder that
   * was the whole text before the first call. Returns held text to be shown before the call.
   * `source`: the call as written.
   */
  call(source = ''): string {
    let released = '';
    const lead = this.lead;
    this.lead = undefined;
    if (lead !== undefined && lead.trim() !== NO_CONTENT && lead.trim() !== '') released = this.cleaned(lead, false);
    // What is held is complete now: a marker's prefix is text, and only whole openers wrap the call.
    // The held framing is read with the opener after it: its `[` may open this call's list.
    const read = this.markersRead('', true);
    const held = this.framing + this.opener + read;
    this.framing = '';
    this.opener = '';
    const owed: WrapperCloser[] = [];
    const start = openerRunStart(held, this.lineStart, false, owed);
    if (start > 0) released += this.shown(held.slice(0, start));
    // MiniMax M3's marker `]<]minimax[>[` is read from its `<`: the `]` before the call is the call's.
    if (source.startsWith(M3_MARKER.slice(1)) && this.framing.endsWith(']')) this.framing = this.framing.slice(0, -1);
    // A call in the same wrapper as the one before (`[f(), g()]` in `<tool_calls>`) owes what that
    // one still does, and the framing between them goes. Before the first, the framing's blank
    // space goes (shown again with an opener that is), its brackets and separators are text.
    if (!this.afterCall) {
      const framing = this.framing;
      let end = framing.length;
      while (end > 0 && isSpace(framing.charCodeAt(end - 1))) end--;
      released += framing.slice(0, end);
      this.gap = framing.slice(end);
      this.owed = [];
    }
    this.owed.push(...owed);
    this.framing = '';
    this.afterCall = true;
    this.tight = true;
    this.lineStart = true;
    this.started = true;
    return released;
  }

  /** The end of the answer: flushes what was held. */
  end(): string {
    const lead = this.lead;
    this.lead = undefined;
    let out = lead === undefined || lead === '' ? '' : this.cleaned(lead, false);
    if (this.opener !== '' || this.pending !== '') out += this.cleaned('', true);
    const framing = this.framing;
    this.framing = '';
    // After the last call only framing and what it owes: the answer ends with the calls.
    if (this.afterCall) {
      this.owed = [];
      return out;
    }
    return out + framing;
  }

  /** `text` with its framing held back until what follows decides it (see `decided`). */
  private filterFraming(text: string): string {
    let out = '';
    let i = 0;
    while (i < text.length) {
      let j = i;
      while (j < text.length && isFraming(text.charCodeAt(j))) j++;
      if (j > i) this.framing += text.slice(i, j);
      if (j === text.length) break;
      let k = j;
      while (k < text.length && !isFraming(text.charCodeAt(k))) k++;
      if (this.framing !== '' || this.afterCall) out += this.decided();
      out += text.slice(j, k);
      i = k;
    }
    return out;
  }

  /** What the held framing shows now that text follows it (and the calls before it are done). */
  private decided(): string {
    const framing = this.framing;
    this.framing = '';
    if (!this.afterCall) return framing;
    this.afterCall = false;
    // An opener whose closer did not come right after the calls is shown again (a fence, a
    // bracket, a code span): its block holds more than calls.
    let reopened = '';
    for (const owed of this.owed) if (owed.kind !== 'tag' && owed.kind !== 'token') reopened += owed.text;
    this.owed = [];
    let end = reopened.length;
    while (end > 0 && isSpace(reopened.charCodeAt(end - 1))) end--;
    const opened = end > 0 ? this.gap + reopened.slice(0, end) : '';
    this.gap = '';
    // After a call its line's separators go (`f();`); text on the same line keeps its own (`f(), then`).
    return opened + (framing.includes('\n') || framing.includes('\r') ? withoutSeparators(framing) : framing);
  }
}

/** `text` without `,` and `;`. */
function withoutSeparators(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2c || c === 0x3b) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}
