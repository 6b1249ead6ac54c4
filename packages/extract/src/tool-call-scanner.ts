import { InvalidArgumentsError, parseArguments } from '@toolwire/core';
import type { JsonSchema, ToolCall } from '@toolwire/core';
import type { ResolvedExtractOptions } from './extract-options.ts';
import {
  endsWithDefinitionKeyword,
  isNameRunUnit,
  isSpace,
  isValidName,
  isWordUnit,
  MAX_NAME_LENGTH,
  NOT_CALL_NAMES,
} from './identifier.ts';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';

const DQUOTE = 0x22;
const SQUOTE = 0x27;
const BACKSLASH = 0x5c;
const LPAREN = 0x28;
const RPAREN = 0x29;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;

/** Character classes for the frame scanner: 1 quote, 2 opening bracket, 3 closing bracket, 0 other. */
const CLASS = new Uint8Array(128);
CLASS[DQUOTE] = 1;
CLASS[SQUOTE] = 1;
CLASS[LPAREN] = 2;
CLASS[LBRACKET] = 2;
CLASS[LBRACE] = 2;
CLASS[RPAREN] = 3;
CLASS[RBRACKET] = 3;
CLASS[RBRACE] = 3;

/** How much released text is kept for look-behind (`def `, `[TOOL_CALLS]`, the name boundary). */
const HISTORY_LENGTH = 32;
/** Mistral's marker: `[TOOL_CALLS]name{…}` is a call with JSON arguments. */
const MARKER = '[TOOL_CALLS]';
/** Nested objects of a JSON value examined for call shapes (`{"tool_calls": [{"function": {…}}]}`). */
const MAX_INNER_DEPTH = 4;

type FrameKind = 'call' | 'marker' | 'json';
type FrameStatus = 'open' | 'closed' | 'mismatch' | 'not-json';

/** A span being scanned that may be a call: `name(…)`, `[TOOL_CALLS]name{…}` or a JSON object. */
interface Frame {
  kind: FrameKind;
  name: string;
  /** The id announced by `tool-call-start` (call frames only). */
  id: string | undefined;
  /** Offset in the frame text of the first argument character (call) or of `{` (marker). */
  argsOffset: number;
  /** Frame text received in earlier chunks (a rope: appended to, flattened once at the end). */
  received: string;
  length: number;
  /** Expected closing brackets. */
  stack: number[];
  quote: number;
  escaped: boolean;
  prev: number;
  /** A JSON frame waits for a quote after `{` (a key) before it counts as JSON. */
  awaitingQuote: boolean;
  /** JSON frames: [start, end] offsets of nested objects (end -1 while open), flattened. */
  inner: number[];
  /** JSON frames: the `inner` record index of the bracket open at each depth (-1: not recorded). */
  openRecord: number[];
  status: FrameStatus;
}

/** A new frame; call frames open with `(`, marker and JSON frames with `{`. */
function newFrame(start: { kind: FrameKind; name: string; argsOffset: number }): Frame {
  const paren = start.kind === 'call';
  return {
    kind: start.kind,
    name: start.name,
    id: undefined,
    argsOffset: start.argsOffset,
    received: '',
    length: 0,
    stack: [paren ? RPAREN : RBRACE],
    quote: 0,
    escaped: false,
    prev: paren ? LPAREN : LBRACE,
    awaitingQuote: start.kind === 'json',
    inner: [],
    openRecord: [-1, -1],
    status: 'open',
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function collectKeys(value: unknown, keys: Set<string>): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) collectKeys(item, keys);
    return;
  }
  for (const key of Object.keys(value)) {
    keys.add(key);
    collectKeys((value as Record<string, unknown>)[key], keys);
  }
}

/**
 * JSON with sorted keys: two spellings of the same arguments give the same key. A key list
 * passed to `JSON.stringify` orders the members of every object by that list, so the native
 * serializer does the work.
 */
