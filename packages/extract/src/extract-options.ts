import { DEFAULT_MAX_ANSWER_CHARS } from '@toolwire/core';
import type { JsonSchema } from '@toolwire/core';
import { InvalidExtractOptionError } from './errors.ts';
import { NamePrefixes } from './name-prefixes.ts';
import { SMALL_LIST_LENGTH, InPlaceAllowList } from './in-place-allow-list.ts';

/** A text format the scanner looks for. */
export type ToolCallFormat =
  /** Call syntax: `search(q="x")`, Python-style lists `[f(a=1), g()]`, `<|python_tag|>f(a=1)`. */
  | 'call'
  /**
   * JSON: `{"name": …, "arguments": …}` (bare, in arrays, fences, `<tool_call>` tags: Hermes,
   * Qwen2.5/3, Llama 3.x, Granite, Cohere `Action:`/`tool_name`), `[TOOL_CALLS] […]` and `[TOOL_CALLS]name{…}`.
   */
  | 'json'
  /** Qwen3-Coder, Qwen3.5, Nemotron 3: `<tool_call><function=NAME><parameter=ARG>…</parameter></function></tool_call>`. */
  | 'qwen3-xml'
  /** Seed-OSS: the Qwen3 XML body inside `<seed:tool_call>`. */
  | 'seed-oss'
  /** MiniMax-M2: `<minimax:tool_call><invoke name="NAME"><parameter name="ARG">…</parameter></invoke>`; dots: the same in `<dots_function_call>`. */
  | 'minimax-m2'
  /**
   * MiniMax M3: `]<]minimax[>[<tool_call>` then `]<]minimax[>[<invoke name="NAME">` with an element per
   * argument (`]<]minimax[>[<ARG>…]<]minimax[>[</ARG>`), nested elements for objects and arrays.
   */
  | 'minimax-m3'
  /**
   * GLM-4.5/4.6/4.7: `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>`, and the same body
   * spelled by Hunyuan HY v3/v4 (`<tool_sep>`, suffixed tags `<tool_call:SUFFIX>`), IQuest Coder V2
   * (`<iquestcoder_tool_call>`) and K2 Horizon (`<ifm|tool_call>`, `<ifm|arg_key>`).
   */
  | 'glm'
  /** DeepSeek R1, V3, V3.1: `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>` (also StepFun Step-3's `<steptml:invoke>` calls inside these tokens). */
  | 'deepseek'
  /** DeepSeek V3.2 (and V4) DSML: `<｜DSML｜function_calls><｜DSML｜invoke name="NAME">…`; V4.1's `<｜DSML｜ calls>`; GigaChat 3.5's `<｜GCML｜tool_calls>`. */
  | 'deepseek-dsml'
  /** Kimi K3 (XTML): `<|open|>tools<|sep|><|open|>call tool="NAME" index="1"<|sep|><|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>…`. */
  | 'kimi-k3'
  /** Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}…`. */
  | 'kimi-k2'
  /** Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:1}<tool_call|>`. */
  | 'gemma4'
  /** FunctionGemma (Gemma 3 270M): Gemma 4's call syntax as `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`. */
  | 'functiongemma'
  /** gpt-oss harmony: `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`. */
  | 'harmony'
  /** Mistral (tokenizer v11+: Ministral 3, Devstral, Magistral, Small 3.2): `[TOOL_CALLS]NAME[ARGS]{…}`, `[CALL_ID]`. */
  | 'mistral'
  /** Functionary v3.1 `<function=NAME>{…}</function>` and v3.2 `>>>NAME\n{…}`. */
  | 'functionary'
  /** Apertus: `<|tools_prefix|>[{"NAME": {…}}]<|tools_suffix|>`. */
  | 'apertus'
  /**
   * Solar Open 2: `<|tool_call:start|>NAME\n<|tool_arg:start|>K<|tool_arg:value|>V<|tool_arg:end|>…<|tool_call:end|>`;
   * Solar Open: `<|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{…}<|tool_call:end|>`.
   */
  | 'solar-open'
  /**
   * PLaMo 3: `<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>NAME`
   * `<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>{…}<|plamo:end_tool_arguments:plamo|>…`.
   */
  | 'plamo3'
  /** MiniCPM5: `<function name="NAME"><param name="ARG">VALUE</param></function>`. */
  | 'minicpm5';

