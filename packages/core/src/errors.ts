/**
 * Toolwire's errors. Every class has a stable `name` and a static `isInstance` that
 * works across duplicate copies of this package in `node_modules` (it checks a
 * `Symbol.for` marker, not the prototype chain).
 */

const MARKER_PREFIX = 'toolwire.error.';

function markerOf(name: string): symbol {
  return Symbol.for(MARKER_PREFIX + name);
}

/** The root of every error Toolwire throws. */
export class ToolwireError extends Error {
  /** The class name that `isInstance` checks; each subclass overrides it. */
  static readonly errorName: string = 'ToolwireError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    // Mark the instance with every class name up the chain so `isInstance` works for
    // base classes too, even when the checking copy of the package differs.
    let ctor: unknown = new.target;
    while (typeof ctor === 'function' && 'errorName' in ctor) {
      const errorName = (ctor as { errorName: string }).errorName;
      Object.defineProperty(this, markerOf(errorName), { value: true, enumerable: false });
      if (ctor === ToolwireError) break;
      ctor = Object.getPrototypeOf(ctor);
    }
    Object.defineProperty(this, 'name', {
      value: (new.target as unknown as { errorName: string }).errorName,
      enumerable: false,
      configurable: true,
      writable: true,
    });
  }

  /** True when `error` is an instance of this class (or a subclass), from any copy of the package. */
  static isInstance(error: unknown): error is ToolwireError {
    return this.hasMarker(error, this.errorName);
  }

  /** For subclasses' `isInstance`: whether `error` carries the marker of class `errorName`. */
  protected static hasMarker(error: unknown, errorName: string): boolean {
    return typeof error === 'object' && error !== null && markerOf(errorName) in error;
  }
}

/** Argument text that cannot be parsed (unbalanced quotes or brackets). */
export class InvalidArgumentsError extends ToolwireError {
  static override readonly errorName = 'InvalidArgumentsError';
  readonly position: number;
  readonly text: string;
  constructor(options: { message: string; position: number; text: string }) {
    super(options.message);
    this.position = options.position;
    this.text = options.text;
  }
  static override isInstance(error: unknown): error is InvalidArgumentsError {
    return this.hasMarker(error, InvalidArgumentsError.errorName);
  }
}

/** A tool definition that cannot be used (bad name, non-object schema, schema that does not compile). */
export class InvalidToolDefinitionError extends ToolwireError {
  static override readonly errorName = 'InvalidToolDefinitionError';
  readonly toolName: string;
  constructor(options: { toolName: string; problem: string; cause?: unknown }) {
    super(`Tool "${options.toolName}" is invalid: ${options.problem}`, { cause: options.cause });
    this.toolName = options.toolName;
  }
  static override isInstance(error: unknown): error is InvalidToolDefinitionError {
    return this.hasMarker(error, InvalidToolDefinitionError.errorName);
  }
}

/** A tool's configuration is invalid (e.g. a provider tool's options); raised before any request. */
export class InvalidToolConfigError extends ToolwireError {
  static override readonly errorName = 'InvalidToolConfigError';
  readonly toolName: string;
  constructor(options: { toolName: string; problem: string }) {
    super(`Tool "${options.toolName}" is misconfigured: ${options.problem}`);
    this.toolName = options.toolName;
  }
  static override isInstance(error: unknown): error is InvalidToolConfigError {
    return this.hasMarker(error, InvalidToolConfigError.errorName);
  }
}

/** A call named a tool that is not available. */
export class UnknownToolError extends ToolwireError {
  static override readonly errorName = 'UnknownToolError';
  readonly toolName: string;
  readonly availableTools: string[];
  constructor(options: { toolName: string; availableTools: string[] }) {
    const list = options.availableTools.length > 0 ? options.availableTools.join(', ') : '(none)';
    super(`Unknown tool "${options.toolName}". Available tools: ${list}.`);
    this.toolName = options.toolName;
    this.availableTools = options.availableTools;
  }
  static override isInstance(error: unknown): error is UnknownToolError {
    return this.hasMarker(error, UnknownToolError.errorName);
  }
}