function canonical(value: Record<string, unknown>): string {
  const keys = new Set<string>();
  collectKeys(value, keys);
  return JSON.stringify(value, [...keys].sort());
}

/** A string hash over every character of short strings and 32 evenly spread ones of long strings. */
function stringHash(s: string): number {
  const n = s.length;
  const step = n <= 64 ? 1 : Math.floor(n / 32);
  let h = Math.imul(n, 0x9e3779b1);
  for (let i = 0; i < n; i += step) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * A cheap fingerprint of a value that ignores the order of object keys (members are
 * combined by addition): equal values always get equal fingerprints, so only calls whose
 * fingerprints collide need the full canonical comparison.
 */
function fingerprint(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return stringHash(value);
    case 'number':
      return (Math.imul(value | 0, 0x85ebca6b) ^ ((value * 1e6) | 0)) | 0;
    case 'boolean':
      return value ? 0x1234567 : 0x7654321;
    case 'object': {
      if (value === null) return 0x0f0f0f0f;
      if (Array.isArray(value)) {
        let h = 0x3c6ef372;
        for (const item of value) h = (Math.imul(h, 31) + fingerprint(item)) | 0;
        return h;
      }
      let h = 0x5bd1e995;
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) h = (h + (Math.imul(stringHash(key), 0x27d4eb2d) ^ fingerprint(record[key]))) | 0;
      return h;
    }
    default:
      return 0;
  }
}

/**
 * The calls seen so far, for de-duplication. A call is reduced to a canonical key only when
 * its name and fingerprint match an earlier call's, so distinct calls pay little; the cost
 * stays linear however many calls collide.
 */
class SeenCalls {
  private readonly buckets = new Map<string, { first: Record<string, unknown> | undefined; keys: Set<string> }>();

  /** Records the call; false when an identical one was recorded before. */
  add(name: string, args: Record<string, unknown>): boolean {
    const bucketKey = `${name}\u0000${fingerprint(args)}`;
    const bucket = this.buckets.get(bucketKey);
    if (bucket === undefined) {
      this.buckets.set(bucketKey, { first: args, keys: new Set() });
      return true;
    }
    if (bucket.first !== undefined) {
      bucket.keys.add(canonical(bucket.first));
      bucket.first = undefined;
    }
    const key = canonical(args);
    if (bucket.keys.has(key)) return false;
    bucket.keys.add(key);
    return true;
  }
}

function tryParseArguments(text: string, schema: JsonSchema | undefined): Record<string, unknown> | undefined {
  try {
    return parseArguments(text, schema === undefined ? undefined : { schema });
  } catch (error) {
    if (InvalidArgumentsError.isInstance(error)) return undefined;
    throw error;
  }
}

/**
 * The one scanner behind `extractToolCalls` and `createToolCallParser`. It consumes text
 * chunk by chunk; every character is examined a bounded number of times (a held-back name
 * of at most `MAX_NAME_LENGTH` characters is re-read with the next chunk, a closed span is
 * parsed once), so the cost is linear in the input whatever the chunking.
 */
export class ToolCallScanner {
  /** Calls found so far, de-duplicated, in order of appearance. */
  readonly calls: ToolCall[] = [];
  private readonly options: ResolvedExtractOptions;
  /** Whether to build text and delta events (the batch form only needs the calls). */
  private readonly withEvents: boolean;
  /**
   * Events of the current `push` or `end`, created by the first one: most chunks of a token
   * stream complete nothing, and `[event]` sizes its storage exactly (`[]` then `push` does not).
   */
  private events: ToolCallParserEvent[] | undefined;
  private readonly seen = new SeenCalls();
  /** Held-back text at the end of the last chunk: a possible start of a name. */
  private tail = '';
  /** The last characters released before `tail`. */
  private history = '';
  private frame: Frame | undefined;

  constructor(options: ResolvedExtractOptions, withEvents: boolean) {
    this.options = options;
    this.withEvents = withEvents;
  }