/** The formats of one model family (every `ToolCallFormat` but the generic call syntax and JSON). */
export type NativeToolCallFormat = Exclude<ToolCallFormat, 'call' | 'json'>;

/** Every format, in the order of the README's table. */
export const ALL_FORMATS: readonly ToolCallFormat[] = [
  'call',
  'json',
  'qwen3-xml',
  'seed-oss',
  'minimax-m2',
  'minimax-m3',
  'glm',
  'deepseek',
  'deepseek-dsml',
  'kimi-k2',
  'kimi-k3',
  'gemma4',
  'functiongemma',
  'harmony',
  'mistral',
  'functionary',
  'apertus',
  'solar-open',
  'plamo3',
  'minicpm5',
];

/**
 * Formats read only when asked for (`format`, or listed in `formats`): their markup is common
 * in prose and docs (MiniCPM5's `<function name="open"><param name="path">…` is how many XML
 * API references describe a function), so auto-detection would take text for calls.
 */
export const OPT_IN_FORMATS: readonly ToolCallFormat[] = ['minicpm5'];

/** The formats looked for when the options name none: every format but `OPT_IN_FORMATS`. */
export const DEFAULT_FORMATS: readonly ToolCallFormat[] = ALL_FORMATS.filter((format) => !OPT_IN_FORMATS.includes(format));

/** A tool as the extractor needs it: its name and (optionally) the JSON Schema of its arguments. */
export interface ExtractableTool {
  name: string;
  /** Drives type coercion of the arguments (`"5"` → 5 for an integer property, XML values). */
  inputSchema?: JsonSchema;
}

/** Options of `extractToolCalls` and `createToolCallParser`. */
export interface ExtractOptions {
  /**
   * Allow-list: tool names, or tool definitions (a core `Tool` works) whose schemas then
   * drive type coercion. Without it, any name counts (identifiers joined by `.` or `-`).
   * The list is read when `extractToolCalls` or `createToolCallParser` is called (a stream
   * keeps the list it started with); one of more than 8 tools is also remembered by identity
   * for later calls, checked entry by entry (an entry replaced, or a tool's `name` or
   * `inputSchema` swapped, is seen; a schema changed deep inside is not: give it a new object).
   */
  tools?: readonly (string | ExtractableTool)[];
  /**
   * The formats to look for (default: all but `minicpm5`, auto-detected in the same pass;
   * `minicpm5` is read only when named here or in `format`).
   */
  formats?: readonly ToolCallFormat[];
  /** Looks for this one format only, when the caller knows the model (`format: 'qwen3-xml'`). Wins over `formats`. */
  format?: ToolCallFormat;
  /**
   * Calls written inside a reasoning block (`<think>…</think>`, harmony `analysis`, …) are
   * reasoning, not calls (default). `true` reads them as calls too (Qwen3.5 sometimes puts its
   * real call before `</think>`).
   */
  callsInReasoning?: boolean;
  /** The prompt already opened a reasoning block (it ends with `<think>`): the text starts inside it. */
  startInReasoning?: boolean;
  /**
   * Makes the id of the `index`-th call found (0-based, after de-duplication). Default
   * `${name}_${index}`; pass e.g. `() => generateId('call_')` for ids unique across turns.
   * An id the model wrote itself (Kimi `functions.NAME:IDX`, Mistral `[CALL_ID]` and the `id`
   * of its JSON list, Cohere's `tool_call_id`, Solar Open) is kept when it is safe: 1 to 64
   * characters of `[A-Za-z0-9_.:-]`, not `__proto__`, and not the id of an earlier call of the
   * same text; otherwise the call gets an id made here. A made id that a kept model id already
   * took gets a suffix (`f_1_2`), so no two calls of one text share an id.
   */
  id?: (name: string, index: number) => string;
  /**
   * The longest span (a call, a JSON object, a native call block) read, in characters (default
   * 4 Mi, 4,194,304: core's bound on a whole answer; `0`: no bound). A span not closed within
   * its first `maxCallChars` characters is given up: a stream stops holding it and reports those
   * characters (one fewer where the bound would split a surrogate pair) as `incomplete` with
   * `reason: 'too-long'`, and what follows them is read as a
   * text of its own (a later call is still found); the batch form finds the same calls. Without
   * a bound, a call that never closes holds the rest of the stream.
   */
  maxCallChars?: number;
}

