import type { JsonSchema } from '@toolwire/core';

/** What a block parser needs from the scanner: the schema of a tool's arguments. */
export interface NativeContext {
  /** The JSON Schema of the tool's arguments, when the caller gave one. */
  schemaOf(name: string): JsonSchema | undefined;
}

/**
 * Sets `key` as `value`'s own property: a key the model wrote (`__proto__`) is an argument
 * like any other, never the object's prototype.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A call read from a native block. */
export interface NativeCall {
  name: string;
  /** `undefined` when the arguments do not parse (the call is dropped, never guessed). */
  args: Record<string, unknown> | undefined;
  /** The id the model wrote (Kimi `functions.NAME:IDX`), kept as the call's id. */
  id?: string;
  /** Offset in the block text just past this call's source. */
  end: number;
}

/**
 * `indexOf` with a cached answer: a search that is repeated from positions before the
 * last hit returns it without scanning again, so a parser that looks for the same token
 * from many places stays linear. A search from before where the last one started (a parser
 * that went back) reads only the text between the two.
 */
export class Finder {
  private at = -2;
  /** Where the search that found `at` started: no hit lies in [searched, at). */
  private searched = 0;
  private readonly s: string;
  private readonly token: string;
  private readonly to: number;

  constructor(s: string, token: string, to: number = s.length) {
    this.s = s;
    this.token = token;
    this.to = to;
  }

  next(from: number): number {
    if (this.at !== -2 && from < this.searched) {
      // Only a hit starting before `searched` can be new; the window is a slice (no copy).
      const end = Math.min(this.searched + this.token.length - 1, this.to);
      const i = this.s.slice(from, end).indexOf(this.token);
      if (i >= 0) this.at = from + i;
      this.searched = from;
      return this.at;
    }
    if (this.at === -1) return -1;
    if (this.at >= from) return this.at;
    const i = this.s.indexOf(this.token, from);
    this.at = i < 0 || i + this.token.length > this.to ? -1 : i;
    this.searched = from;
    return this.at;
  }
}