  /** Scans the next chunk; returns the events it completes. */
  push(chunk: string): readonly ToolCallParserEvent[] {
    const frame = this.frame;
    if (frame !== undefined && chunk.length === 1 && !frame.awaitingQuote && !frame.escaped) {
      // One ordinary character inside an open span (token streams): no bracket or quote changes.
      const c = chunk.charCodeAt(0);
      const ordinary = frame.quote === 0 ? c >= 128 || CLASS[c] === 0 : c !== frame.quote && c !== BACKSLASH;
      if (ordinary) {
        frame.prev = c;
        frame.received += chunk;
        frame.length++;
        const id = frame.kind === 'call' && this.withEvents ? frame.id : undefined;
        return id === undefined ? [] : [{ type: 'tool-call-delta', id, argumentsText: chunk }];
      }
    }
    this.scanChunk(chunk);
    return this.takeEvents();
  }

  /** Flushes held-back text; an open call becomes an `incomplete` event. */
  end(): readonly ToolCallParserEvent[] {
    const frame = this.frame;
    if (frame !== undefined) {
      this.frame = undefined;
      const text = frame.received;
      if (frame.kind === 'json' && frame.awaitingQuote) this.releaseText(text);
      else if (this.withEvents) this.emit(frame.id === undefined ? { type: 'incomplete', text } : { type: 'incomplete', text, id: frame.id });
    }
    if (this.tail !== '') {
      this.releaseText(this.tail);
      this.tail = '';
    }
    return this.takeEvents();
  }

  /**
   * The events emitted since the last call. An empty result is a new (unfrozen) array:
   * iterating a frozen array takes a slow path in V8, and a shared one could be mutated.
   */
  private takeEvents(): ToolCallParserEvent[] {
    const events = this.events ?? [];
    this.events = undefined;
    return events;
  }

  /** Scans one chunk, emitting into `events`. */
  private scanChunk(chunk: string): void {
    if (chunk.length === 0) return;
    const frame = this.frame;
    if (frame === undefined && chunk.length === 1) {
      // One character at a time (token streams): skip the general scan when it cannot matter.
      const c = chunk.charCodeAt(0);
      if (isNameRunUnit(c)) {
        const run = this.tail + chunk;
        if (run.length <= MAX_NAME_LENGTH && this.couldBeName(run)) {
          this.tail = run;
          return;
        }
      } else if (c !== LPAREN && c !== LBRACE) {
        this.releaseText(this.tail + chunk);
        this.tail = '';
        return;
      }
    }
    if (frame === undefined) {
      const s = this.tail + chunk;
      this.tail = '';
      this.scanText(s, 0);
    } else {
      const end = this.feed(frame, chunk, 0, frame.length);
      this.emitDelta(frame, chunk, 0, end);
      if (end < 0) {
        frame.received += chunk;
        frame.length += chunk.length;
      } else {
        this.frame = undefined;
        this.scanText(chunk, this.finish(frame, chunk, 0, end));
      }
    }
  }

