import type { JsonSchema } from '@toolwire/core';

/** What a block parser needs from the scanner: the schema of a tool's arguments. */
export interface NativeContext {
  /** The JSON Schema of the tool's arguments, when the caller gave one. */
  schemaOf(name: string): JsonSchema | undefined;
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
 * from many places stays linear.
 */
export class Finder {
  private at = -2;
  private readonly s: string;
  private readonly token: string;
  private readonly to: number;

  constructor(s: string, token: string, to: number = s.length) {
    this.s = s;
    this.token = token;
    this.to = to;
  }

  next(from: number): number {
    if (this.at === -1) return -1;
    if (this.at >= from) return this.at;
    const i = this.s.indexOf(this.token, from);
    this.at = i < 0 || i + this.token.length > this.to ? -1 : i;
    return this.at;
  }
}
