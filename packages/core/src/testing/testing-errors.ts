import { ToolwireError } from '../errors.ts';

/** A scripted model was called more often than it has steps. */
export class ScriptExhaustedError extends ToolwireError {
  static override readonly errorName = 'ScriptExhaustedError';
  readonly callNumber: number;
  constructor(options: { callNumber: number; steps: number }) {
    super(
      `The scripted model got call #${options.callNumber} but has only ${options.steps} step(s). ` +
        'Add a step for this call, or check why the code under test calls the model again.',
    );
    this.callNumber = options.callNumber;
  }
  static override isInstance(error: unknown): error is ScriptExhaustedError {
    return this.hasMarker(error, ScriptExhaustedError.errorName);
  }
}

/** A replayed conversation went somewhere the transcript does not cover. */
export class ReplayMismatchError extends ToolwireError {
  static override readonly errorName = 'ReplayMismatchError';
  readonly transcript: string;
  /** 0-based index of the turn the request would have been answered by. */
  readonly turnIndex: number;
  constructor(options: { transcript: string; turnIndex: number; problem: string }) {
    super(`Replay of transcript "${options.transcript}", turn ${options.turnIndex + 1}: ${options.problem}`);
    this.transcript = options.transcript;
    this.turnIndex = options.turnIndex;
  }
  static override isInstance(error: unknown): error is ReplayMismatchError {
    return this.hasMarker(error, ReplayMismatchError.errorName);
  }
}

/** A replay transcript that does not have the expected shape. */
export class InvalidTranscriptError extends ToolwireError {
  static override readonly errorName = 'InvalidTranscriptError';
  readonly problems: string[];
  constructor(options: { problems: string[] }) {
    super(`The replay transcript is invalid: ${options.problems.join('; ')}. See ReplayTranscript for the format.`);
    this.problems = options.problems;
  }
  static override isInstance(error: unknown): error is InvalidTranscriptError {
    return this.hasMarker(error, InvalidTranscriptError.errorName);
  }
}

/** A provider broke the `ChatModel` contract in a conformance check. */
export class ConformanceError extends ToolwireError {
  static override readonly errorName = 'ConformanceError';
  readonly check: string;
  constructor(options: { check: string; problem: string }) {
    super(`Conformance check "${options.check}" failed: ${options.problem}`);
    this.check = options.check;
  }
  static override isInstance(error: unknown): error is ConformanceError {
    return this.hasMarker(error, ConformanceError.errorName);
  }
}
