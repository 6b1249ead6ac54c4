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