/** A `ProviderTool` was offered to a provider it is not bound to. */
export class ProviderToolMismatchError extends ToolwireError {
  static override readonly errorName = 'ProviderToolMismatchError';
  readonly toolName: string;
  readonly toolProvider: string;
  readonly provider: string;
  constructor(options: { toolName: string; toolProvider: string; provider: string }) {
    super(
      `Tool "${options.toolName}" is run by the ${options.toolProvider} provider and cannot be offered to ${options.provider}. ` +
        `Remove it from this request or use a ${options.toolProvider} model.`,
    );
    this.toolName = options.toolName;
    this.toolProvider = options.toolProvider;
    this.provider = options.provider;
  }
  static override isInstance(error: unknown): error is ProviderToolMismatchError {
    return this.hasMarker(error, ProviderToolMismatchError.errorName);
  }
}

/** A feature this provider or function does not support; the message says which and what to use instead. */
export class UnsupportedFeatureError extends ToolwireError {
  static override readonly errorName = 'UnsupportedFeatureError';
  readonly feature: string;
  constructor(options: { feature: string; message: string }) {
    super(options.message);
    this.feature = options.feature;
  }
  static override isInstance(error: unknown): error is UnsupportedFeatureError {
    return this.hasMarker(error, UnsupportedFeatureError.errorName);
  }
}

/** Common data of errors that come from a provider's API. */
export interface ProviderErrorOptions {
  provider: string;
  message: string;
  status?: number;
  /** The provider's own error code (`context_length_exceeded`, `usage_limit_reached`, …). */
  code?: string;
  /** Whether retrying the same request may succeed. */
  retryable?: boolean;
  cause?: unknown;
}

/** An error reported by (or while reaching) a model provider. */
export class ProviderError extends ToolwireError {
  static override readonly errorName: string = 'ProviderError';
  readonly provider: string;
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly retryable: boolean;
  constructor(options: ProviderErrorOptions) {
    super(options.message, { cause: options.cause });
    this.provider = options.provider;
    this.status = options.status;
    this.code = options.code;
    this.retryable = options.retryable ?? false;
  }
  static override isInstance(error: unknown): error is ProviderError {
    return this.hasMarker(error, ProviderError.errorName);
  }
}

/** 401: the API key or token was rejected. */
export class AuthenticationError extends ProviderError {
  static override readonly errorName: string = 'AuthenticationError';
  static override isInstance(error: unknown): error is AuthenticationError {
    return this.hasMarker(error, AuthenticationError.errorName);
  }
}

/** A sign-in that can no longer be refreshed; the user must sign in again. */
export class AuthExpiredError extends AuthenticationError {
  static override readonly errorName = 'AuthExpiredError';
  static override isInstance(error: unknown): error is AuthExpiredError {
    return this.hasMarker(error, AuthExpiredError.errorName);
  }
}

/** 403: the credentials are valid but not allowed to do this. */
export class PermissionDeniedError extends ProviderError {
  static override readonly errorName = 'PermissionDeniedError';
  static override isInstance(error: unknown): error is PermissionDeniedError {
    return this.hasMarker(error, PermissionDeniedError.errorName);
  }
}

/** 404: the model (or resource) does not exist at this provider. */
export class ModelNotFoundError extends ProviderError {
  static override readonly errorName = 'ModelNotFoundError';
  readonly modelId: string | undefined;
  constructor(options: ProviderErrorOptions & { modelId?: string }) {
    super(options);
    this.modelId = options.modelId;
  }
  static override isInstance(error: unknown): error is ModelNotFoundError {
    return this.hasMarker(error, ModelNotFoundError.errorName);
  }
}

