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
