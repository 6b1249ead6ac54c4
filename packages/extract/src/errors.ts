import { ToolwireError } from '@toolwire/core';

/** A streaming tool-call parser was given text after `end()`. */
export class ToolCallParserEndedError extends ToolwireError {
  static override readonly errorName = 'ToolCallParserEndedError';
  constructor() {
    super('The tool-call parser has ended; create a new parser with createToolCallParser() for the next stream.');
  }
  static override isInstance(error: unknown): error is ToolCallParserEndedError {
    return this.hasMarker(error, ToolCallParserEndedError.errorName);
  }
}

/** A streaming tool-call parser was pushed to (or ended) from inside one of its own sink's methods. */
export class ToolCallParserReentryError extends ToolwireError {
  static override readonly errorName = 'ToolCallParserReentryError';
  constructor() {
    super('The tool-call parser was called from inside one of its sink methods while it was scanning; push the next chunk after push() returns.');
  }
  static override isInstance(error: unknown): error is ToolCallParserReentryError {
    return this.hasMarker(error, ToolCallParserReentryError.errorName);
  }
}

/** An option of `extractToolCalls` or `createToolCallParser` has a value it cannot take. */
export class InvalidExtractOptionError extends ToolwireError {
  static override readonly errorName = 'InvalidExtractOptionError';
  /** The option, as it is named in `ExtractOptions`. */
  readonly option: string;
  /** The value given. */
  readonly value: unknown;
  constructor(option: string, value: unknown, expected: string) {
    super(`The extract option ${option} must be ${expected}; got ${describe(value)}.`);
    this.option = option;
    this.value = value;
  }
  static override isInstance(error: unknown): error is InvalidExtractOptionError {
    return this.hasMarker(error, InvalidExtractOptionError.errorName);
  }
}

/** A value as an error message shows it: short, whatever its type. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === undefined || value === null) return String(value);
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