/** 429: too many requests. `retryAfterMs` is set when the provider said how long to wait. */
export class RateLimitError extends ProviderError {
  static override readonly errorName: string = 'RateLimitError';
  readonly retryAfterMs: number | undefined;
  constructor(options: ProviderErrorOptions & { retryAfterMs?: number }) {
    super({ retryable: true, ...options });
    this.retryAfterMs = options.retryAfterMs;
  }
  static override isInstance(error: unknown): error is RateLimitError {
    return this.hasMarker(error, RateLimitError.errorName);
  }
}

/** A subscription's usage limit was reached; retrying before `resetsAt` will fail again. */
export class UsageLimitError extends RateLimitError {
  static override readonly errorName = 'UsageLimitError';
  readonly resetsAt: Date | undefined;
  constructor(options: ProviderErrorOptions & { retryAfterMs?: number; resetsAt?: Date }) {
    super({ ...options, retryable: false });
    this.resetsAt = options.resetsAt;
  }
  static override isInstance(error: unknown): error is UsageLimitError {
    return this.hasMarker(error, UsageLimitError.errorName);
  }
}

/** The conversation is longer than the model's context window. */
export class ContextLengthExceededError extends ProviderError {
  static override readonly errorName = 'ContextLengthExceededError';
  static override isInstance(error: unknown): error is ContextLengthExceededError {
    return this.hasMarker(error, ContextLengthExceededError.errorName);
  }
}

/** 400/422: the provider rejected the request as invalid. */
export class InvalidRequestError extends ProviderError {
  static override readonly errorName = 'InvalidRequestError';
  static override isInstance(error: unknown): error is InvalidRequestError {
    return this.hasMarker(error, InvalidRequestError.errorName);
  }
}

/** 5xx from the provider, after retries. */
export class ProviderServerError extends ProviderError {
  static override readonly errorName = 'ProviderServerError';
  static override isInstance(error: unknown): error is ProviderServerError {
    return this.hasMarker(error, ProviderServerError.errorName);
  }
}

/** The provider could not be reached at all (connection refused, DNS failure). */
export class ProviderUnavailableError extends ProviderError {
  static override readonly errorName = 'ProviderUnavailableError';
  readonly baseURL: string;
  constructor(options: ProviderErrorOptions & { baseURL: string }) {
    super({ retryable: true, ...options });
    this.baseURL = options.baseURL;
  }
  static override isInstance(error: unknown): error is ProviderUnavailableError {
    return this.hasMarker(error, ProviderUnavailableError.errorName);
  }
}

/** A stream broke off or carried something that cannot be decoded. */
export class StreamError extends ProviderError {
  static override readonly errorName = 'StreamError';
  static override isInstance(error: unknown): error is StreamError {
    return this.hasMarker(error, StreamError.errorName);
  }
}

/**
 * An upstream that went silent: it sent nothing for `timeoutMs`, before its response headers
 * (`phase: 'headers'`) or between two reads of its body (`phase: 'body'`). Thrown by a `fetch`
 * with an idle timeout (the gateway's). The server was reached and answered nothing, so
 * providers pass it on as it is and do not send the request again: a retry would wait as long.
 */
export class UpstreamTimeoutError extends ToolwireError {
  static override readonly errorName = 'UpstreamTimeoutError';
  readonly timeoutMs: number;
  readonly phase: 'headers' | 'body';
  constructor(options: { timeoutMs: number; phase: 'headers' | 'body' }) {
    super(
      options.phase === 'headers'
        ? `The upstream answered nothing within ${options.timeoutMs} ms (no response headers); the request was stopped.`
        : `The upstream sent nothing more for ${options.timeoutMs} ms; the request was stopped.`,
    );
    this.timeoutMs = options.timeoutMs;
    this.phase = options.phase;
  }
  static override isInstance(error: unknown): error is UpstreamTimeoutError {
    return this.hasMarker(error, UpstreamTimeoutError.errorName);
  }
}

