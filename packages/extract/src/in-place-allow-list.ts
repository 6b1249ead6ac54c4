import type { JsonSchema } from '@toolwire/core';
import type { AllowList, ExtractableTool } from './extract-options.ts';

/** Lists up to this long are read where they stand (see `InPlaceAllowList`). */
export const SMALL_LIST_LENGTH = 8;

/** The names and schemas of a list longer than `SMALL_LIST_LENGTH`, resolved once per array. */
export type LongListResolver = (tools: readonly (string | ExtractableTool)[]) => ReadonlyMap<string, JsonSchema | undefined>;

/**
 * An allow-list read where it stands on every call, up to `SMALL_LIST_LENGTH` names (a
 * streaming parser gives it a copy of a short array, made when the parser is created; longer
 * ones only in batch, see below): nothing to prepare, cache or look up, so a
 * new list with every request costs nothing, and an old one touches no cache (a cache entry
 * per list is memory the processor must fetch again when lists are many). Answers as a map
 * of the names would: a name listed twice takes its last schema.
 *
 * Given a `LongListResolver` (batch), it takes any list, and measures it only when first
 * asked about a name: a list longer than `SMALL_LIST_LENGTH` is then looked up in its map.
 * An output without a possible call never touches the caller's list, and one with a call
 * touches it after its own text, which the caller's data often holds nearby. A hole in the
 * list (`[a, , b]`) is no tool, in every question.
 */
export class InPlaceAllowList implements AllowList {
  private readonly tools: readonly (string | ExtractableTool)[];
  private readonly resolveLong: LongListResolver | undefined;
  /** The map of a long list; `false` once the list is known to be short; `undefined` until first asked. */
  private long: ReadonlyMap<string, JsonSchema | undefined> | false | undefined;
  /** Whether any listed tool has a schema: learnt in `nameIn`'s pass, or when first asked for one (see `get`). */
  private schemas: boolean | undefined;
  /** Whether a search of `occursAt` found no name where it was asked about: later ones cut and compare. */
  private missed = false;
  /**
   * `tools`: a copy where the caller could change the list while it is in use (a streaming
   * parser). `resolveLong`: how to look up a list too long to read in place; without it, the
   * list must be short.
   */
  constructor(tools: readonly (string | ExtractableTool)[], resolveLong?: LongListResolver) {
    this.tools = tools;
    this.resolveLong = resolveLong;
  }

  has(name: string): boolean {
    const long = this.long ?? this.longMap();
    if (long !== false) return long.has(name);
    for (const tool of this.tools) if (tool !== undefined && (typeof tool === 'string' ? tool : tool.name) === name) return true;
    return false;
  }

  /**
   * The listed name equal to `s.slice(start, end)`, or `undefined` (the scanner asks at every
   * `(` with a name before it); the scanner then takes the listed string as the call's name and
   * cuts nothing. Compares length, first and last character in place, and for a candidate that
   * passes, searches `s` for the name from `start` (see `occursAt`). Goes on to the end of the
   * list after a match: whether any tool has a schema (asked next, for the call's arguments) is
   * learnt from the same reads, all issued at once.
   */
  nameIn(s: string, start: number, end: number): string | undefined {
    const long = this.long ?? this.longMap();
    if (long !== false) {
      const name = s.slice(start, end);
      return long.has(name) ? name : undefined;
    }
    const tools = this.tools;
    const length = end - start;
    const first = s.charCodeAt(start);
    const last = s.charCodeAt(end - 1);
    let found: string | undefined;
    let typed = false;
    for (let i = 0; i < tools.length; i++) {
      const tool = tools[i];
      if (tool === undefined) continue;
      let name: string;
      if (typeof tool === 'string') {
        name = tool;
      } else {
        name = tool.name;
        if (tool.inputSchema !== undefined) typed = true;
      }
      if (found === undefined && name.length === length && name.charCodeAt(0) === first && name.charCodeAt(length - 1) === last && this.occursAt(s, start, name)) {
        found = name;
      }
    }
    this.schemas = typed;
    return found;
  }

  /**
   * Whether `name` stands in `s` at `start` (the caller checked that it fits). The engine's
   * string search from `start` answers at once where the name is there (the common case: a
   * candidate that passed the length and end-character checks), without cutting the name out:
   * a cut of 13 characters or more is a view into `s`, which `===` compares in the engine's
   * runtime (the bench's corpus, same process: allow-list time about 1.5% less than cut and
   * `===`; bench/RESULTS.md, session 27). Where the name is not there the search runs on to its
   * next occurrence or the end of `s`, so it is tried only until it first misses: from then on
   * the name is cut and compared, and a list costs at most one search of a text more.
   */
  private occursAt(s: string, start: number, name: string): boolean {
    if (this.missed) return name === s.slice(start, start + name.length);
    if (s.indexOf(name, start) === start) return true;
    this.missed = true;
    return false;
  }

  /**
   * The schema of a listed tool. A list of names only answers without comparing any: most
   * lists are names, and an output without a call never asks.
   */
  get(name: string): JsonSchema | undefined {
    const long = this.long ?? this.longMap();
    if (long !== false) return long.get(name);
    this.schemas ??= this.typed();
    if (!this.schemas) return undefined;
    let schema: JsonSchema | undefined;
    for (const tool of this.tools) {
      if (typeof tool === 'string') {
        if (tool === name) schema = undefined;
      } else if (tool !== undefined && tool.name === name) {
        schema = tool.inputSchema;
      }
    }
    return schema;
  }

  *keys(): IterableIterator<string> {
    for (const tool of this.tools) if (tool !== undefined) yield typeof tool === 'string' ? tool : tool.name;
  }

  /** Whether any listed tool has a schema. */
  typed(): boolean {
    for (const tool of this.tools) if (typeof tool !== 'string' && tool !== undefined && tool.inputSchema !== undefined) return true;
    return false;
  }

  /** Measures the list (when first asked): the map a long one is looked up in, or `false` for one read in place. */
  private longMap(): ReadonlyMap<string, JsonSchema | undefined> | false {
    const resolve = this.resolveLong;
    this.long = resolve !== undefined && this.tools.length > SMALL_LIST_LENGTH ? resolve(this.tools) : false;
    return this.long;
  }
}
