import { ToolwireError } from '@toolwire/core';

/** An OpenAPI document that cannot be turned into tools (invalid, unresolvable, or no usable server). */
export class OpenApiDocumentError extends ToolwireError {
  static override readonly errorName = 'OpenApiDocumentError';
  constructor(options: { problem: string; cause?: unknown }) {
    super(`The OpenAPI document cannot be used: ${options.problem}`, { cause: options.cause });
  }
  static override isInstance(error: unknown): error is OpenApiDocumentError {
    return this.hasMarker(error, OpenApiDocumentError.errorName);
  }
}
