import { ToolwireError } from '@toolwire/core';

/**
 * An OpenAI container has expired (20 minutes without use) or stopped. Its files are gone
 * and it cannot be revived: create a new container, or use auto mode.
 */
export class ContainerExpiredError extends ToolwireError {
  static override readonly errorName = 'ContainerExpiredError';
  /** The expired container's id, when known. */
  readonly containerId: string | undefined;
  /** The HTTP status OpenAI answered with (400 or 404). */
  readonly status: number | undefined;
  constructor(options: { containerId?: string; status?: number; providerMessage: string; cause?: unknown }) {
    const which = options.containerId === undefined ? 'The container' : `Container ${options.containerId}`;
    super(
      `${which} has expired or is no longer running (OpenAI: "${options.providerMessage}"). ` +
        'Containers expire after 20 minutes without use and their files are lost. Create a fresh one with ' +
        "`containers.create({ memoryLimit })` (or use the auto container `openAICodeInterpreter({ container: { memoryLimit } })`), " +
        'upload the files again, and drop the old code_interpreter_call items from the history you replay.',
      { cause: options.cause },
    );
    this.containerId = options.containerId;
    this.status = options.status;
  }
  static override isInstance(error: unknown): error is ContainerExpiredError {
    return this.hasMarker(error, ContainerExpiredError.errorName);
  }
}

/** A file was refused before upload: its type is not one code interpreter supports, or it is too large. */
export class UnsupportedUploadError extends ToolwireError {
  static override readonly errorName = 'UnsupportedUploadError';
  readonly filename: string;
  readonly reason: 'extension' | 'mime-type' | 'size';
  constructor(options: { filename: string; reason: 'extension' | 'mime-type' | 'size'; message: string }) {
    super(options.message);
    this.filename = options.filename;
    this.reason = options.reason;
  }
  static override isInstance(error: unknown): error is UnsupportedUploadError {
    return this.hasMarker(error, UnsupportedUploadError.errorName);
  }
}

/** The local code interpreter cannot run a language here (no usable `python3`, no sandbox). */
export class InterpreterUnavailableError extends ToolwireError {
  static override readonly errorName = 'InterpreterUnavailableError';
  readonly language: string;
  constructor(options: { language: string; message: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.language = options.language;
  }
  static override isInstance(error: unknown): error is InterpreterUnavailableError {
    return this.hasMarker(error, InterpreterUnavailableError.errorName);
  }
}

