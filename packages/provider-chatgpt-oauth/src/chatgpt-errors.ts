import { AuthenticationError, ToolwireError } from '@toolwire/core';
import type { ProviderErrorOptions } from '@toolwire/core';

/** Why a sign-in failed. */
export type ChatGPTLoginFailure =
  /** No longer thrown: a callback with the wrong `state` is answered 400 and ignored. Kept so existing `switch`es compile. */
  | 'state_mismatch'
  | 'access_denied'
  | 'missing_codex_entitlement'
  | 'token_exchange_failed'
  | 'no_account_id'
  | 'workspace_mismatch'
  | 'device_code_failed'
  | 'device_code_expired'
  | 'port_unavailable'
  | 'timeout'
  | 'aborted';

/** A sign-in (`login`) that did not complete; the message says what to do. */
export class ChatGPTLoginError extends ToolwireError {
  static override readonly errorName = 'ChatGPTLoginError';
  readonly reason: ChatGPTLoginFailure;
  constructor(options: { reason: ChatGPTLoginFailure; message: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.reason = options.reason;
  }
  static override isInstance(error: unknown): error is ChatGPTLoginError {
    return this.hasMarker(error, ChatGPTLoginError.errorName);
  }
}

/** No ChatGPT sign-in was found (no token file, no Codex sign-in). */
export class NotSignedInError extends AuthenticationError {
  static override readonly errorName: string = 'NotSignedInError';
  constructor(options: Omit<ProviderErrorOptions, 'provider'> & { provider?: string }) {
    super({ provider: 'chatgpt', ...options });
  }
  static override isInstance(error: unknown): error is NotSignedInError {
    return this.hasMarker(error, NotSignedInError.errorName);
  }
}

/**
 * The token file's directory is writable by other users, and Toolwire will not tighten it
 * (it is not yours, or it is a shared sticky directory such as `/tmp`).
 */
export class InsecureTokenPathError extends ToolwireError {
  static override readonly errorName = 'InsecureTokenPathError';
  readonly directory: string;
  constructor(options: { directory: string; message: string }) {
    super(options.message);
    this.directory = options.directory;
  }
  static override isInstance(error: unknown): error is InsecureTokenPathError {
    return this.hasMarker(error, InsecureTokenPathError.errorName);
  }
}