/** Which message of an upstream body was too large: one SSE event, one NDJSON line, or the whole body. */
export type UpstreamMessagePart = 'event' | 'line' | 'body';

/** `limitBytes` as people read it: `16 MiB`, or `1000 bytes`. */
function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}

/**
 * An upstream sent one message larger than the limit the caller set: one event of an SSE
 * stream (`part: 'event'`), one line of an NDJSON stream (`'line'`), or a whole body of
 * anything else (`'body'`). Every reader of a body holds a message whole before it can use
 * it, so a message that never ends would grow the process without bound: the request was
 * stopped and its connection closed. Raised by the providers (`maxMessageBytes`) and the
 * gateway (`limits.upstreamMessageLimitBytes`); never retried, since the same request would
 * meet the same message. `setting` names the option that raises the limit.
 */
export class UpstreamMessageTooLargeError extends ToolwireError {
  static override readonly errorName = 'UpstreamMessageTooLargeError';
  readonly limitBytes: number;
  readonly part: UpstreamMessagePart;
  readonly setting: string;
  constructor(options: { limitBytes: number; part: UpstreamMessagePart; setting: string; origin?: string }) {
    const limit = formatBytes(options.limitBytes);
    const what =
      options.part === 'body' ? `a response body larger than ${limit}` : `more than ${limit} in one ${options.part === 'event' ? 'stream event' : 'line of its stream'}`;
    super(
      `The upstream${options.origin === undefined ? '' : ` at ${options.origin}`} sent ${what}; the request was stopped so that it cannot exhaust the process's memory. ` +
        `If the upstream really sends messages this large, raise ${options.setting}.`,
    );
    this.limitBytes = options.limitBytes;
    this.part = options.part;
    this.setting = options.setting;
  }
  static override isInstance(error: unknown): error is UpstreamMessageTooLargeError {
    return this.hasMarker(error, UpstreamMessageTooLargeError.errorName);
  }
}

/** Which bound of one answer a model crossed: its characters, or its number of tool calls. */
export type AnswerLimitKind = 'chars' | 'tool-calls';

/** `max` characters as people read them: `4 Mi`, or `1000`. */
function formatChars(chars: number): string {
  const mi = chars / (1024 * 1024);
  return Number.isInteger(mi) ? `${mi} Mi` : String(chars);
}

/**
 * One model answer grew past a bound that no real answer reaches: more characters of text,
 * reasoning and tool-call arguments together than `max` (`limit: 'chars'`), or more tool
 * calls than `max` (`'tool-calls'`). A model that loops, or an upstream that never ends its
 * answer, would otherwise grow the process without bound: the request was stopped and its
 * connection closed. Never retried (the same request may loop again). `setting` names the
 * option that raises the bound.
 */
export class AnswerTooLargeError extends ToolwireError {
  static override readonly errorName = 'AnswerTooLargeError';
  readonly limit: AnswerLimitKind;
  readonly max: number;
  readonly setting: string;
  constructor(options: { limit: AnswerLimitKind; max: number; setting: string; provider?: string }) {
    const who = options.provider === undefined ? 'The model' : `The ${options.provider} model`;
    const what =
      options.limit === 'chars'
        ? `wrote more than ${formatChars(options.max)} characters in one answer (text, reasoning and tool-call arguments together)`
        : `made more than ${options.max} tool calls in one answer`;
    super(
      `${who} ${what}; the request was stopped so that a model that loops cannot exhaust the process's memory. ` +
        `Ask for a shorter answer (or fewer calls per turn); if real answers are this large, raise ${options.setting}.`,
    );
    this.limit = options.limit;
    this.max = options.max;
    this.setting = options.setting;
  }
  static override isInstance(error: unknown): error is AnswerTooLargeError {
    return this.hasMarker(error, AnswerTooLargeError.errorName);
  }
}
