import { ToolwireError } from '@toolwire/core';

/** A failure the user can fix; printed as one line with a hint, exit code 1. */
export class CliError extends ToolwireError {
  static override readonly errorName: string = 'CliError';
  readonly hint: string | undefined;
  readonly exitCode: number;
  constructor(message: string, options?: { hint?: string; exitCode?: number; cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.hint = options?.hint;
    this.exitCode = options?.exitCode ?? 1;
  }
  static override isInstance(error: unknown): error is CliError {
    return this.hasMarker(error, CliError.errorName);
  }
}

/** Wrong arguments or options: exit code 2. */
export class CliUsageError extends CliError {
  static override readonly errorName = 'CliUsageError';
  constructor(message: string, options?: { hint?: string }) {
    super(message, { ...options, exitCode: 2 });
  }
  static override isInstance(error: unknown): error is CliUsageError {
    return this.hasMarker(error, CliUsageError.errorName);
  }
}

/**
 * A failure the user has already been shown (a stream's `error` event, printed where it
 * happened): the command exits 1 without printing it a second time.
 */
export class ReportedError extends CliError {
  static override readonly errorName = 'ReportedError';
  constructor(cause: Error) {
    super(cause.message, { cause });
  }
  static override isInstance(error: unknown): error is ReportedError {
    return this.hasMarker(error, ReportedError.errorName);
  }
}
