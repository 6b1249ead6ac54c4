import { InvalidArgumentsError, parseArguments, parseCallArguments } from '@toolwire/core';
import type { JsonSchema, ToolCall } from '@toolwire/core';
import { ToolCallParserEndedError, ToolCallParserReentryError } from './errors.ts';
import type { ResolvedExtractOptions, ToolCallFormat } from './extract-options.ts';
import {
  endsWithDefinitionKeyword,
  isNameRunUnit,
  isScriptBoundary,
  isSpace,
  isNamespacedName,
  isValidName,
  isValidNameIn,
  isWordUnit,
  MAX_NAME_LENGTH,
  NOT_CALL_NAME_LENGTH,
  NOT_CALL_NAMES,
} from './identifier.ts';
import { isRecord } from './native/json-extent.ts';
import type { NativeContext } from './native/native-call.ts';
import { firstToken } from './native/first-token.ts';
import { functionaryBefore, loneDecisions, loneOpener, matchOpener, MAX_LEADING_RECIPIENT, openerWait, quotedOpens, readLeadingRecipient, REASONING_INTERRUPTS, reasoningInterrupts, trailerEnd, waitAfter } from './native/native-opener.ts';
import type { BlockBody, LoneDecisions, LoneOpener, OpenerContext, OpenerWait } from './native/native-opener.ts';
import { parseBlock } from './native/parse-block.ts';
import { DIRECT_COMPARE_LIMIT, repeatsEarlier, SeenCalls } from './seen-calls.ts';
import { InPlaceAllowList } from './in-place-allow-list.ts';
import type { ToolCallParserEvent } from './tool-call-parser-event.ts';
import { deliverEvent } from './tool-call-sink.ts';
import type { ToolCallSink } from './tool-call-sink.ts';

const DQUOTE = 0x22;
const SQUOTE = 0x27;
const BACKSLASH = 0x5c;
const LPAREN = 0x28;
const RPAREN = 0x29;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LANGLE = 0x3c;
const RANGLE = 0x3e;
const COLON = 0x3a;
const HYPHEN = 0x2d;

/** Character classes for the frame scanner: 1 quote, 2 opening bracket, 3 closing bracket, 4 `<`, 0 other. */
const CLASS = new Uint8Array(128);
CLASS[LANGLE] = 4;
CLASS[DQUOTE] = 1;
CLASS[SQUOTE] = 1;
CLASS[LPAREN] = 2;
CLASS[LBRACKET] = 2;
CLASS[LBRACE] = 2;
CLASS[RPAREN] = 3;
CLASS[RBRACKET] = 3;
CLASS[RBRACE] = 3;

/**
 * Classes of ASCII characters for the short text scan: 0 a word character (letter, digit,
 * `_`), 1 any other, 2 `<` and `[` (always looked at), 3 `(`, 4 `{`, 5 `>` (looked at when
 * their format is).
 */
const SCAN_CLASS = new Uint8Array(128).fill(1);
for (let c = 0x30; c <= 0x39; c++) SCAN_CLASS[c] = 0;
for (let c = 0x41; c <= 0x5a; c++) SCAN_CLASS[c] = 0;
for (let c = 0x61; c <= 0x7a; c++) SCAN_CLASS[c] = 0;
SCAN_CLASS[0x5f] = 0;
SCAN_CLASS[LANGLE] = 2;
SCAN_CLASS[LBRACKET] = 2;
SCAN_CLASS[LPAREN] = 3;
SCAN_CLASS[LBRACE] = 4;
SCAN_CLASS[RANGLE] = 5;

/** Whether the text scan looks at `c` (it may open a call, a JSON object or a native token). */
function isScanned(c: number): boolean {
  return c === LPAREN || c === LBRACE || c === LANGLE || c === LBRACKET || c === RANGLE;
}

/**
 * Classes of ASCII characters for a character streamed outside any span: 0 a name character,
 * 1 text that opens nothing, 2 a character the text scan looks at (`isScanned`).
 */
const TEXT_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) TEXT_CLASS[c] = isNameRunUnit(c) ? 0 : isScanned(c) ? 2 : 1;

const FORMAT_FLAGS = new WeakMap<ReadonlySet<ToolCallFormat>, Readonly<Record<ToolCallFormat, boolean>>>();

/**
 * A set of formats as one flag per format: the opener readers ask for formats by name a few
 * dozen times per opener read (a stream reads a held-back opener again as it grows), and a
 * property of an object of one shape reads faster than a set lookup.
 */
function formatFlags(formats: ReadonlySet<ToolCallFormat>): Readonly<Record<ToolCallFormat, boolean>> {
  let flags = FORMAT_FLAGS.get(formats);
  if (flags === undefined) {
    flags = {
      call: formats.has('call'),
      json: formats.has('json'),
      'qwen3-xml': formats.has('qwen3-xml'),
      'seed-oss': formats.has('seed-oss'),
      'minimax-m2': formats.has('minimax-m2'),
      'minimax-m3': formats.has('minimax-m3'),
      glm: formats.has('glm'),
      deepseek: formats.has('deepseek'),
      'deepseek-dsml': formats.has('deepseek-dsml'),
      'kimi-k2': formats.has('kimi-k2'),
      'kimi-k3': formats.has('kimi-k3'),
      gemma4: formats.has('gemma4'),
      functiongemma: formats.has('functiongemma'),
      harmony: formats.has('harmony'),
      mistral: formats.has('mistral'),
      functionary: formats.has('functionary'),
      apertus: formats.has('apertus'),
      'solar-open': formats.has('solar-open'),
      plamo3: formats.has('plamo3'),
      minicpm5: formats.has('minicpm5'),
    };
    FORMAT_FLAGS.set(formats, flags);
  }
  return flags;
}

/**
 * `loneDecisions` by the set of formats (one per distinct options, see `resolveExtractOptions`):
 * working out a context's format bits asks `has` once per format, which costs a short
 * response's stream more than its lone `[`.
 */
const LONE_BY_FORMATS = new WeakMap<ReadonlySet<ToolCallFormat>, LoneDecisions>();

/** How much released text is kept for look-behind (`def `, the name boundary). */
const HISTORY_LENGTH = 32;
/**
 * Up to this length the arguments text of a streamed call, made new at its `)`, is kept as it
 * is for look-behind (see `recentText`). Every other text is or holds a cut of a chunk the
 * caller pushed, which would keep the whole chunk alive: its last characters are copied instead.
 */
const KEPT_TEXT_LENGTH = 1024;
/** Cohere's pseudo-tools that mean "no call" (Functionary's `all` is handled where `>>>all` is read). */
const PSEUDO_TOOLS: ReadonlySet<string> = new Set(['directly-answer', 'direct-injected-document']);
/** Keys that hold a JSON call's arguments, in order of preference. */
const ARGUMENT_KEYS = ['arguments', 'parameters', 'params', 'args', 'input'];
/** Nested objects of a JSON value examined for call shapes (`{"tool_calls": [{"function": {…}}]}`). */
const MAX_INNER_DEPTH = 4;
/** Most closing tokens of quoted calls skipped in one block (see `closesQuoted`). */
const MAX_QUOTED_CLOSES = 8;

/** Never written: `feed` records nested objects of JSON frames only. */
const NO_RECORDS: number[] = [];
/** `codes` of a scanner that has not streamed a character into a frame yet. */
const NO_CODES = new Uint16Array(0);
/**
 * `maxCallChars` when it is off, or larger: no string is longer (V8 allows 2^29 - 24 characters), so
 * no frame reaches it, and as a small integer it keeps the bound's arithmetic in integers.
 */
const MAX_FRAME_LENGTH = 2 ** 29;
/** How many streamed characters are kept as codes before they join the frame's text. */
const CODES_LENGTH = 1024;
/**
 * `codes` of ended streams, taken by the next streams' first kept code: a new 2 KB buffer costs
 * about half a microsecond, and a stream is one model response (a parser each). A few suffice
 * (a buffer goes back at `end()`, and concurrent streams past these make their own).
 */
const SPARE_CODES: Uint16Array[] = [];
const MAX_SPARE_CODES = 8;
/**
 * Decodes `codes` (any character but a surrogate: see `codesText`) in the byte order a
 * `Uint16Array` has on this machine; `ignoreBOM` keeps a leading U+FEFF.
 */
const UTF16 = new TextDecoder(new Uint8Array(Uint16Array.of(1).buffer)[0] === 1 ? 'utf-16le' : 'utf-16be', { ignoreBOM: true });
/** Up to how many codes `joinCodes` makes their text (a decoder call costs more below). */
const SHORT_CODES = 32;

/** The text of `codes[0, count)`, eight characters per string made (lone surrogates kept as they are). */
function joinCodes(codes: Uint16Array, count: number): string {
  const char = String.fromCharCode;
  let text = '';
  let i = 0;
  for (; i + 8 <= count; i += 8) {
    text += char(codes[i] ?? 0, codes[i + 1] ?? 0, codes[i + 2] ?? 0, codes[i + 3] ?? 0, codes[i + 4] ?? 0, codes[i + 5] ?? 0, codes[i + 6] ?? 0, codes[i + 7] ?? 0);
  }
  for (; i < count; i++) text += char(codes[i] ?? 0);
  return text;
}
/** The closing tokens of frames that are not blocks (none: a block frame gets its own). */
const NO_ENDS: readonly string[] = [];
/**
 * The result of a `push` that completes nothing (most pushes of a token stream), shared so
 * that such a push allocates nothing. It is typed readonly; should a caller write into it
 * anyway, it is emptied again before it is handed out. (Not frozen: iterating a frozen
 * array takes a slow path in V8.)
 */
const NO_EVENTS: ToolCallParserEvent[] = [];

/**
 * What `push` may do with one character without the general path (`ToolCallScanner.fast`): none,
 * or keep an ordinary character of a plain frame outside strings, inside a `"` string, inside a
 * `'` string.
 */
const FAST_NONE = 0;
const FAST_CODE = 1;
const FAST_DOUBLE = 2;
const FAST_SINGLE = 3;
/** Or: a character outside any span, with no reasoning and no sink being delivered to (see `pushTextCharacter`). */
const FAST_TEXT = 4;

function noEvents(): ToolCallParserEvent[] {
  if (NO_EVENTS.length !== 0) NO_EVENTS.length = 0;
  return NO_EVENTS;
}

/*
 * A call found by a batch and a call streamed as an event are made by two functions, not one
 * object literal: V8 decides per allocation site (per literal) whether its objects are
 * allocated in the old generation, from how many of them survived a young collection while
 * it watched. Streamed calls often live long (a caller keeps the events, or the calls of a
 * whole response); a batch's calls usually die with its result. Sharing one site, the first
 * could move the second to the old generation in some processes and not others (decided
 * early, by chance of timing): every batch call then made old, it keeps its young arguments
 * alive through the next young collections, and batch extraction ran at about 0.6x its speed.
 */
function foundCall(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { id, name, arguments: args };
}

function streamedCall(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { id, name, arguments: args };
}

type FrameKind = 'call' | 'marker' | 'json' | 'block';
type FrameStatus = 'open' | 'closed' | 'mismatch' | 'not-json';

/**
 * A span being scanned that may be a call: `name(…)`, a header before JSON arguments
 * (`[TOOL_CALLS]name[ARGS]{…}`, harmony, Functionary), a JSON object, or a native block
 * read whole once its closing token arrives.
 */
interface Frame {
  kind: FrameKind;
  name: string;
  /** An id the model wrote (Mistral `[CALL_ID]`). */
  modelId: string | undefined;
  /** Blocks: how the body is read, the tokens that close it, the opener's length. */
  body: BlockBody | undefined;
  ends: readonly string[];
  openerLength: number;
  /** Blocks: the last characters received, which may hold the start of a closing token. */
  carry: string;
  /** Markers: the object ends, broken, at a `<` outside its strings (see `OpenerMatch`). */
  stopsAtAngle: boolean;
  /** Markers: a token the model may write after the object, part of the call (see `OpenerMatch`). */
  endToken: string | undefined;
  /** Markers with `endToken`, once the object closed: how many of its characters came (-1: not waiting for it). */
  endTokenAt: number;
  /** Markers with `endToken`: the frame offset just past the object, once it closed. */
  closeAt: number;
  /** Markers with `endToken`: something else than the token came after the object, which ends the call (and is read again). */
  endsAtObject: boolean;
  /** Blocks: a closing tag the model may still write after the closing token (see `trailerEnd`). */
  trailer: string | undefined;
  /** Blocks: while waiting for the trailer, where the closing token ends in the frame text; else -1. */
  awaitAt: number;
  /** Blocks whose values may quote whole calls (`nests`): how far the frame text was searched for quoted opens. */
  nestScan: number;
  /** Quoted calls opened and not closed yet; -1 when the block does not nest. */
  nestDepth: number;
  /** Closing tokens taken as a quoted call's. */
  skips: number;
  /** The id announced by `tool-call-start` (call frames only). */
  id: string | undefined;
  /** Offset in the frame text of the first argument character (call) or of `{` (marker). */
  argsOffset: number;
  /** Frame text received in earlier chunks (a rope: appended to, flattened once at the end). */
  received: string;
  /** Its length, without the characters still kept in the scanner's `codes`. */
  length: number;
  /** Expected closing brackets. */
  stack: number[];
  quote: number;
  escaped: boolean;
  /** The last character (when it is in the scanner's `codes`, the last of those instead). */
  prev: number;
  /** A JSON frame waits for a quote after `{` (a key) before it counts as JSON. */
  awaitingQuote: boolean;
  /** Not a block, not awaiting a quote, no escape pending: `push` may keep an ordinary character directly. */
  plain: boolean;
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
    modelId: undefined,
    body: undefined,
    ends: NO_ENDS,
    openerLength: 0,
    carry: '',
    stopsAtAngle: false,
    endToken: undefined,
    endTokenAt: -1,
    closeAt: -1,
    endsAtObject: false,
    trailer: undefined,
    awaitAt: -1,
    nestScan: 0,
    nestDepth: -1,
    skips: 0,
    id: undefined,
    argsOffset: start.argsOffset,
    received: '',
    length: 0,
    stack: [paren ? RPAREN : RBRACE],
    quote: 0,
    escaped: false,
    prev: paren ? LPAREN : LBRACE,
    awaitingQuote: start.kind === 'json',
    plain: start.kind === 'call' || start.kind === 'marker',
    // Only JSON frames record nested objects: the others share empty arrays they never write.
    inner: start.kind === 'json' ? [] : NO_RECORDS,
    openRecord: start.kind === 'json' ? [-1, -1] : NO_RECORDS,
    status: 'open',
  };
}

/** A call read from a JSON object. */
interface JsonCall {
  name: string;
  args: Record<string, unknown> | undefined;
  /** The id the model wrote into the object, if any. */
  id?: string;
}

/**
 * The id a model wrote beside a call's name (Cohere `tool_call_id`, Mistral `id`): the first
 * of the two that is a non-empty string (whether it is kept is `settle`'s decision).
 */
