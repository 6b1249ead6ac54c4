import type { JsonSchema } from '@toolwire/core';
import type { AllowList, ExtractableTool } from './extract-options.ts';

/** Lists up to this long are read where they stand (see `SmallAllowList`). */
export const SMALL_LIST_LENGTH = 8;

/** The names and schemas of a list longer than `SMALL_LIST_LENGTH`, resolved once per array. */
export type LongListResolver = (tools: readonly (string | ExtractableTool)[]) => ReadonlyMap<string, JsonSchema | undefined>;

/**
 * A short allow-list read where it stands on every call (a streaming parser gives it a copy
 * of the array, made when the parser is created): nothing to prepare, cache or look up, so a
 * new list with every request costs nothing, and an old one touches no cache (a cache entry
 * per list is memory the processor must fetch again when lists are many). Answers as a map
 * of the names would: a name listed twice takes its last schema.
 *
 * Given a `LongListResolver` (batch), it takes any list, and measures it only when first
 * asked about a name: a list longer than `SMALL_LIST_LENGTH` is then looked up in its map.
 * An output without a possible call never touches the caller's list, and one with a call
 * touches it after its own text, which the caller's data often holds nearby.
 */
export class SmallAllowList implements AllowList {
  private readonly tools: readonly (string | ExtractableTool)[];
  private readonly resolveLong: LongListResolver | undefined;
  /** The map of a long list; `false` once the list is known to be short; `undefined` until first asked. */
  private long: ReadonlyMap<string, JsonSchema | undefined> | false | undefined;
  /** Whether any listed tool has a schema; found out when first asked for one (see `get`). */
  private schemas: boolean | undefined;
  /** The text `missed` is about (see `standsAt`). */
  private searched: string | undefined;
  /**
   * Per listed position, two numbers: a position `searched` was searched from for that name,
   * and where the name was found first at or after it (-1: nowhere).
   */
  private missed: number[] | undefined;

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
    const long = this.longMap();
    if (long !== false) return long.has(name);
    for (const tool of this.tools) if ((typeof tool === 'string' ? tool : tool.name) === name) return true;
    return false;
  }

  /**
   * The listed name equal to `s.slice(start, end)`, or `undefined` (the scanner asks at every
   * `(` with a name before it); the scanner then takes the listed string as the call's name and
   * cuts nothing. Compares length and first character in place, then the whole name with
   * `indexOf` from `start` (see `standsAt`): no string is cut, and the engine compares in its
   * own loop (about 30 ns for a name of 21 characters, where a cut and `===` took 70 ns: a cut
   * of 13 characters or more is a view into the text, compared outside the engine's fast path;
   * `startsWith` in place and a `charCodeAt` loop took 70–80 ns).
   */
  nameIn(s: string, start: number, end: number): string | undefined {
    const long = this.longMap();
    if (long !== false) {
      const name = s.slice(start, end);
      return long.has(name) ? name : undefined;
    }
    const tools = this.tools;
    const length = end - start;
    const first = s.charCodeAt(start);
    for (let i = 0; i < tools.length; i++) {
      const tool = tools[i];
      if (tool === undefined) continue;
      const name = typeof tool === 'string' ? tool : tool.name;
      if (name.length === length && name.charCodeAt(0) === first && this.standsAt(s, name, i, start)) return name;
    }
    return undefined;
  }

  /**
   * Whether `name`, listed at position `i`, stands in `s` at `start`. Where it does not,
   * `indexOf` searches on to the next place it does: that place is remembered, and a later
   * question about a position before it is answered without searching, so that no part of a
   * text is searched twice for one name and a text of many near-misses stays linear.
   */
  private standsAt(s: string, name: string, i: number, start: number): boolean {
    let missed = this.missed;
    if (missed !== undefined && this.searched === s) {
      const from = missed[2 * i] ?? -1;
      const next = missed[2 * i + 1] ?? -1;
      if (from >= 0 && from <= start && (next < 0 || start <= next)) return next === start;
    }
    const found = s.indexOf(name, start);
    if (found === start) return true;
    if (missed === undefined || this.searched !== s) {
      missed = this.missed = new Array<number>(2 * this.tools.length).fill(-1);
      this.searched = s;
    }
    missed[2 * i] = start;
    missed[2 * i + 1] = found;
    return false;
  }

  /**
   * The schema of a listed tool. A list of names only answers without comparing any: most
   * lists are names, and an output without a call never asks.
   */
  get(name: string): JsonSchema | undefined {
    const long = this.longMap();
    if (long !== false) return long.get(name);
    this.schemas ??= this.typed();
    if (!this.schemas) return undefined;
    let schema: JsonSchema | undefined;
    for (const tool of this.tools) {
      if (typeof tool === 'string') {
        if (tool === name) schema = undefined;
      } else if (tool.name === name) {
        schema = tool.inputSchema;
      }
    }
    return schema;
  }

  *keys(): IterableIterator<string> {
    for (const tool of this.tools) yield typeof tool === 'string' ? tool : tool.name;
  }

  /** Whether any listed tool has a schema. */
  typed(): boolean {
    for (const tool of this.tools) if (typeof tool !== 'string' && tool.inputSchema !== undefined) return true;
    return false;
  }

  /** The map a long list is looked up in, or `false` for a list read in place. */
  private longMap(): ReadonlyMap<string, JsonSchema | undefined> | false {
    if (this.long === undefined) {
      const resolve = this.resolveLong;
      this.long = resolve !== undefined && this.tools.length > SMALL_LIST_LENGTH ? resolve(this.tools) : false;
    }
    return this.long;
  }
}