  /** Scans `s` from `from` outside any frame, opening and finishing frames as they come. */
  private scanText(s: string, from: number): void {
    let textStart = from;
    let i = from;
    let nextParen = this.options.call ? -2 : -1;
    let nextBrace = this.options.json ? -2 : -1;
    while (i < s.length) {
      if (nextParen !== -1 && nextParen < i) nextParen = s.indexOf('(', i);
      if (nextBrace !== -1 && nextBrace < i) nextBrace = s.indexOf('{', i);
      if (nextParen === -1 && nextBrace === -1) break;
      const p = nextParen === -1 ? nextBrace : nextBrace === -1 ? nextParen : Math.min(nextParen, nextBrace);
      const frameStart = s.charCodeAt(p) === LPAREN ? this.openCall(s, p) : this.openBrace(s, p);
      if (frameStart < 0) {
        i = p + 1;
        continue;
      }
      const frame = this.frame;
      if (frame === undefined) break;
      this.release(s, textStart, frameStart);
      if (frame.kind === 'call' && this.withEvents) {
        frame.id = this.options.id(frame.name, this.calls.length);
        this.emit({ type: 'tool-call-start', id: frame.id, name: frame.name });
      } else if (frame.kind === 'call') {
        frame.id = '';
      }
      const end = this.feed(frame, s, p + 1, -frameStart);
      this.emitDelta(frame, s, p + 1, end);
      if (end < 0) {
        frame.received = s.slice(frameStart);
        frame.length = s.length - frameStart;
        return;
      }
      this.frame = undefined;
      i = this.finish(frame, s, frameStart, end);
      textStart = i;
    }
    // Hold back a trailing name run: the next chunk may continue it with `(` or `{`.
    let hold = s.length;
    while (hold > textStart && s.length - hold <= MAX_NAME_LENGTH && isNameRunUnit(s.charCodeAt(hold - 1))) hold--;
    if (s.length - hold > MAX_NAME_LENGTH || (hold < s.length && !this.couldBeName(s.slice(hold)))) hold = s.length;
    this.release(s, textStart, hold);
    this.tail = s.slice(hold);
  }

  /** At `(` (position p): opens a call frame when a tool name stands right before it; returns the frame start or -1. */
  private openCall(s: string, p: number): number {
    const nameStart = this.nameStartBefore(s, p);
    if (nameStart < 0) return -1;
    const name = s.slice(nameStart, p);
    if (!this.isCallName(name)) return -1;
    // The same 32-character window as `lookBehind`, read in place when `s` reaches that far.
    const definition =
      nameStart >= HISTORY_LENGTH
        ? endsWithDefinitionKeyword(s, nameStart, nameStart - HISTORY_LENGTH)
        : endsWithDefinitionKeyword(this.lookBehind(s, nameStart));
    if (definition) return -1;
    this.frame = newFrame({ kind: 'call', name, argsOffset: name.length + 1 });
    return nameStart;
  }

  /** At `{` (position p): `[TOOL_CALLS]name{…}`, or a JSON object that may be a call. */
  private openBrace(s: string, p: number): number {
    const nameStart = this.nameStartBefore(s, p);
    if (nameStart >= 0) {
      const name = s.slice(nameStart, p);
      const before = this.lookBehind(s, nameStart).trimEnd();
      if (before.endsWith(MARKER) && isValidName(name) && this.isAllowed(name)) {
        this.frame = newFrame({ kind: 'marker', name, argsOffset: name.length });
        return nameStart;
      }
    }
    this.frame = newFrame({ kind: 'json', name: '', argsOffset: 0 });
    return p;
  }

  /** Start of the name run that ends right before `p`, or -1 when there is none or it is too long. */
  private nameStartBefore(s: string, p: number): number {
    let start = p;
    while (start > 0 && p - start <= MAX_NAME_LENGTH && isNameRunUnit(s.charCodeAt(start - 1))) start--;
    if (start === p || p - start > MAX_NAME_LENGTH) return -1;
    // The run continues into released text: it is longer than any name could be.
    if (start === 0 && this.history.length > 0 && isNameRunUnit(this.history.charCodeAt(this.history.length - 1))) {
      return -1;
    }
    return start;
  }

  private lookBehind(s: string, position: number): string {
    return position >= HISTORY_LENGTH ? s.slice(position - HISTORY_LENGTH, position) : (this.history + s.slice(0, position)).slice(-HISTORY_LENGTH);
  }

  /**
   * Whether a held-back run may still grow into a tool name: with an allow-list only a
   * prefix of an allowed name can (text is released sooner); without one, any run can.
   */
  private couldBeName(run: string): boolean {
    const prefixes = this.options.prefixes;
    return prefixes === undefined || prefixes.has(run);
  }

  private isCallName(name: string): boolean {
    if (!isValidName(name)) return false;
    if (this.options.allowed !== undefined) return this.options.allowed.has(name);
    return !NOT_CALL_NAMES.has(name);
  }