/** The allowed names with their schemas, as the scanner asks about them (a `Map` is one). */
export interface AllowList {
  has(name: string): boolean;
  get(name: string): JsonSchema | undefined;
  keys(): Iterable<string>;
}

/** Options with their defaults resolved, shared by the batch and streaming forms. */
export interface ResolvedExtractOptions {
  /** Allowed names with their schemas; `undefined` means any name. */
  allowed: AllowList | undefined;
  /**
   * Every prefix of an allowed name: text that is none of these cannot become a call name.
   * Only text held back for a next chunk asks (`undefined`: any run may grow into a name),
   * so a list used once (batch) has none.
   */
  prefixes: NamePrefixes | undefined;
  /**
   * Whether any allowed tool may have a schema (without one, no name needs looking up for
   * it). A short list is asked whenever a name is (it finds out when first asked).
   */
  typed: boolean;
  call: boolean;
  json: boolean;
  /** Functionary (`>>>NAME`): whether `>` is looked at. */
  functionary: boolean;
  /** The formats looked for. */
  formats: ReadonlySet<ToolCallFormat>;
  callsInReasoning: boolean;
  startInReasoning: boolean;
  id: (name: string, index: number) => string;
  /** `maxCallChars`, with `Infinity` for no bound (so that it is compared without a test for 0). */
  maxCallChars: number;
}

/** `maxCallChars` when the options give none. */
export const DEFAULT_MAX_CALL_CHARS = DEFAULT_MAX_ANSWER_CHARS;

/** `maxCallChars` checked and resolved: the default, `Infinity` for 0, or the whole number given. */
function resolveMaxCallChars(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_CALL_CHARS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidExtractOptionError('maxCallChars', value, 'a whole number of characters, 0 for no bound');
  }
  return value === 0 ? Infinity : value;
}

function defaultId(name: string, index: number): string {
  return `${name}_${index}`;
}

interface ResolvedTools {
  length: number;
  /** The list's entries, names and schemas as they were resolved: an array edited in place is resolved again. */
  entries: readonly (string | ExtractableTool | undefined)[];
  names: readonly (string | undefined)[];
  schemas: readonly (JsonSchema | undefined)[];
  allowed: Map<string, JsonSchema | undefined>;
  prefixes: NamePrefixes;
  typed: boolean;
  /** The options `{ tools }` alone resolve to (the common call), made once. */
  alone: ResolvedExtractOptions | undefined;
}

/**
 * Allow-lists resolved before, by array identity: callers pass the same tool list for every
 * output, and building its prefix set per call cost more than scanning a short output. An
 * array edited in place (an entry replaced, a tool's name or schema swapped, the length
 * changed) is resolved again: a withdrawn tool must not stay callable.
 */
const toolCache = new WeakMap<readonly (string | ExtractableTool)[], ResolvedTools>();
const formatCache = new Map<string, ReadonlySet<ToolCallFormat>>();
const DEFAULT = new Set<ToolCallFormat>(DEFAULT_FORMATS);

function resolveTools(tools: readonly (string | ExtractableTool)[]): ResolvedTools {
  const cached = toolCache.get(tools);
  if (cached !== undefined && unchanged(cached, tools)) return cached;
  const allowed = new Map<string, JsonSchema | undefined>();
  const entries: (string | ExtractableTool | undefined)[] = [];
  const names: (string | undefined)[] = [];
  const schemas: (JsonSchema | undefined)[] = [];
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i];
    entries.push(tool);
    // A hole (`[a, , b]`) is no tool, as where a short list is read in place.
    const name = typeof tool === 'string' ? tool : tool?.name;
    const schema = typeof tool === 'object' ? tool.inputSchema : undefined;
    names.push(name);
    schemas.push(schema);
    if (name !== undefined) allowed.set(name, schema);
  }
  let typed = false;
  for (const schema of allowed.values()) if (schema !== undefined) typed = true;
  const resolved: ResolvedTools = { length: tools.length, entries, names, schemas, allowed, prefixes: new NamePrefixes(allowed), typed, alone: undefined };
  toolCache.set(tools, resolved);
  return resolved;
}