function modelIdOf(value: Record<string, unknown>): string | undefined {
  const callId = value.tool_call_id;
  if (typeof callId === 'string' && callId !== '') return callId;
  const id = value.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The longest id a model may write and have kept. */
const MAX_MODEL_ID_LENGTH = 64;

/** How many suffixed ids (`f_1_2`, `f_1_3`, …) a made id that a model's id took tries before giving up. */
const MAX_ID_SUFFIXES = 64;

/**
 * Whether an id the model wrote may be a call's id: 1 to 64 characters of `[A-Za-z0-9_.:-]`
 * (Kimi `functions.NAME:IDX`, Mistral `[CALL_ID]`, Cohere `0`), and not `__proto__` (callers
 * key maps and objects by id). Anything else (a megabyte, control characters, spaces) would
 * reach logs, UIs and the next request's messages as written.
 */
function isSafeModelId(id: string): boolean {
  const length = id.length;
  if (length === 0 || length > MAX_MODEL_ID_LENGTH || id === '__proto__') return false;
  for (let i = 0; i < length; i++) {
    const c = id.charCodeAt(i);
    const ok = (c >= 0x30 && c <= 0x3a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2e || c === 0x2d;
    if (!ok) return false;
  }
  return true;
}

/**
 * A text built a chunk at a time (a rope of one node per chunk) as a slice of one flat copy:
 * the block readers call `startsWith`, `indexOf` and `slice` on it many times, which on the
 * rope itself cost several times as much. Slicing off an appended character makes the copy once.
 */
function flat(text: string): string {
  return `${text} `.slice(0, -1);
}

const NO_BREAKS: readonly string[] = [];

/**
 * Where a span that starts at `s[start]` and is given up at `end` (its bound) is cut: before
 * `end`, or one earlier when `s[end - 1]` is a high surrogate, so that no character is split
 * between the span's `incomplete` text and the text after it (a lone surrogate in either would
 * reach a client as U+FFFD, or fail to encode). Only what lies before the bound decides, so a
 * stream that has not seen `s[end]` yet cuts where a batch does.
 */
function cutAt(s: string, start: number, end: number): number {
  return end - 1 > start && (s.charCodeAt(end - 1) & 0xfc00) === 0xd800 ? end - 1 : end;
}

/**
 * A marker whose object closed, reading what may be its end token (space, then the token)
 * in `s` from `from` (up to `to`): the index of the token's last character, or of the first
 * character that is not it (`endsAtObject`: the call ends at its object, and what came after is
 * read again), or -1 while undecided.
 */
function feedEndToken(frame: Frame, s: string, from: number, to: number): number {
  const token = frame.endToken ?? '';
  let matched = frame.endTokenAt;
  for (let j = from; j < to; j++) {
    const c = s.charCodeAt(j);
    if (matched === 0 && isSpace(c)) continue;
    if (c === token.charCodeAt(matched)) {
      matched++;
      if (matched < token.length) continue;
      frame.endTokenAt = -1;
      return j;
    }
    frame.endTokenAt = -1;
    frame.endsAtObject = true;
    return j;
  }
  frame.endTokenAt = matched;
  return -1;
}

/** The interrupt of `reasoning` at `s[at]` (where `scanReasoning` stopped for it), if any. */
function interruptAt(reasoning: Reasoning, s: string, at: number): string | undefined {
  for (const token of reasoning.interrupts) if (s.startsWith(token, at)) return token;
  return undefined;
}

/** Whether `c` may begin a token that ends the reasoning: a closer or an interrupt (inside `<think>`, a Kimi tool section). */
function beginsReasoningEnd(reasoning: Reasoning, c: number): boolean {
  for (const first of reasoning.firsts) if (first === c) return true;
  return false;
}

/** Whether `text` is the start of one of a block's closing tokens (shorter than it). */
function beginsEnd(ends: readonly string[], text: string): boolean {
  for (const token of ends) if (token.length > text.length && token.startsWith(text)) return true;
  return false;
}

/**
 * What of `text` (a block's carried text and its next character) may still grow into one of
 * its closing tokens: all of it, or the text from the earliest `<` that begins one (a token
 * such as Kimi K3's `<|close|>tools<|sep|>` has a `<` inside it), or nothing. The carry is
 * shorter than two tokens, so this reads a bounded text.
 */
function carriedEnd(ends: readonly string[], text: string): string {
  if (beginsEnd(ends, text)) return text;
  for (let open = text.indexOf('<', 1); open > 0; open = text.indexOf('<', open + 1)) {
    const rest = text.slice(open);
    if (beginsEnd(ends, rest)) return rest;
  }
  return '';
}

/** Whether a `>` now would end one of the block's closing tokens (begun in its carried text). */
function closesBlock(frame: Frame): boolean {
  const candidate = `${frame.carry}>`;
  for (const token of frame.ends) if (candidate.endsWith(token)) return true;
  return false;
}

/** A JSON Schema of an object: the `parameters` of an echoed tool definition, not arguments. */
function isObjectSchema(value: unknown): boolean {
  return isRecord(value) && value.type === 'object' && (isRecord(value.properties) || Array.isArray(value.required));
}

/**
 * Arguments nested deeper than this are not a call's: serialising or comparing them recurses
 * (a model can write 5,000 brackets; real tools nest a few levels; core's `parseArguments`
 * reads no deeper either). Batch and streaming both drop such a call as invalid, so they agree
 * and neither overflows the stack.
 */
const MAX_ARGUMENT_DEPTH = 200;

/** Whether `value` nests objects or arrays deeper than `MAX_ARGUMENT_DEPTH` (read without recursion). */
function nestsTooDeep(value: unknown): boolean {
  const stack: unknown[] = [value];
  const depths: number[] = [0];
  while (stack.length > 0) {
    const item = stack.pop();
    const depth = depths.pop() ?? 0;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= MAX_ARGUMENT_DEPTH) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** `raw` re-read against the tool's schema (undefined when it nests too deep to serialise). */
function withSchema(raw: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> | undefined {
  return nestsTooDeep(raw) ? undefined : tryParseArguments(JSON.stringify(raw), schema);
}

/** The arguments in `text[from, to)`, read in place (a part cut out of a long text reads slower than the text). */
function tryParseArguments(text: string, schema: JsonSchema | undefined, from = 0, to = text.length): Record<string, unknown> | undefined {
  try {
    return parseArguments(text, { schema, from, to });
  } catch (error) {
    if (InvalidArgumentsError.isInstance(error)) return undefined;
    throw error;
  }
}

/** How far a call's arguments are read in one pass: longer ones (rare) are scanned, then parsed. */
const ONE_PASS_LENGTH = 16_384;
/** How many more one-pass readings may fail than succeed before a text stops trying them. */
const ONE_PASS_SLACK = 8;

/** An ASCII letter or `_`: how a plain name, and each of its dotted parts, starts. */
function isAsciiNameStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

/** Text left to scan up to which one loop over it beats an `indexOf` per character looked for. */
const SHORT_SCAN = 128;

/** Reasoning being read: the tokens that may close it, and a held-back possible start of one. */
interface Reasoning {
  closers: readonly string[];
  /** Tokens that end it without being part of it (read as usual after it). */
  interrupts: readonly string[];
  /** `closers` then `interrupts`. */
  ends: readonly string[];
  /** The first characters of `ends`, once each (a stream asks about every character of reasoning). */
  firsts: readonly number[];
  carry: string;
}

/**
 * The one scanner behind `extractToolCalls` and `createToolCallParser`. It consumes text
 * chunk by chunk; every character is examined a bounded number of times (a held-back name
 * or opener of bounded length is re-read with the next chunk, a closed span is parsed
 * once), so the cost is linear in the input whatever the chunking.
 */
export class ToolCallScanner implements OpenerContext, NativeContext {
  /**
   * Calls found so far, de-duplicated, in order of appearance (batch only: a stream reports
   * them as events); made with the first call, the size of one call (most outputs hold one).
   */
  private found: ToolCall[] | undefined;
  /** How many calls were found (and given ids) so far. */
  private callCount = 0;
  /**
   * The ids of the calls found so far, which a model-written id must not repeat, each with
   * whether the model wrote it (a made id must not repeat those): made when a model first
   * writes an id, from `found` (batch) or `idList` (a stream, which keeps no calls).
   */
  private ids: Map<string, boolean> | undefined;
  /** A stream's ids of the calls found so far until `ids` is made (a push costs less than a set's add). */
  private idList: string[] | undefined;
  /** Whether a model-written id was kept (then `ids` is made and made ids are checked against it). */
  private modelIdKept = false;
  private readonly options: ResolvedExtractOptions;
  /** Whether to build text and delta events (the batch form only needs the calls). */
  private readonly withEvents: boolean;
  /**
   * Events of the current `push` or `end`, created by the first one: most chunks of a token
   * stream complete nothing, and `[event]` sizes its storage exactly (`[]` then `push` does not).
   */
  private events: ToolCallParserEvent[] | undefined;
  /** Where the current `push` or `end` delivers its events instead of `events`, when the caller gave a sink. */
  private sink: ToolCallSink | undefined;
  /** Created with the second call: most outputs hold none or one. */
  private seen: SeenCalls | undefined;
  /** Held-back text at the end of the last chunk: a possible start of a name or an opener. */
  private tail = '';
  /** Whether `tail` holds a possible opener (which the one-character fast path must not release). */
  private tailOpener = false;
  /** What the held-back opener waits for (see `openerWait`), when known. */
  private tailWait: OpenerWait | undefined;
  /** `options.formats` as flags (see `formatFlags`), from the first `has`. */
  private formatFlags: Readonly<Record<ToolCallFormat, boolean>> | undefined;
  /** How a lone `[`, `<` or `>` is decided (see `loneOpener`), shared by the streams with these formats. */
  private lone: LoneDecisions | undefined;
  /**
   * The last HISTORY_LENGTH characters released before `tail`, as a ring of codes (a string
   * grown per released character would make one per character of a token stream); while
   * `recentText` is set, only the `recentCount` characters released after it.
   */
  private recent: Uint16Array | undefined;
  /** Where the next released character goes in `recent`, and how many it holds. */
  private recentAt = 0;
  private recentCount = 0;
  /**
   * The end of the last streamed call released, when its arguments text (made by the parser)
   * was HISTORY_LENGTH to KEPT_TEXT_LENGTH long, with `recent` holding only what went out after
   * it: a look-behind reads its end from it, so releasing the call copies nothing (most calls
   * are followed by no definition check).
   */
  private recentText: string | undefined;
  /**
   * The last character released (-1: none yet), read before every call name.
   */
  private lastReleased = -1;
  /**
   * Everything released so far while it may be a harmony role-part recipient that a first
   * header follows (` to=functions.NAME`, see `readLeadingRecipient`); undefined once it cannot
   * be (after the first few characters of almost any text). Only harmony's reader asks. The
   * one-character text path keeps it too: each response is a new parser, and its first
   * characters would otherwise all take the general push.
   */
  private opening: string | undefined = '';
  private frame: Frame | undefined;
  /**
   * What `push` may do with a one-character chunk by itself (`FAST_NONE`…`FAST_TEXT`), and the
   * id its delta reports (undefined: none): set from `frame` (plain or not, its open quote, its
   * id), `sink`, reasoning and `final` whenever the general push or `end` ran, and by `push` for
   * the quotes it opens and closes; `FAST_NONE` is always safe (the general push then runs).
   */
  private fast = FAST_NONE;
  private deltaId: string | undefined;
  /** Reasoning whose calls are not calls: only its closer is looked for. */
  private reasoning: Reasoning | undefined;
  /**
   * `<think>` reasoning that a Kimi tool section (or call) interrupted, until the opener at the
   * interruption is decided; then, if it opened a section or call, `resumeAfterFrame` until that
   * frame is read, after which the reasoning goes on (llama.cpp's Kimi cases: thinking may go on
   * after a section written inside it, up to `</think>`).
   */
  private interrupted: Reasoning | undefined;
  private resumeAfterFrame: Reasoning | undefined;
  /** Reasoning read like text (`callsInReasoning`): the closers looked for, text goes out as reasoning. */
  private reasoningClosers: readonly string[] | undefined;
  /** With `reasoningClosers`: tokens that end that reasoning without being part of it (a harmony header), read as usual. */
  private reasoningBreaks: readonly string[] = NO_BREAKS;
  /** The text `scanText` left for reasoning, and where it had found each character it looks for. */
  private nextIn: string | undefined;
  private nextAt: readonly number[] = NO_RECORDS;
  /** `end()` was called (or the text came whole): openers are decided on the text there is, and no chunk may follow. */
  private final = false;
  /**
   * The text came whole (`scanWhole`, batch): nothing is held back for a next chunk, and
   * released text is not kept for look-behind, which then reads the text itself.
   */
  private whole = false;
  /**
   * Whether a call's arguments are first read in one pass from its `(` (see `parseCallArguments`),
   * rather than found by the frame scanner and then parsed: only without events, which report
   * the arguments as they are scanned.
   */
  private readonly onePass: boolean;
  /** One-pass readings that failed and that succeeded: failures past a budget end the attempts. */
  private onePassFailures = 0;
  private onePassReads = 0;
  /**
   * Ordinary characters of the open frame streamed one at a time, not yet in its `received`
   * text: appending each to the text would make a string per character, kept alive (and
   * copied by every young-generation collection) until the frame closes.
   */
  private codes: Uint16Array = NO_CODES;
  private pending = 0;
  /** Whether `codes` holds a surrogate, which may be unpaired. */
  private surrogates = false;
  /**
   * The allowed name `isCallName` last found, and where it stood (`listedIn` from
   * `listedStart`): the batch scan takes it as the call's name (see `nameAt`) rather than
   * cutting the name out of the text a second time.
   */
  private listed: string | undefined;
  private listedIn: string | undefined;
  private listedStart = -1;

  /**
   * Whether a one-character push may skip the general push (`push`'s in-span path, `pushOther`'s
   * text and block paths): off only in tests, as the reference those paths are held to.
   */
  private readonly shortcuts: boolean;
  /** `options.maxCallChars`: the most characters a frame holds (see `overflowIn`, `overflowHeld`). */
  private readonly maxCall: number;
  /** The text after a span given up in the text being scanned, to be read next as a text of its own (see `drive`). */
  private fresh: string | undefined;

  /**
   * `onePass: false` (tests) reads every call the two-pass way, the reference for the one-pass
   * reading; `shortcuts: false` (tests) pushes every character through the general push.
   */
  constructor(options: ResolvedExtractOptions, withEvents: boolean, onePass = !withEvents, shortcuts = true) {
    this.options = options;
    this.withEvents = withEvents;
    this.onePass = onePass && !withEvents;
    this.shortcuts = shortcuts;
    // No bound (`Infinity`): a frame's text is a string, which is never longer than V8's 2^29 - 24 characters.
    this.maxCall = Math.min(options.maxCallChars, MAX_FRAME_LENGTH);
    if (options.startInReasoning) {
      const closers = ['</think>', '</seed:think>', '[/THINK]', '<|END_THINKING|>', '<channel|>', '<|end|>'];
      this.enterReasoning(closers, reasoningInterrupts(closers, this));
    }
    this.updateFast();
  }

  /** The calls found (batch): the scanner's own list once a call is found (a scanner does one batch), otherwise a new empty array. */
  get calls(): ToolCall[] {
    return this.found ?? [];
  }

  /**
   * Scans a whole text (batch): the same calls as `push(text)` then `end()`. Marked final
   * from the start, it holds nothing back for a chunk that never comes, so there is nothing
   * left for `end()` to decide (what it would still do, events for an unclosed call, a
   * batch does not report).
   */
  scanWhole(text: string): void {
    this.final = true;
    this.whole = true;
    // Nothing is held back or open yet: past the one-character paths, `scanChunk` would drive the text as it is.
    if (text.length > 1) this.driveWhole(text, 0);
    else this.scanChunk(text);
    this.finishMarkerAtEnd();
    this.finishBlockAtEnd();
  }

  /** Scans the next chunk; returns the events it completes, or hands them to `sink` (and returns none). */
  push(chunk: string, sink?: ToolCallSink): readonly ToolCallParserEvent[] {
    // `fast` sums up what the general path would otherwise read from the frame per character
    // (is one open, is it plain, which quote is open, is a sink being delivered to).
    const fast = this.fast;
    if (fast !== FAST_NONE && chunk.length === 1) {
      if (fast === FAST_TEXT) return this.pushTextCharacter(chunk, sink) ?? this.pushGeneral(chunk, sink);
      // One ordinary character inside an open span (token streams: most pushes): it changes no
      // bracket or quote. Kept small so that it inlines into the caller's loop.
      const c = chunk.charCodeAt(0);
      // A `"` opens a string whatever precedes it, and the quote that opened one closes it (a
      // plain frame has no escape pending): `feed` would change nothing else for either.
      let ordinary: boolean;
      if (fast === FAST_CODE) {
        ordinary = c >= 128 || CLASS[c] === 0;
        if (c === DQUOTE) {
          this.setQuote(DQUOTE);
          ordinary = true;
        }
      } else {
        ordinary = c !== BACKSLASH;
        if (c === (fast === FAST_DOUBLE ? DQUOTE : SQUOTE)) this.setQuote(0);
      }
      if (ordinary) {
        // The frame's `prev` and `length` are brought up to date from `codes` when next needed.
        const pending = this.pending;
        if (pending < this.codes.length && (c & 0xf800) !== 0xd800) {
          this.codes[pending] = c;
          this.pending = pending + 1;
        } else {
          this.keepCode(c);
        }
        const id = this.deltaId;
        if (id !== undefined) {
          if (sink === undefined) return [{ type: 'tool-call-delta', id, argumentsText: chunk }];
          sink.onToolCallDelta?.(id, chunk);
        }
        if (NO_EVENTS.length !== 0) NO_EVENTS.length = 0;
        return NO_EVENTS;
      }
    }
    return this.pushOther(chunk, sink);
  }

  /** Opens (`DQUOTE`) or closes (0) a string in the open plain frame, for `push`. */
  private setQuote(quote: number): void {
    const frame = this.frame;
    if (frame === undefined) return;
    frame.quote = quote;
    this.fast = quote === 0 ? FAST_CODE : FAST_DOUBLE;
  }

  /** Brings `fast` and `deltaId` up to date after anything but `push`'s own paths ran. */
  private updateFast(): void {
    const frame = this.frame;
    if (frame === undefined || !frame.plain || this.sink !== undefined || !this.shortcuts) {
      this.fast =
        frame === undefined &&
        this.sink === undefined &&
        this.shortcuts &&
        !this.final &&
        this.reasoning === undefined &&
        this.reasoningClosers === undefined
          ? FAST_TEXT
          : FAST_NONE;
      this.deltaId = undefined;
      return;
    }
    const quote = frame.quote;
    this.fast = quote === 0 ? FAST_CODE : quote === DQUOTE ? FAST_DOUBLE : FAST_SINGLE;
    this.deltaId = this.withEvents ? frame.id : undefined;
  }

  /**
   * One character pushed outside any span, when it only goes out as text or grows a held-back
   * name (token streams of prose, and the name before each call): what `textCharacter` does,
   * without the general push. Undefined when the general push must run.
   */
  private pushTextCharacter(chunk: string, sink: ToolCallSink | undefined): readonly ToolCallParserEvent[] | undefined {
    if (this.sink !== undefined || this.final || this.reasoning !== undefined || this.reasoningClosers !== undefined) return undefined;
    const c = chunk.charCodeAt(0);
    if (this.tailOpener) {
      // A held-back opener this character cannot decide (its text is read again only when one can).
      const wait = this.tailWait === undefined ? undefined : waitAfter(this.tailWait, this.tail, c);
      if (wait === undefined) {
        // A held `[` that this character decides as `textCharacter` does (most outputs of some
        // models open with `[`): it goes out as text, and the character with it or as a name.
        if (this.tail !== '[' || c === 0x54 || isScanned(c)) return undefined;
        this.tailOpener = false;
        if (isNameRunUnit(c) && this.couldBeName(chunk)) {
          this.tail = chunk;
          return this.textOut('[', sink);
        }
        this.tail = '';
        return this.textOut(`[${chunk}`, sink);
      }
      this.tailWait = wait;
      this.tail += chunk;
      return noEvents();
    }
    const kind = c < 128 ? (TEXT_CLASS[c] ?? 2) : isNameRunUnit(c) ? 0 : 1;
    if (kind === 0) {
      const run = this.tail + chunk;
      if (run.length > MAX_NAME_LENGTH) return undefined;
      if (!this.couldBeName(run)) return this.releaseRun(run, sink);
      this.tail = run;
      return noEvents();
    }
    if (kind !== 1) return kind === 2 && this.tail === '' ? this.pushLoneOpener(c, chunk, sink) : undefined;
    if (c === COLON && this.tail !== '' && this.holdsPaths()) return undefined;
    if (this.tail !== '') {
      const text = this.tail + chunk;
      this.tail = '';
      return this.textOut(text, sink);
    }
    // The first characters of a stream, while they may be a harmony role part (see `opening`).
    if (this.opening !== undefined) this.noteOpening(chunk);
    this.rememberCode(c);
    // As with a delta, the state is complete before the sink method runs.
    if (!this.withEvents) return noEvents();
    if (sink === undefined) return [{ type: 'text', text: chunk }];
    sink.onText?.(chunk);
    return noEvents();
  }

  /**
   * A run of name characters (the held run and the pushed one) that no listed name begins: what
   * `nameHold` makes of it, without the general push (with an allow-list, most words of prose
   * and the arguments of calls to other tools). It goes out as text, but for the part after its
   * last script boundary that a listed name begins (`请调用get_w`). Undefined where a listed
   * path (`ns::tool`) may be involved: the general push decides.
   */
  private releaseRun(run: string, sink: ToolCallSink | undefined): readonly ToolCallParserEvent[] | undefined {
    if (this.holdsPaths()) return undefined;
    let boundary = -1;
    for (let k = run.length - 1; k > 0 && boundary < 0; k--) if (isScriptBoundary(run.charCodeAt(k - 1), run.charCodeAt(k))) boundary = k;
    if (boundary > 0 && this.couldBeName(run.slice(boundary))) {
      this.tail = run.slice(boundary);
      return this.textOut(run.slice(0, boundary), sink);
    }
    this.tail = '';
    return this.textOut(run, sink);
  }

  /**
   * A lone `[`, `<` or `>` pushed after released text, decided as `textCharacter` decides it
   * (once per format set, see `loneOpener`): released, or held back as an opener. Undefined for
   * anything else (`(`, `{`), which the general push reads.
   */
  private pushLoneOpener(c: number, chunk: string, sink: ToolCallSink | undefined): readonly ToolCallParserEvent[] | undefined {
    if (c === LPAREN || c === LBRACE) return undefined;
    const decided = this.loneOpener(c);
    if (decided === undefined) return undefined;
    if (decided === 'text') return this.textOut(chunk, sink);
    this.nextIn = undefined;
    this.tail = chunk;
    this.tailOpener = true;
    this.tailWait = decided === 'hold' ? undefined : decided;
    return noEvents();
  }

  /** Releases `text` from a one-character path (state complete): its event, or the sink's `onText`. */
  private textOut(text: string, sink: ToolCallSink | undefined): readonly ToolCallParserEvent[] {
    this.remember(text);
    if (!this.withEvents) return noEvents();
    if (sink === undefined) return [{ type: 'text', text }];
    sink.onText?.(text);
    return noEvents();
  }

  /** Keeps the open frame's next character `c` in `codes` (their text joins the frame's first when full). */
  private keepCode(c: number): void {
    if (this.pending === this.codes.length) this.makeRoom();
    if ((c & 0xf800) === 0xd800) this.surrogates = true;
    this.codes[this.pending++] = c;
  }

  /**
   * Makes room in `codes` for one more character: takes a buffer, or joins the full one to the
   * frame's text (a function of its own, so that `keepCode`, inlined into `push`, stays small).
   */
  private makeRoom(): void {
    if (this.codes.length === 0) {
      this.codes = SPARE_CODES.pop() ?? new Uint16Array(CODES_LENGTH);
      return;
    }
    this.flushCodes();
    // At the bound: no shortcut, so that the next push (the general one) gives the frame up.
    if (this.frame !== undefined && this.frame.length >= this.maxCall) this.fast = FAST_NONE;
  }

  /** Appends the characters kept in `codes` to the open frame's text (and brings its `length` and `prev` up to date). */
  private flushCodes(): void {
    const frame = this.frame;
    if (this.pending === 0 || frame === undefined) return;
    const pending = this.pending;
    frame.received += this.codesText(pending);
    frame.length += pending;
    frame.prev = this.codes[pending - 1] ?? frame.prev;
    this.pending = 0;
    this.surrogates = false;
  }

  /** The text of `codes[0, count)`. */
  private codesText(count: number): string {
    // Short runs: a decoder call and a view of the codes cost more than joining them.
    if (count <= SHORT_CODES) return joinCodes(this.codes, count);
    const codes = this.codes.subarray(0, count);
    // The decoder is several times faster, but it would replace a lone surrogate; `apply`
    // takes the typed array as its argument list (no array of numbers is made).
    return this.surrogates ? String.fromCharCode.apply(null, codes as unknown as number[]) : UTF16.decode(codes);
  }

  /** `push` of anything but an ordinary character inside an open span. */
  private pushOther(chunk: string, sink: ToolCallSink | undefined): readonly ToolCallParserEvent[] {
    // One character outside the in-call path (kept out of `push`, which must stay small enough to inline).
    if (chunk.length === 1 && this.sink === undefined && this.shortcuts) {
      const frame = this.frame;
      if (frame === undefined) {
        const events = this.pushTextCharacter(chunk, sink);
        if (events !== undefined) return events;
      } else if (this.fast === FAST_CODE && frame.kind !== 'json') {
        const events = this.pushBracket(frame, chunk, sink);
        if (events !== undefined) return events;
      } else if (frame.carry === '' && frame.kind === 'block' && frame.awaitAt < 0 && chunk.charCodeAt(0) !== LANGLE && frame.length < this.maxCall) {
        // One character inside a native block that carries nothing: unless it is `<` (which may
        // begin a closing token), it is only kept (see `keepBlockCharacter`; a `>` after no `<`
        // closes nothing, every closing token being longer). Not while the block waits for its
        // trailer (`awaitAt`): the character may decide that the trailer does not come. Nor at
        // the bound, where the general push gives the block up.
        this.keepCode(chunk.charCodeAt(0));
        return noEvents();
      }
    }
    return this.pushGeneral(chunk, sink);
  }

  /**
   * A bracket inside a plain call or marker frame, outside strings, that neither closes nor
   * breaks the frame (nested arguments: `[1, 2]`, `{"k": …}`, `f(x)`): what `feed` would do
   * (JSON frames, which record nested objects, are left to it). Undefined for anything else.
   */
  private pushBracket(frame: Frame, chunk: string, sink: ToolCallSink | undefined): readonly ToolCallParserEvent[] | undefined {
    const c = chunk.charCodeAt(0);
    const kind = c < 128 ? (CLASS[c] ?? 0) : 0;
    const stack = frame.stack;
    if (kind === 2) {
      stack.push(c === LPAREN ? RPAREN : c === LBRACKET ? RBRACKET : RBRACE);
    } else if (kind === 3 && stack.length > 1 && stack[stack.length - 1] === c) {
      stack.pop();
    } else {
      return undefined;
    }
    this.keepCode(c);
    const id = this.deltaId;
    if (id === undefined) return noEvents();
    if (sink === undefined) return [{ type: 'tool-call-delta', id, argumentsText: chunk }];
    sink.onToolCallDelta?.(id, chunk);
    return noEvents();
  }

  /** `push` through the general scan. */
  private pushGeneral(chunk: string, sink: ToolCallSink | undefined): readonly ToolCallParserEvent[] {
    // After `end()` no frame is open: a chunk always comes here.
    if (this.final) throw new ToolCallParserEndedError();
    if (this.sink !== undefined) throw new ToolCallParserReentryError();
    // No shortcut while the chunk is scanned: the frame changes, and a push from a sink method must fail.
    this.fast = FAST_NONE;
    if (sink === undefined) {
      const events = this.scanOther(chunk);
      this.updateFast();
      return events;
    }
    this.sink = sink;
    try {
      this.scanOther(chunk);
    } finally {
      this.sink = undefined;
    }
    this.updateFast();
    return noEvents();
  }

  /** `pushOther` once the chunk may be scanned. */
  private scanOther(chunk: string): readonly ToolCallParserEvent[] {
    const frame = this.frame;
    if (frame !== undefined && frame.length + this.pending >= this.maxCall) {
      // The one-character paths grew the frame to the bound (see `makeRoom`): it is given up first.
      this.overflowHeld();
      this.scanChunk(chunk);
      return this.takeEvents();
    }
    if (frame !== undefined && chunk.length === 1) {
      // One character inside an open span, read without the general scan.
      if (frame.kind === 'block') {
        if ((chunk !== '>' || !closesBlock(frame)) && frame.awaitAt < 0) {
          this.keepBlockCharacter(frame, chunk);
          return noEvents();
        }
      } else {
        if (this.pending !== 0) frame.prev = this.codes[this.pending - 1] ?? frame.prev;
        const end = this.feed(frame, chunk, 0, frame.length + this.pending);
        if (end < 0) {
          this.keepCode(chunk.charCodeAt(0));
          const id = frame.id;
          if (id !== undefined) this.emitDeltaText(id, chunk);
          return this.takeEvents();
        }
        if (frame.kind === 'call' && frame.status === 'closed' && frame.length === frame.argsOffset && this.pending < this.codes.length) {
          // All of the call's arguments came a character at a time (most streamed calls):
          // they are read from one new string of their codes and the `)`.
          this.frame = undefined;
          this.closeStreamedCall(frame);
          return this.takeEvents();
        }
        if (this.pending !== 0) this.flushCodes();
        this.frame = undefined;
        // The span's closing character leaves nothing to scan (a frame holds no text back before it).
        const at = this.finish(frame, chunk, 0, end);
        if (this.resumeAfterFrame !== undefined) this.resumeReasoning();
        if (at < chunk.length) this.drive(chunk, at);
        return this.takeEvents();
      }
    }
    if (this.pending !== 0) this.flushCodes();
    this.scanChunk(chunk);
    return this.takeEvents();
  }

  /**
   * Closes a call frame whose text is its name and `(` (`received`), then only characters kept
   * in `codes`, when a `)` closes it: what `finish` does, but the arguments are read from one
   * new string of the codes and the `)` (decoded flat, past the shortest). Appended to
   * `received` (as `flushCodes` would) they would be read from a concatenation, which every
   * character read of the argument parser must go through (about 1.6x the time of a flat string).
   */
  private closeStreamedCall(frame: Frame): void {
    const count = this.pending + 1;
    this.codes[this.pending] = RPAREN;
    const argsText = this.codesText(count);
    this.pending = 0;
    this.surrogates = false;
    const args = this.closedCallArguments(frame, argsText, 0, count - 1);
    this.settle(frame.name, args, frame.received + argsText, frame.id, undefined, argsText);
  }

  /**
   * A character inside a native block that does not close it. A closing token starts with `<`
   * and ends with `>`: what may begin one is the text from a `<` (shorter than the longest
   * token), so a character after none is not carried at all, and after a `>` nothing is unless
   * the carried text goes on as a token with a `<…>` inside (Kimi K3's `<|close|>tools<|sep|>`).
   */
  private keepBlockCharacter(frame: Frame, chunk: string): void {
    if (chunk === '<' && frame.carry === '') {
      frame.carry = '<';
    } else if (frame.carry !== '') {
      // Only text that may still grow into a closing token is carried: inside a block most
      // `<` open the body's own tags, whose text is then dropped after a character or two.
      frame.carry = carriedEnd(frame.ends, frame.carry + chunk);
    }
    this.keepCode(chunk.charCodeAt(0));
  }


  /** Flushes held-back text; an open call or block becomes an `incomplete` event. With a sink, the events go to it. */
  end(sink?: ToolCallSink): readonly ToolCallParserEvent[] {
    if (this.sink !== undefined) throw new ToolCallParserReentryError();
    this.fast = FAST_NONE;
    this.deltaId = undefined;
    if (sink === undefined) return this.endScan();
    this.sink = sink;
    try {
      this.endScan();
    } finally {
      this.sink = undefined;
    }
    return noEvents();
  }

  private endScan(): readonly ToolCallParserEvent[] {
    if (this.final) return noEvents();
    this.final = true;
    if (this.pending !== 0) this.flushCodes();
    if (this.frame !== undefined && this.frame.length >= this.maxCall) this.overflowHeld();
    const waiting = this.frame;
    if (waiting?.kind === 'block' && waiting.awaitAt >= 0) {
      // The text ended before a block's trailer: the block ends at its closing token.
      this.feedTrailer(waiting, '');
    } else {
      // The text ended while a call's end token may still have come: the call ends at its object.
      this.finishMarkerAtEnd();
    }
    // A block whose closing tokens were all taken as quoted calls' stays open: the text may
    // have been cut right after a quoted call, so it is `incomplete`, never a guessed call.
    if (this.frame === undefined && this.reasoning === undefined && this.tail !== '') {
      // Decide held-back openers on the text there is.
      const tail = this.tail;
      this.tail = '';
      this.tailOpener = false;
      this.drive(tail, 0);
    }
    const frame = this.finishBlockAtEnd() ? undefined : this.frame;
    if (frame !== undefined) {
      this.frame = undefined;
      const text = frame.received;
      if (frame.kind === 'json' && frame.awaitingQuote) this.releaseText(text);
      else if (this.withEvents) this.emit(frame.id === undefined ? { type: 'incomplete', text } : { type: 'incomplete', text, id: frame.id });
    }
    const reasoning = this.reasoning;
    if (reasoning !== undefined) {
      this.reasoning = undefined;
      if (reasoning.carry !== '' && this.withEvents) this.emit({ type: 'reasoning', text: reasoning.carry });
    }
    if (this.tail !== '') {
      this.releaseText(this.tail);
      this.tail = '';
    }
    // Nothing is scanned after the end: what de-duplication and look-behind kept (argument
    // values may be cuts of a pushed chunk, which keep the whole chunk alive) can go.
    this.seen = undefined;
    this.recentText = undefined;
    // No character is kept after the end: the codes buffer goes to the next stream.
    if (this.codes.length === CODES_LENGTH && SPARE_CODES.length < MAX_SPARE_CODES) SPARE_CODES.push(this.codes);
    this.codes = NO_CODES;
    this.pending = 0;
    return this.takeEvents();
  }

  /**
   * The events emitted since the last call; the shared empty array when there are none.
   */
  private takeEvents(): ToolCallParserEvent[] {
    const events = this.events;
    if (events === undefined) return noEvents();
    this.events = undefined;
    return events;
  }

  /** Scans one chunk, emitting into `events`. */
  private scanChunk(chunk: string): void {
    if (chunk.length === 0) return;
    const reasoning = this.reasoning;
    if (reasoning !== undefined) {
      // One character of reasoning that cannot begin its end (token streams): it goes out as is.
      if (chunk.length === 1 && reasoning.carry === '' && !beginsReasoningEnd(reasoning, chunk.charCodeAt(0))) this.emitReasoning(chunk);
      else this.drive(chunk, 0);
      return;
    }
    const frame = this.frame;
    if (frame === undefined && chunk.length === 1 && this.textCharacter(chunk)) return;
    if (frame === undefined) {
      const s = this.tail + chunk;
      this.tail = '';
      this.tailOpener = false;
      this.drive(s, 0);
    } else if (frame.kind === 'block') {
      if (frame.awaitAt >= 0) {
        this.feedTrailer(frame, chunk);
        return;
      }
      const end = this.feedBlock(frame, chunk, 0, frame.length);
      if (end < 0) {
        frame.received += chunk;
        frame.length += chunk.length;
        if (frame.length >= this.maxCall) this.overflowHeld();
      } else {
        this.frame = undefined;
        this.finishBlock(frame, flat(frame.received + chunk.slice(0, end)));
        if (this.resumeAfterFrame !== undefined) this.resumeReasoning();
        this.drive(chunk, end);
      }
    } else {
      const end = this.feed(frame, chunk, 0, frame.length);
      this.emitDelta(frame, chunk, 0, end);
      if (end < 0) {
        frame.received += chunk;
        frame.length += chunk.length;
        if (frame.length >= this.maxCall) this.overflowHeld();
      } else {
        this.frame = undefined;
        const at = this.finish(frame, chunk, 0, end);
        if (this.resumeAfterFrame !== undefined) this.resumeReasoning();
        this.drive(chunk, at);
      }
    }
  }

  /**
   * One character outside any span (token streams): handled here, without the general scan,
   * where it cannot matter, exactly as that scan would; false when it must run.
   */
  private textCharacter(chunk: string): boolean {
    const c = chunk.charCodeAt(0);
    if (this.tailOpener) {
      // A held-back opener this character cannot decide: kept without reading it again.
      const wait = this.tailWait === undefined ? undefined : waitAfter(this.tailWait, this.tail, c);
      if (wait !== undefined) {
        this.tailWait = wait;
        this.tail += chunk;
        return true;
      }
      // A held `[` not followed by `T` opens nothing (every token opening with `[` goes on with
      // `T`; `matchOpener` decides so first): it goes out as text, and the character as below.
      if (this.tail !== '[' || c === 0x54 || isScanned(c) || this.reasoningClosers !== undefined) return false;
      this.tailOpener = false;
      if (isNameRunUnit(c) && this.couldBeName(chunk)) {
        this.releaseText('[');
        this.tail = chunk;
      } else {
        this.tail = '';
        this.releaseText(`[${chunk}`);
      }
      return true;
    }
    if (isNameRunUnit(c)) {
      const run = this.tail + chunk;
      if (run.length > MAX_NAME_LENGTH || !this.couldBeName(run)) return false;
      this.tail = run;
      return true;
    }
    if (!isScanned(c)) {
      // A `:` may join a held run to a listed path (`ns::tool`): the general scan decides.
      if (c === COLON && this.tail !== '' && this.holdsPaths()) return false;
      this.releaseText(this.tail + chunk);
      this.tail = '';
      return true;
    }
    if (c === LPAREN && this.tail !== '' && this.options.call) return this.openCall(chunk);
    if (this.tail !== '' || c === LPAREN || c === LBRACE || this.reasoningClosers !== undefined) return false;
    // A lone `[`, `<` or `>` after released text (`[` opens most outputs of some models): how
    // the general scan decides it depends on the formats alone, so it is decided once per format set.
    const decided = this.loneOpener(c);
    if (decided === undefined) return false;
    if (decided === 'text') {
      this.releaseText(chunk);
    } else {
      this.nextIn = undefined;
      this.tail = chunk;
      this.tailOpener = true;
      this.tailWait = decided === 'hold' ? undefined : decided;
    }
    return true;
  }

  /**
   * `(` after a held-back name run (`tail`), as `scanText` reads `tail + '('`: a call opens
   * (the part of the run before the name goes out as text), or the whole goes out as text.
   */
  private openCall(chunk: string): boolean {
    const s = this.tail + chunk;
    const p = s.length - 1;
    this.tail = '';
    this.nextIn = undefined;
    // Where the run of ASCII word characters before `(` starts, as the short scan notes it.
    let words = 0;
    for (let k = 0; k < p; k++) {
      const code = s.charCodeAt(k);
      if (code >= 128 || SCAN_CLASS[code] !== 0) words = k + 1;
    }
    const nameStart = this.callStart(s, p, words);
    if (nameStart < 0) {
      this.releaseText(s);
      return true;
    }
    const frame = (this.frame = newFrame({ kind: 'call', name: s.slice(nameStart, p), argsOffset: p - nameStart + 1 }));
    this.release(s, 0, nameStart);
    if (this.withEvents) {
      const id = this.freshId(frame.name);
      frame.id = id;
      this.emit({ type: 'tool-call-start', id, name: frame.name });
    } else {
      frame.id = '';
    }
    frame.received = s.slice(nameStart);
    frame.length = s.length - nameStart;
    return true;
  }

  /**
   * What `scanText` does with `chunk`, a lone `[`, `<` or `>` with nothing held back and no
   * reasoning closer looked for (see `LoneOpener`): it depends on the formats alone.
   */
  private loneOpener(c: number): LoneOpener | undefined {
    let lone = this.lone;
    if (lone === undefined) {
      const formats = this.options.formats;
      lone = LONE_BY_FORMATS.get(formats);
      if (lone === undefined) {
        lone = loneDecisions(this);
        LONE_BY_FORMATS.set(formats, lone);
      }
      this.lone = lone;
    }
    return loneOpener(c, lone, this);
  }

  /** Scans `s` from `from`, switching between text and reasoning without recursion. */
  private drive(s: string, from: number): void {
    let text = s;
    let at = from;
    while (at >= 0 && at <= text.length) {
      if (this.reasoning !== undefined) {
        const next = this.scanReasoning(this.reasoning, text, at);
        text = next.text;
        at = next.at;
      } else {
        at = this.scanText(text, at);
        if (at < 0 && this.fresh !== undefined) {
          // A span was given up: the text after it is read as a text of its own.
          text = this.fresh;
          this.fresh = undefined;
          at = 0;
        }
      }
    }
  }

  /** `drive` over a whole text (batch), with `scanWholeText` for the text. */
  private driveWhole(s: string, from: number): void {
    let text = s;
    let at = from;
    while (at >= 0 && at <= text.length) {
      if (this.reasoning !== undefined) {
        const next = this.scanReasoning(this.reasoning, text, at);
        text = next.text;
        at = next.at;
      } else {
        at = this.scanWholeText(text, at);
        if (at < 0 && this.fresh !== undefined) {
          text = this.fresh;
          this.fresh = undefined;
          at = 0;
        }
      }
    }
  }

  /**
   * Whether reasoning is read now (an opener started it, or a frame that paused it was read):
   * text scanning then returns, keeping where it found each character it looks for in `s`.
   */
  private readsReasoning(s: string, paren: number, brace: number, angle: number, bracket: number, arrows: number): boolean {
    if (this.reasoning === undefined) return false;
    this.nextIn = s;
    this.nextAt = [paren, brace, angle, bracket, arrows];
    return true;
  }

  /** Takes up again the reasoning that the section or call just read had interrupted (called where such a frame is finished). */
  private resumeReasoning(): void {
    const reasoning = this.resumeAfterFrame;
    this.resumeAfterFrame = undefined;
    if (reasoning !== undefined) this.enterReasoning(reasoning.closers, reasoning.interrupts);
  }

  private enterReasoning(closers: readonly string[], interrupts: readonly string[]): void {
    if (this.options.callsInReasoning) {
      this.reasoningClosers = closers;
      // Calls in reasoning are read anyway: only the tokens that end it (harmony's headers) stay.
      this.reasoningBreaks = interrupts === REASONING_INTERRUPTS ? NO_BREAKS : interrupts;
    } else {
      const ends = interrupts.length === 0 ? closers : [...closers, ...interrupts];
      const firsts = [...new Set(ends.map((token) => token.charCodeAt(0)))];
      this.reasoning = { closers, interrupts, ends, firsts, carry: '' };
    }
  }

  /**
   * Reasoning whose calls are not calls: releases its text as `reasoning` up to a closer,
   * holding back only a possible start of one. Returns where text scanning resumes (in the
   * returned string), or -1 when `s` is used up.
   */
  private scanReasoning(reasoning: Reasoning, s: string, from: number): { text: string; at: number } {
    // Positions stay in `s` when nothing is carried over, so that text scanning resumes in the
    // same string (and keeps what it knows about it: see `scanText`).
    const search = reasoning.carry === '' ? s : reasoning.carry + s.slice(from);
    const start = reasoning.carry === '' ? from : 0;
    reasoning.carry = '';
    // A Kimi tool section may open inside `<think>` reasoning (K2.5) and ends it.
    const found = firstToken(search, reasoning.ends, start);
    const best = found === undefined ? -1 : found.at;
    const bestToken = found === undefined ? '' : found.token;
    const interrupt = found !== undefined && reasoning.interrupts.includes(found.token);
    if (best >= 0) {
      if (best > start) this.emitReasoning(search.slice(start, best));
      this.reasoning = undefined;
      if (interrupt) {
        // A tool section (or a harmony header) opened inside reasoning ends it; it is read as usual.
        // A Kimi section or call inside `<think>` pauses it (see `interrupted`); a harmony header starts a new message.
        if (reasoning.interrupts === REASONING_INTERRUPTS) this.interrupted = reasoning;
        // A harmony message cut short by the next header ends there (no closer: the end's text is empty).
        else if (this.withEvents) this.emit({ type: 'reasoning-end', text: '' });
        return { text: search, at: best };
      }
      if (this.withEvents) this.emit({ type: 'reasoning-end', text: bestToken });
      this.remember(bestToken);
      return { text: search, at: best + bestToken.length };
    }
    let hold = 0;
    // Hold back the longest end of the text that may start a closer (tried only where its first character is).
    for (const token of reasoning.ends) {
      const first = token.charAt(0);
      let j = search.indexOf(first, Math.max(start, search.length - token.length + 1));
      while (j >= 0 && search.length - j > hold) {
        if (token.startsWith(search.slice(j))) {
          hold = search.length - j;
          break;
        }
        j = search.indexOf(first, j + 1);
      }
    }
    if (search.length - start > hold) this.emitReasoning(search.slice(start, search.length - hold));
    reasoning.carry = search.slice(search.length - hold);
    return { text: search, at: -1 };
  }

  private emitReasoning(text: string): void {
    if (!this.withEvents) return;
    const sink = this.sink;
    if (sink === undefined) this.emit({ type: 'reasoning', text });
    else sink.onReasoning?.(text);
  }

  /**
   * Scans `s` from `from` outside any frame, opening and finishing frames as they come.
   * Returns -1 when `s` is used up (or a frame stays open), or the position where reasoning
   * (whose calls are not calls) starts.
   */
  private scanText(s: string, from: number): number {
    let textStart = from;
    let i = from;
    let nextParen = this.options.call ? -2 : -1;
    let nextBrace = this.options.json ? -2 : -1;
    let nextAngle = -2;
    let nextBracket = -2;
    let nextArrows = this.options.functionary ? -2 : -1;
    const known = this.nextIn === s ? this.nextAt : undefined;
    if (known !== undefined) {
      // Back in the same text after a reasoning block: a character found absent stays absent,
      // so the rest of the text is not searched again for it (per block, that would be quadratic).
      nextParen = known[0] ?? nextParen;
      nextBrace = known[1] ?? nextBrace;
      nextAngle = known[2] ?? nextAngle;
      nextBracket = known[3] ?? nextBracket;
      nextArrows = known[4] ?? nextArrows;
    }
    this.nextIn = undefined;
    let holdFrom = -1;
    const call = nextParen !== -1;
    const json = nextBrace !== -1;
    const arrows = nextArrows !== -1;
    while (i < s.length) {
      let p = s.length;
      // Where the run of ASCII word characters before `p` starts, when the short scan knows:
      // the name before a `(` is then not read again backwards (see `callNameStart`).
      let words = -1;
      if (s.length - i <= SHORT_SCAN) {
        // Little text left (most model outputs are short): one pass over it costs less than
        // five `indexOf` calls. The positions `indexOf` found stay valid for the long path.
        words = i;
        for (p = i; p < s.length; p++) {
          const c = s.charCodeAt(p);
          const k = c < 128 ? (SCAN_CLASS[c] ?? 1) : 1;
          if (k === 0) continue;
          if (k === 2 || (k === 3 && call) || (k === 4 && json) || (k === 5 && arrows)) break;
          words = p + 1;
        }
      } else {
        if (nextParen !== -1 && nextParen < i) nextParen = s.indexOf('(', i);
        if (nextBrace !== -1 && nextBrace < i) nextBrace = s.indexOf('{', i);
        if (nextAngle !== -1 && nextAngle < i) nextAngle = s.indexOf('<', i);
        if (nextBracket !== -1 && nextBracket < i) nextBracket = s.indexOf('[', i);
        if (nextArrows !== -1 && nextArrows < i) nextArrows = s.indexOf('>', i);
        if (nextParen >= 0 && nextParen < p) p = nextParen;
        if (nextBrace >= 0 && nextBrace < p) p = nextBrace;
        if (nextAngle >= 0 && nextAngle < p) p = nextAngle;
        if (nextBracket >= 0 && nextBracket < p) p = nextBracket;
        if (nextArrows >= 0 && nextArrows < p) p = nextArrows;
      }
      if (p === s.length) break;
      const c = s.charCodeAt(p);
      if (c === LANGLE || c === LBRACKET || c === RANGLE) {
        const closers = this.reasoningClosers;
        if (closers !== undefined && c !== RANGLE) {
          const closer = closers.find((token) => s.startsWith(token, p));
          if (closer !== undefined) {
            this.release(s, textStart, p);
            this.reasoningClosers = undefined;
            if (this.withEvents) this.emit({ type: 'reasoning-end', text: closer });
            this.remember(closer);
            i = textStart = p + closer.length;
            continue;
          }
          const breaks = this.reasoningBreaks;
          if (breaks.length !== 0 && breaks.some((token) => s.startsWith(token, p))) {
            // The reasoning ends before the token, which is read as usual (no closer: the end's text is empty).
            this.release(s, textStart, p);
            this.reasoningClosers = undefined;
            this.reasoningBreaks = NO_BREAKS;
            if (this.withEvents) this.emit({ type: 'reasoning-end', text: '' });
            textStart = p;
          } else if (!this.final && [closers, breaks].some((tokens) => tokens.some((token) => s.length - p < token.length && token.startsWith(s.slice(p))))) {
            holdFrom = p;
            this.tailWait = undefined;
            break;
          }
        }
        const match = matchOpener(s, p, this, this.final);
        if (match === 'partial') {
          holdFrom = p;
          this.tailWait = openerWait(s, p, this);
          break;
        }
        const interrupted = this.interrupted;
        if (interrupted !== undefined) {
          this.interrupted = undefined;
          const token = match === undefined || match.type === 'text' ? interruptAt(interrupted, s, p) : undefined;
          if (token !== undefined) {
            // The token that paused the reasoning opens nothing: it and what follows are reasoning again.
            this.release(s, textStart, p);
            this.emitReasoning(token);
            this.enterReasoning(interrupted.closers, interrupted.interrupts);
            this.readsReasoning(s, nextParen, nextBrace, nextAngle, nextBracket, nextArrows);
            return p + token.length;
          }
        }
        if (match === undefined) {
          i = p + 1;
          continue;
        }
        switch (match.type) {
          case 'text':
            i = p + match.length;
            continue;
          case 'reasoning': {
            if (this.reasoningClosers !== undefined) {
              i = p + 1;
              continue;
            }
            this.release(s, textStart, p);
            const opener = s.slice(p, p + match.length);
            if (this.withEvents) this.emit({ type: 'reasoning-start', text: opener });
            this.remember(opener);
            // A name after it does not run into it (Gemma's opener ends with `thought`).
            this.lastReleased = -1;
            this.enterReasoning(match.closers, match.interrupts);
            i = textStart = p + match.length;
            if (this.readsReasoning(s, nextParen, nextBrace, nextAngle, nextBracket, nextArrows)) return i;
            continue;
          }
          case 'block': {
            this.release(s, textStart, p);
            // Reasoning that this section interrupted goes on once it is read.
            this.resumeAfterFrame = interrupted;
            const frame = newFrame({ kind: 'block', name: '', argsOffset: 0 });
            frame.body = match.body;
            frame.ends = match.ends;
            frame.trailer = match.trailer;
            frame.openerLength = match.length;
            if (match.nests === true) {
              frame.nestDepth = 0;
              frame.nestScan = match.length;
            }
            let end = this.feedBlock(frame, s, p + match.length, -p);
            if (end < 0) {
              if (s.length - p < this.maxCall) {
                frame.received = s.slice(p);
                frame.length = s.length - p;
                this.frame = frame;
                return -1;
              }
              end = this.overflowIn(frame, s, p, [nextParen, nextBrace, nextAngle, nextBracket, nextArrows]);
              if (end < 0) return -1;
            } else {
              this.finishBlock(frame, s.slice(p, end));
            }
            i = textStart = end;
            if (interrupted !== undefined) this.resumeReasoning();
            if (this.readsReasoning(s, nextParen, nextBrace, nextAngle, nextBracket, nextArrows)) return i;
            continue;
          }
          case 'marker': {
            this.release(s, textStart, p);
            this.resumeAfterFrame = interrupted;
            const frame = newFrame({ kind: 'marker', name: match.name, argsOffset: match.length });
            frame.modelId = match.id;
            frame.stopsAtAngle = match.stopsAtAngle === true;
            frame.endToken = match.endToken;
            const brace = p + match.length;
            const end = this.feed(frame, s, brace + 1, -p);
            if (end < 0) {
              if (s.length - p < this.maxCall) {
                frame.received = s.slice(p);
                frame.length = s.length - p;
                this.frame = frame;
                return -1;
              }
              i = textStart = this.overflowIn(frame, s, p, [nextParen, nextBrace, nextAngle, nextBracket, nextArrows]);
              if (i < 0) return -1;
            } else {
              i = textStart = this.finish(frame, s, p, end);
            }
            if (interrupted !== undefined) this.resumeReasoning();
            if (this.readsReasoning(s, nextParen, nextBrace, nextAngle, nextBracket, nextArrows)) return i;
            continue;
          }
          default: {
            const unknown: never = match;
            throw new Error(`unknown opener ${String(unknown)}`);
          }
        }
      }
      const nameStart = c === LPAREN ? this.callStart(s, p, words, textStart) : p;
      if (nameStart < 0) {
        i = p + 1;
        continue;
      }
      let plainFailed = false;
      if (c === LPAREN && this.onePass && this.onePassFailures <= ONE_PASS_SLACK + this.onePassReads) {
        // Arguments valid up to the `)` that closes the call are read once, here (no frame
        // made); anything else (invalid, unclosed, a JSON object) is scanned and parsed as
        // below. A failed reading stops where the frame scanner would (or after
        // ONE_PASS_LENGTH characters), so it at most doubles that work; text where most
        // readings fail (broken calls by the thousand) soon stops trying. Without a schema only
        // the plain reading is tried: the general one would read what it cannot (nested values,
        // escapes) once more below anyway, and a call that never closes to its end twice.
        const name = s.slice(nameStart, p);
        const schema = this.schemaOf(name);
        const read = parseCallArguments(s, { from: p + 1, to: Math.min(p + 1 + ONE_PASS_LENGTH, nameStart + this.maxCall), schema, plainOnly: schema === undefined });
        if (read === undefined) {
          this.onePassFailures++;
          plainFailed = true;
        } else {
          this.onePassReads++;
          this.release(s, textStart, nameStart);
          // The call's text only goes to look-behind (no events here), which a whole text does not keep.
          this.settle(name, read.arguments, this.whole ? '' : s.slice(nameStart, read.end + 1), '', undefined);
          i = textStart = read.end + 1;
          continue;
        }
      }
      const frameStart = nameStart;
      const frame = (this.frame = newFrame(
        c === LPAREN ? { kind: 'call', name: s.slice(nameStart, p), argsOffset: p - nameStart + 1 } : { kind: 'json', name: '', argsOffset: 0 },
      ));
      this.release(s, textStart, frameStart);
      if (frame.kind === 'call' && this.withEvents) {
        frame.id = this.freshId(frame.name);
        this.emit({ type: 'tool-call-start', id: frame.id, name: frame.name });
      } else if (frame.kind === 'call') {
        frame.id = '';
      }
      const end = this.feed(frame, s, p + 1, -frameStart);
      this.emitDelta(frame, s, p + 1, end);
      if (end < 0) {
        if (s.length - frameStart < this.maxCall) {
          frame.received = s.slice(frameStart);
          frame.length = s.length - frameStart;
          return -1;
        }
        this.frame = undefined;
        i = textStart = this.overflowIn(frame, s, frameStart, [nextParen, nextBrace, nextAngle, nextBracket, nextArrows]);
        if (i < 0) return -1;
        continue;
      }
      this.frame = undefined;
      if (plainFailed && frame.status === 'closed') this.onePassFailures--;
      i = this.finish(frame, s, frameStart, end);
      textStart = i;
    }
    if (holdFrom >= 0) {
      this.release(s, textStart, holdFrom);
      this.tail = s.slice(holdFrom);
      this.tailOpener = true;
      return -1;
    }
    // Hold back a trailing name run: the next chunk may continue it with `(` or `{`.
    const hold = this.nameHold(s, textStart);
    this.release(s, textStart, hold);
    this.tail = s.slice(hold);
    return -1;
  }

  /**
   * `scanText` for a whole text without events (batch): the same calls, leaving out what only
   * a stream needs (released text, text held back for a next chunk, openers not yet decided,
   * events). A function of its own so that the engine optimizes it for batch input alone:
   * sharing `scanText` with a stream (called for nearly every character of a token stream)
   * left batch extraction 15–20% slower in a process that also streams. The chunking
   * property tests hold the two to the same calls.
   */
  private scanWholeText(s: string, from: number): number {
    let i = from;
    // As in `scanText`, but `>` is never searched for (Functionary's `>>>` is found from its `{`).
    const functionary = this.options.functionary;
    let nextParen = this.options.call ? -2 : -1;
    let nextBrace = this.options.json || functionary ? -2 : -1;
    let nextAngle = -2;
    let nextBracket = -2;
    const known = this.nextIn === s ? this.nextAt : undefined;
    if (known !== undefined) {
      nextParen = known[0] ?? nextParen;
      nextBrace = known[1] ?? nextBrace;
      nextAngle = known[2] ?? nextAngle;
      nextBracket = known[3] ?? nextBracket;
    }
    this.nextIn = undefined;
    // Where text not taken by a span or a known token starts (a `>>>` found behind a `{` starts there or later).
    let floor = from;
    let checkedBrace = -1;
    const call = nextParen !== -1;
    const brace = nextBrace !== -1;
    while (i < s.length) {
      let p = s.length;
      let words = -1;
      if (s.length - i <= SHORT_SCAN) {
        words = i;
        for (p = i; p < s.length; p++) {
          const c = s.charCodeAt(p);
          const k = c < 128 ? (SCAN_CLASS[c] ?? 1) : 1;
          if (k === 0) continue;
          if (k === 2 || (k === 3 && call) || (k === 4 && brace)) break;
          words = p + 1;
        }
      } else {
        if (nextParen !== -1 && nextParen < i) nextParen = s.indexOf('(', i);
        if (nextBrace !== -1 && nextBrace < i) nextBrace = s.indexOf('{', i);
        if (nextAngle !== -1 && nextAngle < i) nextAngle = s.indexOf('<', i);
        if (nextBracket !== -1 && nextBracket < i) nextBracket = s.indexOf('[', i);
        if (nextParen >= 0 && nextParen < p) p = nextParen;
        if (nextBrace >= 0 && nextBrace < p) p = nextBrace;
        if (nextAngle >= 0 && nextAngle < p) p = nextAngle;
        if (nextBracket >= 0 && nextBracket < p) p = nextBracket;
      }
      if (p === s.length) break;
      let c = s.charCodeAt(p);
      if (c === LBRACE && functionary && p !== checkedBrace) {
        const arrows = functionaryBefore(s, p, floor);
        if (arrows >= 0) {
          checkedBrace = p;
          p = arrows;
          c = RANGLE;
        }
      }
      if (c === LANGLE || c === LBRACKET || c === RANGLE) {
        const closers = this.reasoningClosers;
        if (closers !== undefined && c !== RANGLE) {
          const closer = closers.find((token) => s.startsWith(token, p));
          if (closer !== undefined) {
            this.reasoningClosers = undefined;
            i = floor = p + closer.length;
            continue;
          }
          const breaks = this.reasoningBreaks;
          if (breaks.length !== 0 && breaks.some((token) => s.startsWith(token, p))) {
            // As in `scanText`.
            this.reasoningClosers = undefined;
            this.reasoningBreaks = NO_BREAKS;
            floor = p;
          }
        }
        // Final: never 'partial'.
        const match = matchOpener(s, p, this, true);
        const interrupted = this.interrupted;
        if (interrupted !== undefined) {
          this.interrupted = undefined;
          const token = match === undefined || match === 'partial' || match.type === 'text' ? interruptAt(interrupted, s, p) : undefined;
          if (token !== undefined) {
            // As in `scanText`.
            this.enterReasoning(interrupted.closers, interrupted.interrupts);
            this.readsReasoning(s, nextParen, nextBrace, nextAngle, nextBracket, -1);
            return p + token.length;
          }
        }
        if (match === undefined || match === 'partial') {
          i = p + 1;
          continue;
        }
        switch (match.type) {
          case 'text':
            i = floor = p + match.length;
            continue;
          case 'reasoning':
            if (this.reasoningClosers !== undefined) {
              i = p + 1;
              continue;
            }
            this.enterReasoning(match.closers, match.interrupts);
            i = floor = p + match.length;
            if (this.readsReasoning(s, nextParen, nextBrace, nextAngle, nextBracket, -1)) return i;
            continue;
          case 'block': {
            // Reasoning that this section interrupted goes on once it is read.
            this.resumeAfterFrame = interrupted;
            const frame = newFrame({ kind: 'block', name: '', argsOffset: 0 });
            frame.body = match.body;
            frame.ends = match.ends;
            frame.trailer = match.trailer;
            frame.openerLength = match.length;
            if (match.nests === true) {
              frame.nestDepth = 0;
              frame.nestScan = match.length;
            }
            let end = this.feedBlock(frame, s, p + match.length, -p);
            if (end < 0) {
              if (s.length - p < this.maxCall) {
                frame.received = s.slice(p);
                frame.length = s.length - p;
                this.frame = frame;
                return -1;
              }
              end = this.overflowIn(frame, s, p, [nextParen, nextBrace, nextAngle, nextBracket, -1]);
              if (end < 0) return -1;
            } else {
              this.finishBlock(frame, s.slice(p, end));
            }
            i = floor = end;
            if (interrupted !== undefined) this.resumeReasoning();
            if (this.readsReasoning(s, nextParen, nextBrace, nextAngle, nextBracket, -1)) return i;
            continue;
          }
          case 'marker': {
            this.resumeAfterFrame = interrupted;
            const frame = newFrame({ kind: 'marker', name: match.name, argsOffset: match.length });
            frame.modelId = match.id;
            frame.stopsAtAngle = match.stopsAtAngle === true;
            frame.endToken = match.endToken;
            const end = this.feed(frame, s, p + match.length + 1, -p);
            if (end < 0) {
              if (s.length - p < this.maxCall) {
                frame.received = s.slice(p);
                frame.length = s.length - p;
                this.frame = frame;
                return -1;
              }
              i = floor = this.overflowIn(frame, s, p, [nextParen, nextBrace, nextAngle, nextBracket, -1]);
              if (i < 0) return -1;
            } else {
              i = floor = this.finish(frame, s, p, end);
            }
            if (interrupted !== undefined) this.resumeReasoning();
            if (this.readsReasoning(s, nextParen, nextBrace, nextAngle, nextBracket, -1)) return i;
            continue;
          }
          default: {
            const unknown: never = match;
            throw new Error(`unknown opener ${String(unknown)}`);
          }
        }
      }
      if (c === LBRACE && !this.options.json) {
        i = p + 1;
        continue;
      }
      const nameStart = c === LPAREN ? this.callStart(s, p, words, floor) : p;
      if (nameStart < 0) {
        i = p + 1;
        continue;
      }
      let callName: string | undefined;
      if (c === LPAREN && this.onePass && this.onePassFailures <= ONE_PASS_SLACK + this.onePassReads) {
        // As in `scanText`.
        const name = this.nameAt(s, nameStart, p);
        const schema = this.schemaOf(name);
        const read = parseCallArguments(s, { from: p + 1, to: Math.min(p + 1 + ONE_PASS_LENGTH, nameStart + this.maxCall), schema, plainOnly: schema === undefined });
        if (read === undefined) {
          this.onePassFailures++;
          callName = name;
        } else {
          this.onePassReads++;
          this.settle(name, read.arguments, '', '', undefined);
          i = floor = read.end + 1;
          continue;
        }
      }
      const frame = newFrame(
        c === LPAREN ? { kind: 'call', name: callName ?? this.nameAt(s, nameStart, p), argsOffset: p - nameStart + 1 } : { kind: 'json', name: '', argsOffset: 0 },
      );
      if (frame.kind === 'call') frame.id = '';
      const end = this.feed(frame, s, p + 1, -nameStart);
      if (end < 0) {
        if (s.length - nameStart < this.maxCall) {
          frame.received = s.slice(nameStart);
          frame.length = s.length - nameStart;
          this.frame = frame;
          return -1;
        }
        i = floor = this.overflowIn(frame, s, nameStart, [nextParen, nextBrace, nextAngle, nextBracket, -1]);
        if (i < 0) return -1;
        continue;
      }
      // A call the plain reading could not read but that closes (nested values, escapes) cost
      // that reading no more than its own span: not a failure that should stop the one-pass
      // readings (only calls that never close read far).
      if (callName !== undefined && frame.status === 'closed') this.onePassFailures--;
      i = floor = this.finish(frame, s, nameStart, end);
    }
    return -1;
  }

  /** Where a trailing run that may still become a call name starts (`s.length` when none). */
  private nameHold(s: string, textStart: number): number {
    if (this.whole) return s.length;
    let hold = s.length;
    let boundary = -1;
    while (hold > textStart && s.length - hold <= MAX_NAME_LENGTH && isNameRunUnit(s.charCodeAt(hold - 1))) {
      if (boundary < 0 && hold < s.length && isScriptBoundary(s.charCodeAt(hold - 1), s.charCodeAt(hold))) boundary = hold;
      hold--;
    }
    if ((s.charCodeAt(s.length - 1) === COLON || s.charCodeAt(hold - 1) === COLON) && this.holdsPaths()) {
      const path = this.pathHold(s, textStart, hold);
      if (path >= 0) return path;
    }
    if (hold === s.length) return hold;
    if (s.length - hold <= MAX_NAME_LENGTH && this.couldBeName(s.slice(hold))) return hold;
    // The whole run cannot be a name; the part after a script boundary still can (`请调用get_w`).
    if (boundary >= 0 && this.couldBeName(s.slice(boundary))) return boundary;
    return s.length;
  }

  /** Whether an allowed name is a path (`ns::tool`), so that a held-back run may go on past `:`. */
  private holdsPaths(): boolean {
    return this.options.prefixes?.hasPaths() === true;
  }

  /**
   * `nameHold` for a listed path: where a trailing run that may still grow into one starts
   * (`ns:`, `ns::`, `ns::to`: `run` is where the trailing run of name characters starts), or
   * -1 (the run is not a path, or no prefix of a listed one).
   */
  private pathHold(s: string, textStart: number, run: number): number {
    let end = s.length;
    if (s.charCodeAt(end - 1) === COLON) end -= s.charCodeAt(end - 2) === COLON ? 2 : 1;
    let start = end < s.length ? end : run;
    while (start > textStart && end - start <= MAX_NAME_LENGTH && isNameRunUnit(s.charCodeAt(start - 1))) start--;
    if (start === end) return -1;
    const path = this.pathStart(s, start, textStart, s.length);
    if (path === undefined || (path.start === start && end === s.length)) return -1;
    if (path.whole && this.couldBeName(s.slice(path.start))) return path.start;
    // Else its part after a script boundary, in any of its parts, the first a listed path begins
    // (as `callNameStart` reads the path at `(`).
    for (let k = path.start + 1; k < s.length; k++) {
      if (isScriptBoundary(s.charCodeAt(k - 1), s.charCodeAt(k)) && this.couldBeName(s.slice(k))) return k;
    }
    return -1;
  }

  /** The character `n` places before `s[at]` (from the released text when `at < n`; -1 when none). */
  private codeBefore(s: string, at: number, n: number): number {
    if (at >= n) return s.charCodeAt(at - n);
    if (this.whole) return -1;
    if (at === n - 1) return this.lastReleased;
    const history = this.lookBehind(s, at);
    return history.length >= n ? history.charCodeAt(history.length - n) : -1;
  }

  /** Whether a path separator `::` stands right before `s[at]` (`std::` before `sort`, `::` before `open`). */
  private scoped(s: string, at: number): boolean {
    return this.codeBefore(s, at, 1) === COLON && this.codeBefore(s, at, 2) === COLON;
  }

  /**
   * Where the path that ends with the name at `start` starts, across every `IDENT::` before
   * it (`a::b::tool`), not before `floor`. `whole`: false when it goes on before `floor` (into
   * released text) unless a script boundary separates them, so that only the part after a
   * boundary in `s` may still be a listed name; also false from a `::` that has no name before
   * it (`::tool`, `a:::tool`: no listed name is written so, but `:::😀ns::tool` holds one after
   * its boundary). Undefined when a `::` is before `floor` or the path is longer than
   * `MAX_NAME_LENGTH` before `end`: no part of it is a listed name.
   */
  private pathStart(s: string, start: number, floor: number, end: number): { start: number; whole: boolean } | undefined {
    let at = start;
    while (this.scoped(s, at)) {
      let k = at - 2;
      if (k < floor) return undefined;
      // No name before this `::` (`::tool`, `a:::tool`): the path from here is no listed name,
      // but its part after a script boundary may be (`::😀ns::tool(`, as `😀ns::tool(` is).
      if (k === floor || !isNameRunUnit(s.charCodeAt(k - 1))) return { start: at, whole: false };
      while (k > floor && isNameRunUnit(s.charCodeAt(k - 1))) {
        k--;
        if (end - k > MAX_NAME_LENGTH) return undefined;
      }
      at = k;
    }
    let whole = true;
    if (at === floor && at < start) {
      const before = this.codeBefore(s, at, 1);
      whole = !isNameRunUnit(before) || isScriptBoundary(before, s.charCodeAt(at));
    }
    return { start: at, whole };
  }

  /** At `(` (position p): where the tool name that stands right before it starts, or -1 (none, or a definition). */
  private callStart(s: string, p: number, words: number, floor = 0): number {
    const nameStart = this.callNameStart(s, p, words, floor);
    if (nameStart < 0) return -1;
    // A definition keyword is followed by space: without one before the name (`[f(`, most
    // calls) the window is not built. The same 32-character window as `lookBehind`, read in
    // place when `s` reaches that far.
    const before = nameStart > 0 ? s.charCodeAt(nameStart - 1) : this.lastReleased;
    const definition =
      isSpace(before) &&
      (nameStart >= HISTORY_LENGTH
        ? endsWithDefinitionKeyword(s, nameStart, nameStart - HISTORY_LENGTH)
        : endsWithDefinitionKeyword(this.lookBehind(s, nameStart)));
    return definition ? -1 : nameStart;
  }

  /**
   * Start of the call name that ends right before `p`, or -1. The name is the run of name
   * characters before `p`; with an allow-list the whole run if listed, else the part after
   * a script boundary (`请调用get_weather(`: prose in an unspaced script runs into the
   * name). Without an allow-list the name never continues from such a script into ASCII.
   * Nor does it reach back before `floor`, where a token ends (Gemma's `<|channel>thought`).
   */
  private callNameStart(s: string, p: number, words: number, floor: number): number {
    // `s[words, p)` are ASCII word characters (when the caller knows, else -1): the loop below
    // would pass them changing nothing but `start`.
    let start = words >= 0 && p - words <= MAX_NAME_LENGTH ? words : p;
    let boundary = -1;
    // Whether the run is ASCII letters, digits and `_` only, or such parts joined by `.`, each
    // part after a `.` starting with a letter or `_` (most names: `search`, `math.factorial`):
    // then it is a valid name when it starts with a letter or `_`, and need not be read again.
    let plain = true;
    while (start > floor && p - start <= MAX_NAME_LENGTH) {
      const c = s.charCodeAt(start - 1);
      if (!isNameRunUnit(c)) break;
      if (c === 0x2e) {
        if (plain && !(start < p && isAsciiNameStart(s.charCodeAt(start)))) plain = false;
      } else if (c >= 0x80 || c === 0x2d) {
        plain = false;
        // A script boundary needs a non-ASCII character before the name.
        if (boundary < 0 && start < p && isScriptBoundary(c, s.charCodeAt(start))) boundary = start;
      }
      start--;
    }
    if (start === p) return -1;
    const before = start > 0 ? s.charCodeAt(start - 1) : this.lastReleased;
    // `x->name(` is a member call (C++, PHP), as `x.name(` is: no call of `name`.
    const arrow = before === RANGLE && this.codeBefore(s, start, 2) === HYPHEN;
    if (arrow || (before === COLON && this.scoped(s, start))) {
      // `IDENT::name(` and `::name(` are no call of `name`, as `x.name(` is none (C++
      // `std::sort(v)` and `::open(p)`, Rust `Vec::new()`, PHP `Foo::bar()`). Without an
      // allow-list a path is never a call here; with one, it is the call of a path listed as
      // written (`ns::tool(`, as taught).
      if (!arrow && this.options.allowed !== undefined) {
        const path = this.pathStart(s, start, floor, p);
        if (path !== undefined) {
          if (path.whole && this.isCallName(s, path.start, p)) return path.start;
          // Else the path's part after a script boundary, in any of its parts, the first listed
          // (`std::请调用ns::tool(`, as a stream reads it: the text before goes out as prose).
          for (let k = path.start + 1; k < p; k++) {
            if (isScriptBoundary(s.charCodeAt(k - 1), s.charCodeAt(k)) && this.isCallName(s, k, p)) return k;
          }
        }
      }
      // A name after a script boundary is not right after the `::` or `->`: prose in an
      // unspaced script runs into it (`std::请调用get_weather(`).
      return boundary >= 0 && this.isCallName(s, boundary, p) ? boundary : -1;
    }
    let whole = p - start <= MAX_NAME_LENGTH;
    if (whole && start === 0 && this.lastReleased >= 0) {
      // The run continues into released text unless a script boundary separates them.
      const last = this.lastReleased;
      if (isNameRunUnit(last) && !isScriptBoundary(last, s.charCodeAt(0))) whole = false;
    }
    const allowList = this.options.allowed !== undefined;
    const first = s.charCodeAt(start);
    const valid = plain && isAsciiNameStart(first);
    if (whole && (allowList || boundary < 0) && this.isCallName(s, start, p, valid)) return start;
    if (boundary >= 0 && this.isCallName(s, boundary, p)) return boundary;
    return -1;
  }

  private lookBehind(s: string, position: number): string {
    if (position >= HISTORY_LENGTH) return s.slice(position - HISTORY_LENGTH, position);
    let history = this.recentText === undefined ? '' : this.recentText.slice(-HISTORY_LENGTH);
    const recent = this.recent;
    if (recent !== undefined) {
      for (let k = this.recentCount; k > 0; k--) history += String.fromCharCode(recent[(this.recentAt - k) & (HISTORY_LENGTH - 1)] ?? 0);
    }
    return (history + s.slice(0, position)).slice(-HISTORY_LENGTH);
  }

  /**
   * Whether a held-back run may still grow into a tool name: with an allow-list only a
   * prefix of an allowed name can (text is released sooner); without one, any run can.
   */
  private couldBeName(run: string): boolean {
    const prefixes = this.options.prefixes;
    return prefixes === undefined || prefixes.has(run);
  }

  /**
   * Whether `s[start, end)` may be called with `(`; read in place where no list needs the name
   * cut out. `valid`: the caller already knows it is a valid name.
   */
  private isCallName(s: string, start: number, end: number, valid = false): boolean {
    const allowed = this.options.allowed;
    if (allowed !== undefined) {
      let name: string | undefined;
      if (allowed instanceof InPlaceAllowList) {
        name = allowed.nameIn(s, start, end);
      } else {
        name = s.slice(start, end);
        if (!allowed.has(name)) name = undefined;
      }
      if (name === undefined) return false;
      this.listed = name;
      this.listedIn = s;
      this.listedStart = start;
      return true;
    }
    return (valid || isValidNameIn(s, start, end)) && (end - start > NOT_CALL_NAME_LENGTH || !NOT_CALL_NAMES.has(s.slice(start, end)));
  }

  /** `s.slice(start, end)`: the name `isCallName` found there when it did (taken once), else cut now. */
  private nameAt(s: string, start: number, end: number): string {
    const listed = this.listed;
    if (listed === undefined) return s.slice(start, end);
    this.listed = undefined;
    return this.listedIn === s && this.listedStart === start && listed.length === end - start ? listed : s.slice(start, end);
  }

  private isAllowed(name: string): boolean {
    return this.options.allowed === undefined || this.options.allowed.has(name);
  }

  /** Whether a format is looked for (`OpenerContext`). */
  has(format: ToolCallFormat): boolean {
    return (this.formatFlags ??= formatFlags(this.options.formats))[format];
  }

  /** `OpenerContext.leadingRecipient`: what went out before `s` (kept in `opening`) and `s` up to `i`. */
  leadingRecipient(s: string, i: number): string | undefined {
    const opening = this.opening;
    if (opening === undefined || i > MAX_LEADING_RECIPIENT) return undefined;
    const read = readLeadingRecipient(opening + s.slice(0, i));
    return read === 'prefix' ? undefined : read?.name;
  }

  /** `OpenerContext.reasoningLineStart`, read on the last HISTORY_LENGTH characters before `s[i]`. */
  reasoningLineStart(s: string, i: number): boolean {
    const before = this.lookBehind(s, i);
    let end = before.length;
    while (end > 0 && (before.charCodeAt(end - 1) === 0x20 || before.charCodeAt(end - 1) === 0x09)) end--;
    // Only blank space before: the answer's start when it is all that went out.
    if (end === 0) return before.length < HISTORY_LENGTH;
    const c = before.charCodeAt(end - 1);
    if (c === 0x0a || c === 0x0d) return true;
    if (c !== 0x3e) return false;
    const at = before.lastIndexOf('</think', end - 1);
    if (at < 0) return false;
    const from = at + '</think'.length;
    if (from === end - 1) return true;
    if (before.charCodeAt(from) !== 0x3a || from + 1 === end - 1) return false;
    // The `>` must close that very tag: a suffix holds no blank, `<` or `>` (`</think:s>f(a=1)>` is no closing tag).
    for (let k = from + 1; k < end - 1; k++) {
      const code = before.charCodeAt(k);
      if (code <= 0x20 || code === 0x3c || code === 0x3e) return false;
    }
    return true;
  }

  private noteOpening(text: string): void {
    const opening = (this.opening ?? '') + text;
    this.opening = readLeadingRecipient(opening) === undefined ? undefined : opening;
  }

  /** Whether a name read from a native format or JSON may be called: listed, or (without a list) a valid name. */
  accepts(name: string): boolean {
    if (this.options.allowed !== undefined) return this.options.allowed.has(name);
    return (isValidName(name) || isNamespacedName(name)) && !PSEUDO_TOOLS.has(name);
  }

  /**
   * Advances `frame` over `s` from `from`; `base` maps an index of `s` to a frame offset.
   * Returns the index of the character that ends the frame (its closing bracket, a
   * mismatched bracket, or the first non-key character after a JSON `{`), or -1. Reads no
   * character past the bound (frame offset `maxCall` on).
   */
  private feed(frame: Frame, s: string, from: number, base: number): number {
    // A frame offset from `maxCall` on is past the bound: the frame is given up there (see `overflowIn`).
    const room = this.maxCall - base;
    const to = room < s.length ? room : s.length;
    if (frame.endTokenAt >= 0) return feedEndToken(frame, s, from, to);
    const stack = frame.stack;
    const json = frame.kind === 'json';
    let quote = frame.quote;
    let escaped = frame.escaped;
    let prev = frame.prev;
    for (let i = from; i < to; i++) {
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
      if (kind === 4) {
        if (frame.stopsAtAngle) {
          frame.status = 'not-json';
          frame.quote = quote;
          return i;
        }
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
          if (frame.endToken === undefined) return i;
          // The object is complete: its end token may still follow (see `feedEndToken`).
          frame.closeAt = base + i + 1;
          frame.endTokenAt = 0;
          frame.plain = false;
          return feedEndToken(frame, s, i + 1, to);
        }
      }
      prev = c;
    }
    frame.quote = quote;
    frame.escaped = escaped;
    frame.plain = !escaped && !frame.awaitingQuote;
    frame.prev = prev;
    return -1;
  }

  /**
   * Looks for a block's closing token in `chunk` from `from`, including a token that began in
   * the previous chunk (kept in `carry`). Returns the index in `chunk` just past it (and past its
   * trailer), or -1. `base` is the offset of `chunk[0]` in the frame's text.
   */
  private feedBlock(frame: Frame, chunk: string, from: number, base: number): number {
    // Only what lies before the bound (frame offset `maxCall`) may close the block: a token or
    // trailer that ends past it does not (see `overflowIn`).
    const room = this.maxCall - base;
    const s = room < chunk.length ? chunk.slice(0, room > from ? room : from) : chunk;
    const ends = frame.ends;
    let longest = 0;
    for (const token of ends) if (token.length > longest) longest = token.length;
    if (s.length - from <= 8 && s.indexOf('>', from) < 0) {
      // Token streams: every closing token ends with `>`, so a chunk without one closes
      // nothing; keep its characters for a token that may end in a later chunk.
      let carry = frame.carry + (from === 0 ? s : s.slice(from));
      if (carry.length > 2 * longest) carry = carry.slice(carry.length - longest + 1);
      frame.carry = carry;
      return -1;
    }
    const carry = frame.carry;
    const search = carry === '' ? (from === 0 ? s : s.slice(from)) : carry + s.slice(from);
    let found = firstToken(search, ends);
    while (found !== undefined) {
      const end = from - carry.length + found.at + found.token.length;
      if (frame.nestDepth >= 0 && this.closesQuoted(frame, s, base, base + end - found.token.length)) {
        found = firstToken(search, ends, found.at + found.token.length);
        continue;
      }
      const trailer = frame.trailer;
      if (trailer === undefined) return end;
      const past = trailerEnd(s, end, trailer, this.final);
      // The text ends before the trailer can be decided: wait for it with the block open.
      if (past < 0) frame.awaitAt = base + end;
      return past;
    }
    frame.carry = search.length < longest ? search : search.slice(search.length - longest + 1);
    return -1;
  }

  /**
   * Whether the closing token at `tokenAt` (in the frame text, whose `s[0]` is at `base`) closes
   * a call quoted in a value rather than the block: calls opened since the last look are counted
   * first. Past a few such tokens every one closes the block, so that a run of them stays linear.
   */
  private closesQuoted(frame: Frame, s: string, base: number, tokenAt: number): boolean {
    if (tokenAt > frame.nestScan) {
      // The frame text: `s` from the block's start (`base` below 0: the block opened in `s`), else
      // `received` then `s`. Read whole, so that every chunking reads the same.
      const text = base < 0 ? s : frame.received + s;
      const shift = base < 0 ? base : 0;
      frame.nestDepth += quotedOpens(text, frame.nestScan - shift, tokenAt - shift, -shift);
      frame.nestScan = tokenAt;
    }
    if (frame.nestDepth === 0 || frame.skips >= MAX_QUOTED_CLOSES) return false;
    frame.nestDepth--;
    frame.skips++;
    return true;
  }

  /** A chunk for a block whose closing token came and which waits for its trailer (`awaitAt`). */
  private feedTrailer(frame: Frame, chunk: string): void {
    // What came after the closing token: space and the start of the trailer, a few characters.
    const after = frame.received.slice(frame.awaitAt) + chunk;
    // A trailer that would end past the bound does not come: the block ends at its closing token.
    const room = this.maxCall - frame.awaitAt;
    let past = trailerEnd(room < after.length ? after.slice(0, room) : after, 0, frame.trailer ?? '', this.final);
    if (past < 0 && room < after.length) past = 0;
    if (past < 0) {
      frame.received += chunk;
      frame.length += chunk.length;
      if (frame.length >= this.maxCall) this.overflowHeld();
      return;
    }
    this.frame = undefined;
    this.finishBlock(frame, flat(frame.received.slice(0, frame.awaitAt) + after.slice(0, past)));
    this.drive(after, past);
  }

  /** Reports the argument text a call frame consumed from `s` (up to, not including, its end). */
  private emitDelta(frame: Frame, s: string, from: number, end: number): void {
    if (!this.withEvents || frame.kind !== 'call' || frame.id === undefined) return;
    const to = end < 0 ? s.length : end;
    if (to > from) this.emitDeltaText(frame.id, s.slice(from, to));
  }

  /** A `tool-call-delta` (events only). */
  private emitDeltaText(id: string, argumentsText: string): void {
    if (!this.withEvents) return;
    const sink = this.sink;
    if (sink === undefined) this.emit({ type: 'tool-call-delta', id, argumentsText });
    else sink.onToolCallDelta?.(id, argumentsText);
  }

  /** Decides a frame that ended at `s[end]`; returns where text scanning resumes. */
  private finish(frame: Frame, s: string, frameStart: number, end: number): number {
    if (frame.endsAtObject) return this.finishAtObject(frame, s, frameStart, end);
    if (frame.status === 'not-json') {
      const text = frame.received + s.slice(frameStart, end);
      // A broken call inside reasoning that it interrupted is part of that reasoning.
      if (frame.kind === 'marker' && this.resumeAfterFrame !== undefined) this.emitReasoning(text);
      else this.releaseText(text);
      return end;
    }
    const text = frame.received + s.slice(frameStart, end + 1);
    // The frame's text read in `s` when it all came in this chunk (batch), else in `text`.
    const source = frame.received === '' ? s : text;
    const offset = frame.received === '' ? frameStart : 0;
    switch (frame.kind) {
      case 'call': {
        const args = frame.status === 'closed' ? this.closedCallArguments(frame, source, offset + frame.argsOffset, offset + text.length - 1) : undefined;
        this.settle(frame.name, args, text, frame.id, undefined);
        break;
      }
      case 'marker': {
        // Past the object: its end token, when the marker has one.
        const argsEnd = frame.closeAt >= 0 ? frame.closeAt : text.length;
        const args = frame.status === 'closed' ? tryParseArguments(source, this.schemaOf(frame.name), offset + frame.argsOffset, offset + argsEnd) : undefined;
        this.settle(frame.name, args, text, undefined, frame.modelId);
        break;
      }
      case 'json':
        if (frame.status === 'closed') this.finishJson(frame, frame.received === '' ? text : flat(text));
        else this.releaseText(text);
        break;
      case 'block':
        throw new Error('a block frame is finished by finishBlock');
      default: {
        const unknown: never = frame.kind;
        throw new Error(`unknown frame kind ${String(unknown)}`);
      }
    }
    return end + 1;
  }

  /**
   * A marker call whose object was not followed by its end token (`s[end]`, the first character
   * after it that is not, ends it): the call ends at its object, and what came after the object
   * is read again. Returns where text scanning resumes in `s`, or -1 when that text (part of it
   * from earlier chunks) was read here.
   */
  private finishAtObject(frame: Frame, s: string, frameStart: number, end: number): number {
    frame.endsAtObject = false;
    const text = frame.received + s.slice(frameStart, end);
    const close = frame.closeAt;
    this.settle(frame.name, tryParseArguments(text, this.schemaOf(frame.name), frame.argsOffset, close), text.slice(0, close), undefined, frame.modelId);
    const inS = frameStart + close - frame.received.length;
    if (inS >= frameStart) return inS;
    if (this.resumeAfterFrame !== undefined) this.resumeReasoning();
    const rest = text.slice(close) + s.slice(end);
    if (this.whole) this.driveWhole(rest, 0);
    else this.drive(rest, 0);
    return -1;
  }

  /** At the end of the text, a marker call still waiting for its end token: it ends at its object. */
  private finishMarkerAtEnd(): void {
    const frame = this.frame;
    if (frame?.kind !== 'marker' || frame.endTokenAt < 0) return;
    this.frame = undefined;
    frame.endTokenAt = -1;
    frame.endsAtObject = true;
    this.finishAtObject(frame, '', 0, 0);
    if (this.resumeAfterFrame !== undefined) this.resumeReasoning();
  }

  /**
   * The arguments of a closed call whose `)` is `source[close]`, or undefined when they are
   * invalid. A streamed call (whose `)` the frame scan has found already) is first read the
   * one-pass way, which costs less than the general reading and, when it reads to the same
   * `)`, gives the same arguments (see `parseCallArguments`); anything else reads as before.
   */
  private closedCallArguments(frame: Frame, source: string, from: number, close: number): Record<string, unknown> | undefined {
    const schema = this.schemaOf(frame.name);
    if (this.withEvents) {
      const read = parseCallArguments(source, { from, to: close + 1, schema });
      if (read !== undefined && read.end === close) return read.arguments;
    }
    return tryParseArguments(source, schema, from, close);
  }

  /**
   * At the end of the text, an Apertus block whose list is complete but whose
   * `<|tools_suffix|>` never came (a server that stops on that token drops it) is read as
   * closed; returns whether it was. Any other open block, or a list cut short, stays open
   * (reported `incomplete`, never guessed).
   */
  private finishBlockAtEnd(): boolean {
    const frame = this.frame;
    if (frame?.kind !== 'block' || frame.body !== 'apertus') return false;
    const text = flat(frame.received);
    if (!parseBlock('apertus', text, frame.ends, frame.openerLength, this).some((call) => this.accepts(call.name))) return false;
    this.frame = undefined;
    this.finishBlock(frame, text);
    return true;
  }

  /**
   * A frame opened at `s[p]` whose first `maxCall` characters `s` holds without deciding it (the
   * bound): a call that is complete but for an end token or trailer it may still write ends
   * where it would at the end of the text (a marker at its object, a block at its closing
   * token); anything else is given up (`giveUp`). Returns where scanning goes on in `s`, or -1
   * when the frame was given up (the text after its first `maxCall` characters is then `fresh`).
   * `known` is where the scan of `s` last found each character it looks for (see `readsReasoning`).
   */
  private overflowIn(frame: Frame, s: string, p: number, known: readonly number[]): number {
    if (frame.kind === 'marker' && frame.closeAt >= 0) {
      frame.endTokenAt = -1;
      frame.endsAtObject = true;
      return this.finishAtObject(frame, s, p, p + frame.closeAt);
    }
    if (frame.kind === 'block' && frame.awaitAt >= 0) {
      const end = p + frame.awaitAt;
      this.finishBlock(frame, s.slice(p, end));
      return end;
    }
    const cut = cutAt(s, p, p + this.maxCall);
    this.giveUp(frame, s.slice(p, cut));
    const fresh = s.slice(cut);
    this.fresh = fresh;
    // What the scan of `s` knows holds for its rest: a character found absent stays absent, and
    // one found past the cut is the first there. Searched again from the cut, a text of many
    // spans given up would be searched to its end once per span (quadratic at a small bound).
    this.nextIn = fresh;
    this.nextAt = known.map((at) => (at < 0 ? at : at >= cut ? at - cut : -2));
    return -1;
  }

  /** `overflowIn` for the open frame, grown to the bound across chunks: what it decides, with what follows read at once. */
  private overflowHeld(): void {
    if (this.pending !== 0) this.flushCodes();
    const frame = this.frame;
    if (frame === undefined) return;
    this.frame = undefined;
    if (frame.kind === 'marker' && frame.closeAt >= 0) {
      frame.endTokenAt = -1;
      frame.endsAtObject = true;
      // Reasoning that the call interrupted goes on after it (`finishAtObject` takes it up only before a rest it reads).
      if (this.finishAtObject(frame, '', 0, 0) >= 0 && this.resumeAfterFrame !== undefined) this.resumeReasoning();
      return;
    }
    // One flat copy, cut twice: the rope of chunks goes.
    const text = flat(frame.received);
    if (frame.kind === 'block' && frame.awaitAt >= 0) {
      this.finishBlock(frame, text.slice(0, frame.awaitAt));
      if (this.resumeAfterFrame !== undefined) this.resumeReasoning();
      this.drive(text, frame.awaitAt);
      return;
    }
    const cut = cutAt(text, 0, this.maxCall);
    this.giveUp(frame, text.slice(0, cut));
    this.drive(text.slice(cut), 0);
  }

  /**
   * Gives up a frame not decided within `maxCall` characters: `head`, those characters, is
   * reported `incomplete` (`reason: 'too-long'`), and what follows is read as a text of its own
   * (nothing before it is looked behind at, in a stream as in a batch, which reads it as a new
   * string), so that every chunking reads it alike.
   */
  private giveUp(frame: Frame, head: string): void {
    if (this.withEvents) {
      const id = frame.id;
      this.emit(id === undefined ? { type: 'incomplete', text: head, reason: 'too-long' } : { type: 'incomplete', text: head, id, reason: 'too-long' });
    }
    this.lastReleased = -1;
    this.recentCount = 0;
    this.recentText = undefined;
    this.opening = '';
    if (this.resumeAfterFrame !== undefined) this.resumeReasoning();
  }

  /** A closed native block: its calls, each with its part of the block as source span. */
  private finishBlock(frame: Frame, text: string): void {
    const body = frame.body;
    const calls = body === undefined ? [] : parseBlock(body, text, frame.ends, frame.openerLength, this).filter((call) => this.accepts(call.name));
    if (calls.length === 0) {
      // A section with no call inside reasoning that it interrupted is part of that reasoning.
      if (this.resumeAfterFrame !== undefined) this.emitReasoning(text);
      else this.releaseText(text);
      return;
    }
    let previous = 0;
    for (let k = 0; k < calls.length; k++) {
      const call = calls[k];
      if (call === undefined) continue;
      const spanEnd = k === calls.length - 1 ? text.length : Math.max(previous, call.end);
      const span = text.slice(previous, spanEnd);
      previous = spanEnd;
      const schema = this.schemaOf(call.name);
      const args = call.args === undefined || schema === undefined ? call.args : withSchema(call.args, schema);
      this.settle(call.name, args, span, undefined, call.id);
    }
  }

  /** A closed JSON object: a call itself, or a wrapper with call objects inside, or plain text. */
  private finishJson(frame: Frame, text: string): void {
    const whole = this.callOfJson(text);
    if (whole !== undefined) {
      this.settle(whole.name, whole.args, text, undefined, whole.id);
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
      this.settle(call.name, call.args, span, undefined, call.id);
      released = end + 1;
      skipUntil = end + 1;
    }
    this.releaseText(text.slice(released));
  }

  /**
   * The call a JSON object text describes: `{"name"|"tool_name": …, "arguments"|"parameters"|
   * "params"|"args"|"input": …}`, or with an allow-list `{"NAME": {…}}` (Apertus). An echoed
   * tool definition (its `parameters` a JSON Schema of an object) is not a call. An id the
   * model wrote (Cohere's `tool_call_id`, the `id` of Mistral's list) is the call's id.
   */
  private callOfJson(text: string): JsonCall | undefined {
    const value = tryParseArguments(text, undefined);
    if (value === undefined) return undefined;
    const name = value.name ?? value.tool_name;
    if (typeof name !== 'string') return this.callOfNameKey(value);
    if (!this.accepts(name)) return undefined;
    const key = ARGUMENT_KEYS.find((k) => Object.hasOwn(value, k));
    const raw = key === undefined ? undefined : value[key];
    if (isObjectSchema(raw)) return undefined;
    const schema = this.schemaOf(name);
    let args: Record<string, unknown> | undefined;
    if (raw === null) args = {};
    else if (typeof raw === 'string') args = tryParseArguments(raw, schema);
    else if (isRecord(raw)) args = schema === undefined ? raw : withSchema(raw, schema);
    else return undefined;
    const id = modelIdOf(value);
    return id === undefined ? { name, args } : { name, args, id };
  }

  /** `{"NAME": {…}}` with NAME on the allow-list (never without one: any object would do). */
  private callOfNameKey(value: Record<string, unknown>): JsonCall | undefined {
    const allowed = this.options.allowed;
    if (allowed === undefined) return undefined;
    const keys = Object.keys(value);
    const name = keys[0];
    if (keys.length !== 1 || name === undefined || !allowed.has(name)) return undefined;
    const raw = value[name];
    if (!isRecord(raw) || isObjectSchema(raw)) return undefined;
    const schema = allowed.get(name);
    return { name, args: schema === undefined ? raw : withSchema(raw, schema) };
  }

  /** The schema of a tool's arguments, when the allow-list gave one (`NativeContext`). */
  schemaOf(name: string): JsonSchema | undefined {
    return this.options.typed ? this.options.allowed?.get(name) : undefined;
  }

  /** Emits a found call (or reports it as discarded: bad arguments, or a repeat of an earlier call). */
  private settle(
    name: string,
    args: Record<string, unknown> | undefined,
    text: string,
    startedId: string | undefined,
    modelId: string | undefined,
    madeEnd?: string,
  ): void {
    // Only a long source can nest that deep: the short calls of most outputs are not walked.
    if (args !== undefined && text.length >= MAX_ARGUMENT_DEPTH && nestsTooDeep(args)) args = undefined;
    if (args === undefined) {
      if (startedId !== undefined && this.withEvents) {
        this.emit({ type: 'tool-call-discarded', id: startedId, text, reason: 'invalid-arguments' });
      } else if (this.resumeAfterFrame !== undefined) {
        // A broken call inside reasoning that its frame interrupted is part of that reasoning.
        this.emitReasoning(text);
      } else {
        this.releaseText(text);
      }
      return;
    }
    // A stream keeps no list of its calls, so it records every call. A batch keeps its calls:
    // the first repeats none, and while there are few a call is compared with them directly
    // (what `SeenCalls` would do with a copy of them); past that `seenCalls` records them.
    const found = this.found;
    const repeat = this.withEvents
      ? !this.seenCalls().add(name, args)
      : found !== undefined && (this.seen === undefined && found.length <= DIRECT_COMPARE_LIMIT ? repeatsEarlier(found, name, args) : !this.seenCalls().add(name, args));
    if (repeat) {
      if (this.withEvents) {
        const id = startedId ?? this.keptModelId(modelId) ?? this.freshId(name);
        this.emit({ type: 'tool-call-discarded', id, text, reason: 'duplicate' });
      }
      this.remember(text, madeEnd);
      return;
    }
    const kept = startedId !== undefined && startedId !== '' ? undefined : this.keptModelId(modelId);
    const id = startedId !== undefined && startedId !== '' ? startedId : (kept ?? this.freshId(name));
    this.callCount++;
    if (this.ids !== undefined) this.ids.set(id, kept !== undefined);
    else if (this.withEvents) (this.idList ??= []).push(id);
    if (kept !== undefined) this.modelIdKept = true;
    if (this.withEvents) {
      if (startedId === undefined) {
        this.emit({ type: 'tool-call-start', id, name });
        this.emit({ type: 'tool-call-delta', id, argumentsText: JSON.stringify(args) });
      }
      this.emit({ type: 'tool-call', toolCall: streamedCall(id, name, args), text });
    } else {
      const toolCall = foundCall(id, name, args);
      if (found === undefined) this.found = [toolCall];
      else found.push(toolCall);
    }
    this.remember(text, madeEnd);
  }

  /**
   * The id a model wrote for a call, when it is kept: a safe one (`isSafeModelId`) that no
   * earlier call of this text has (made ids included). Kimi and Mistral templates need the
   * model's own id on the next turn; a repeated or unsafe one gets a made id instead.
   */
  private keptModelId(modelId: string | undefined): string | undefined {
    if (modelId === undefined || !isSafeModelId(modelId)) return undefined;
    let ids = this.ids;
    if (ids === undefined) {
      ids = this.ids = new Map();
      for (const id of this.idList ?? []) ids.set(id, false);
      for (const call of this.found ?? []) ids.set(call.id, false);
      this.idList = undefined;
    }
    return ids.has(modelId) ? undefined : modelId;
  }

  /**
   * The made id of the next call (`options.id`); when a model-written id kept earlier took it
   * (`"id": "f_1"` before the call made `f_1`), the first free of `f_1_2`, `f_1_3`, ….
   */
  private freshId(name: string): string {
    const id = this.options.id(name, this.callCount);
    const ids = this.ids;
    if (!this.modelIdKept || ids === undefined || ids.get(id) !== true) return id;
    let candidate = id;
    for (let k = 2; k < 2 + MAX_ID_SUFFIXES; k++) {
      candidate = `${id}_${String(k)}`;
      if (!ids.has(candidate)) break;
    }
    return candidate;
  }

  /** The calls seen; in batch made with the second call, from the calls so far (exactly those recorded). */
  private seenCalls(): SeenCalls {
    if (this.seen === undefined) {
      this.seen = new SeenCalls();
      for (const call of this.found ?? []) this.seen.add(call.name, call.arguments);
    }
    return this.seen;
  }

  private emit(event: ToolCallParserEvent): void {
    if (this.sink !== undefined) deliverEvent(this.sink, event);
    else if (this.events === undefined) this.events = [event];
    else this.events.push(event);
  }

  private release(s: string, from: number, to: number): void {
    // Released text goes to events and look-behind: a whole text without events keeps neither.
    if (to > from && (this.withEvents || !this.whole)) this.releaseText(s.slice(from, to));
  }

  private releaseText(text: string): void {
    if (text === '') return;
    if (this.withEvents) {
      const sink = this.sink;
      if (sink === undefined) this.emit(this.reasoningClosers === undefined ? { type: 'text', text } : { type: 'reasoning', text });
      else if (this.reasoningClosers === undefined) sink.onText?.(text);
      else sink.onReasoning?.(text);
    }
    this.remember(text);
  }

  /** `remember` of one released character `c` (streamed text): the same state, without reading a string. */
  private rememberCode(c: number): void {
    this.lastReleased = c;
    const recent = (this.recent ??= new Uint16Array(HISTORY_LENGTH));
    const at = this.recentAt;
    recent[at] = c;
    this.recentAt = (at + 1) & (HISTORY_LENGTH - 1);
    const count = this.recentCount + 1;
    if (count >= HISTORY_LENGTH) {
      this.recentText = undefined;
      this.recentCount = HISTORY_LENGTH;
    } else {
      this.recentCount = count;
    }
  }

  /**
   * Keeps the last characters that went out, for look-behind. `madeEnd`: the end of `text` as
   * a string the parser made (a streamed call's arguments, see `closeStreamedCall`), not cut
   * from a chunk, so that keeping it keeps nothing else alive.
   */
  private remember(text: string, madeEnd?: string): void {
    if (this.opening !== undefined && !this.whole) this.noteOpening(text);
    this.rememberRecent(text, madeEnd);
  }

  /** `remember` without `opening`. */
  private rememberRecent(text: string, madeEnd?: string): void {
    // A whole text is its own look-behind (a name found at its start has nothing before it).
    if (this.whole) return;
    const length = text.length;
    if (length === 0) return;
    this.lastReleased = text.charCodeAt(length - 1);
    if (madeEnd !== undefined && madeEnd.length >= HISTORY_LENGTH && madeEnd.length <= KEPT_TEXT_LENGTH) {
      // Its end alone fills the look-behind: keep it (no copy) and empty the ring.
      this.recentText = madeEnd;
      this.recentCount = 0;
      return;
    }
    const recent = (this.recent ??= new Uint16Array(HISTORY_LENGTH));
    let at = this.recentAt;
    for (let k = length > HISTORY_LENGTH ? length - HISTORY_LENGTH : 0; k < length; k++) {
      recent[at] = text.charCodeAt(k);
      at = (at + 1) & (HISTORY_LENGTH - 1);
    }
    this.recentAt = at;
    const count = this.recentCount + length;
    if (count >= HISTORY_LENGTH) {
      // The ring alone fills the look-behind again.
      this.recentText = undefined;
      this.recentCount = HISTORY_LENGTH;
    } else {
      this.recentCount = count;
    }
  }
}