  private isAllowed(name: string): boolean {
    return this.options.allowed === undefined || this.options.allowed.has(name);
  }

  /**
   * Advances `frame` over `s` from `from`; `base` maps an index of `s` to a frame offset.
   * Returns the index of the character that ends the frame (its closing bracket, a
   * mismatched bracket, or the first non-key character after a JSON `{`), or -1.
   */
  private feed(frame: Frame, s: string, from: number, base: number): number {
    const stack = frame.stack;
    const json = frame.kind === 'json';
    let quote = frame.quote;
    let escaped = frame.escaped;
    let prev = frame.prev;
    for (let i = from; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (quote !== 0) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === quote) quote = 0;
        prev = c;
        continue;
      }
      if (frame.awaitingQuote) {
        if (isSpace(c)) continue;
        if (c !== DQUOTE && c !== SQUOTE) {
          frame.status = 'not-json';
          return i;
        }
        frame.awaitingQuote = false;
      }
      const kind = c < 128 ? (CLASS[c] ?? 0) : 0;
      if (kind === 0) {
        prev = c;
        continue;
      }
      if (kind === 1) {
        if (c === DQUOTE || !isWordUnit(prev)) quote = c;
      } else if (kind === 2) {
        stack.push(c === LPAREN ? RPAREN : c === LBRACKET ? RBRACKET : RBRACE);
        if (json && stack.length <= MAX_INNER_DEPTH) {
          if (c === LBRACE) {
            frame.openRecord[stack.length] = frame.inner.length / 2;
            frame.inner.push(base + i, -1);
          } else {
            frame.openRecord[stack.length] = -1;
          }
        }
      } else {
        if (stack[stack.length - 1] !== c) {
          frame.status = 'mismatch';
          frame.quote = quote;
          return i;
        }
        if (json && stack.length <= MAX_INNER_DEPTH) {
          const record = frame.openRecord[stack.length] ?? -1;
          if (record >= 0) frame.inner[record * 2 + 1] = base + i;
        }
        stack.pop();
        if (stack.length === 0) {
          frame.status = 'closed';
          return i;
        }
      }
      prev = c;
    }
    frame.quote = quote;
    frame.escaped = escaped;
    frame.prev = prev;
    return -1;
  }

  /** Reports the argument text a call frame consumed from `s` (up to, not including, its end). */
  private emitDelta(frame: Frame, s: string, from: number, end: number): void {
    if (!this.withEvents || frame.kind !== 'call' || frame.id === undefined) return;
    const to = end < 0 ? s.length : end;
    if (to > from) this.emit({ type: 'tool-call-delta', id: frame.id, argumentsText: s.slice(from, to) });
  }

  /** Decides a frame that ended at `s[end]`; returns where text scanning resumes. */
  private finish(frame: Frame, s: string, frameStart: number, end: number): number {
    if (frame.status === 'not-json') {
      this.releaseText(frame.received + s.slice(frameStart, end));
      return end;
    }
    const text = frame.received + s.slice(frameStart, end + 1);
    switch (frame.kind) {
      case 'call': {
        const args =
          frame.status === 'closed'
            ? tryParseArguments(text.slice(frame.argsOffset, -1), this.schemaOf(frame.name))
            : undefined;
        this.settle(frame.name, args, text, frame.id);
        break;
      }
      case 'marker': {
        const args = frame.status === 'closed' ? tryParseArguments(text.slice(frame.argsOffset), this.schemaOf(frame.name)) : undefined;
        this.settle(frame.name, args, text, undefined);
        break;
      }
      case 'json':
        if (frame.status === 'closed') this.finishJson(frame, text);
        else this.releaseText(text);
        break;
      default: {
        const unknown: never = frame.kind;
        throw new Error(`unknown frame kind ${String(unknown)}`);
      }
    }
    return end + 1;
  }

  /** A closed JSON object: a call itself, or a wrapper with call objects inside, or plain text. */
  private finishJson(frame: Frame, text: string): void {
    const whole = this.callOfJson(text);
    if (whole !== undefined) {
      this.settle(whole.name, whole.args, text, undefined);
      return;
    }
    let released = 0;
    let skipUntil = 0;
    const inner = frame.inner;
    for (let r = 0; r < inner.length; r += 2) {
      const start = inner[r] ?? 0;
      const end = inner[r + 1] ?? -1;
      if (end < 0 || start < skipUntil) continue;
      const span = text.slice(start, end + 1);
      const call = this.callOfJson(span);
      if (call === undefined) continue;
      this.releaseText(text.slice(released, start));
      this.settle(call.name, call.args, span, undefined);
      released = end + 1;
      skipUntil = end + 1;
    }
    this.releaseText(text.slice(released));
  }

  /** The call a JSON object text describes (`{"name": …, "arguments"|"parameters": …}`), if any. */
  private callOfJson(text: string): { name: string; args: Record<string, unknown> | undefined } | undefined {
    const value = tryParseArguments(text, undefined);
    if (value === undefined) return undefined;
    const name = value.name ?? value.tool_name;
    if (typeof name !== 'string' || !isValidName(name) || !this.isAllowed(name)) return undefined;
    const raw = Object.hasOwn(value, 'arguments') ? value.arguments : Object.hasOwn(value, 'parameters') ? value.parameters : undefined;
    const schema = this.schemaOf(name);
    let args: Record<string, unknown> | undefined;
    if (raw === null) args = {};
    else if (typeof raw === 'string') args = tryParseArguments(raw, schema);
    else if (isRecord(raw)) args = schema === undefined ? raw : tryParseArguments(JSON.stringify(raw), schema);
    else return undefined;
    return { name, args };
  }

  private schemaOf(name: string): JsonSchema | undefined {
    return this.options.allowed?.get(name);
  }

  /** Emits a found call (or reports it as discarded: bad arguments, or a repeat of an earlier call). */
  private settle(name: string, args: Record<string, unknown> | undefined, text: string, startedId: string | undefined): void {
    if (args === undefined) {
      if (startedId !== undefined && this.withEvents) {
        this.emit({ type: 'tool-call-discarded', id: startedId, text, reason: 'invalid-arguments' });
      } else {
        this.releaseText(text);
      }
      return;
    }
    if (!this.seen.add(name, args)) {
      if (this.withEvents) {
        const id = startedId ?? this.options.id(name, this.calls.length);
        this.emit({ type: 'tool-call-discarded', id, text, reason: 'duplicate' });
      }
      this.remember(text);
      return;
    }
    const id = startedId !== undefined && startedId !== '' ? startedId : this.options.id(name, this.calls.length);
    const toolCall: ToolCall = { id, name, arguments: args };
    this.calls.push(toolCall);
    if (this.withEvents) {
      if (startedId === undefined) {
        this.emit({ type: 'tool-call-start', id, name });
        this.emit({ type: 'tool-call-delta', id, argumentsText: JSON.stringify(args) });
      }
      this.emit({ type: 'tool-call', toolCall, text });
    }
    this.remember(text);
  }

  private emit(event: ToolCallParserEvent): void {
    if (this.events === undefined) this.events = [event];
    else this.events.push(event);
  }

  private release(s: string, from: number, to: number): void {
    if (to > from) this.releaseText(s.slice(from, to));
  }

  private releaseText(text: string): void {
    if (text === '') return;
    if (this.withEvents) this.emit({ type: 'text', text });
    this.remember(text);
  }

  /** Keeps the last characters that went out, for look-behind (trimmed now and then, not on every call). */
  private remember(text: string): void {
    if (text.length >= HISTORY_LENGTH) {
      this.history = text.length > 4 * HISTORY_LENGTH ? text.slice(text.length - HISTORY_LENGTH) : text;
    } else {
      this.history += text;
      if (this.history.length > 8 * HISTORY_LENGTH) this.history = this.history.slice(-HISTORY_LENGTH);
    }
  }
}