/** Whether `tools` holds what it held when `cached` was made of it (one comparison per entry, no copy). */
function unchanged(cached: ResolvedTools, tools: readonly (string | ExtractableTool)[]): boolean {
  if (cached.length !== tools.length) return false;
  const { entries, names, schemas } = cached;
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i];
    if (tool !== entries[i]) return false;
    if (typeof tool === 'object' && (tool.name !== names[i] || tool.inputSchema !== schemas[i])) return false;
  }
  return true;
}

/** The map of a list too long to read in place, for a batch's `InPlaceAllowList`. */
function longListMap(tools: readonly (string | ExtractableTool)[]): ReadonlyMap<string, JsonSchema | undefined> {
  return resolveTools(tools).allowed;
}

function resolveFormats(options: ExtractOptions | undefined): ReadonlySet<ToolCallFormat> {
  const list = options?.format !== undefined ? [options.format] : options?.formats;
  if (list === undefined) return DEFAULT;
  const key = list.join(',');
  let set = formatCache.get(key);
  if (set === undefined) {
    set = new Set(list);
    // Bounded: format lists are few; odd ones are not worth keeping.
    if (formatCache.size < 64) formatCache.set(key, set);
  }
  return set;
}

const DEFAULTS: ResolvedExtractOptions = {
  allowed: undefined,
  prefixes: undefined,
  typed: false,
  call: true,
  json: true,
  functionary: true,
  formats: DEFAULT,
  callsInReasoning: false,
  startInReasoning: false,
  id: defaultId,
  maxCallChars: DEFAULT_MAX_CALL_CHARS,
};

/** The resolved options for an allow-list already resolved (or none); one object shape for every caller. */
function resolvedWith(options: ExtractOptions, allowed: ResolvedExtractOptions['allowed'], prefixes: ResolvedExtractOptions['prefixes'], typed: boolean): ResolvedExtractOptions {
  const formats = resolveFormats(options);
  return {
    allowed,
    prefixes,
    typed,
    call: formats.has('call'),
    json: formats.has('json'),
    functionary: formats.has('functionary'),
    formats,
    callsInReasoning: options.callsInReasoning === true,
    startInReasoning: options.startInReasoning === true,
    id: options.id ?? defaultId,
    maxCallChars: resolveMaxCallChars(options.maxCallChars),
  };
}

/**
 * Resolves the defaults of `ExtractOptions` in one place. `once`: the options serve one
 * call that returns before the caller can change them (batch), so the tool list is read
 * where it stands rather than copied, when first asked about.
 */
export function resolveExtractOptions(options: ExtractOptions | undefined, once = false): ResolvedExtractOptions {
  if (options === undefined) return DEFAULTS;
  const list = options.tools;
  const alone =
    options.format === undefined &&
    options.formats === undefined &&
    options.callsInReasoning === undefined &&
    options.startInReasoning === undefined &&
    options.id === undefined &&
    options.maxCallChars === undefined;
  // A batch reads the list where it stands, and not even its length until a name is asked
  // about (a long one is then looked up in its map); a stream reads a short list from a copy.
  if (list !== undefined && (once || list.length <= SMALL_LIST_LENGTH)) {
    const allowed = once ? new InPlaceAllowList(list, longListMap) : new InPlaceAllowList(list.slice());
    // A batch holds no text back for a next chunk, so it never asks for prefixes (see `prefixes`).
    const prefixes = once ? undefined : new NamePrefixes(allowed);
    // `{ tools }` alone (the common call): the defaults with the list, without resolving formats.
    // The list itself is read only for an output with a possible call (memory that, with a new
    // list per output, the processor has to fetch).
    if (alone) {
      return { allowed, prefixes, typed: true, call: true, json: true, functionary: true, formats: DEFAULT, callsInReasoning: false, startInReasoning: false, id: defaultId, maxCallChars: DEFAULT_MAX_CALL_CHARS };
    }
    return resolvedWith(options, allowed, prefixes, true);
  }
  const tools = list === undefined ? undefined : resolveTools(list);
  if (alone && tools === undefined) return DEFAULTS;
  if (alone && tools?.alone !== undefined) return tools.alone;
  const resolved = resolvedWith(options, tools?.allowed, tools?.prefixes, tools?.typed ?? false);
  if (alone && tools !== undefined) tools.alone = resolved;
  return resolved;
}
