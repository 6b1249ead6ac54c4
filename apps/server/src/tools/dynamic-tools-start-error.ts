import { ToolwireError } from '@toolwire/core';

/**
 * MCP servers or OpenAPI documents of the config that could not be started (and are not
 * `optional`): the gateway does not start. The message names each source and its problem.
 */
export class DynamicToolsStartError extends ToolwireError {
  static override readonly errorName = 'DynamicToolsStartError';
  /** The sources that failed, e.g. `mcp:github`, `openapi:petstore`. */
  readonly sources: string[];
  constructor(options: { failures: { source: string; problem: string }[]; cause?: unknown }) {
    super(
      `${options.failures.map((failure) => `${failure.source}: ${failure.problem}`).join('\n')}\n` +
        'Fix the source, or set "optional": true on it to start the gateway without its tools.',
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.sources = options.failures.map((failure) => failure.source);
  }
  static override isInstance(error: unknown): error is DynamicToolsStartError {
    return this.hasMarker(error, DynamicToolsStartError.errorName);
  }
}
