import { ToolwireError } from '@toolwire/core';
import type { SandboxErrorKind } from './js/sandbox-result.ts';

/** Isolation this machine cannot provide (bubblewrap missing or unable to create namespaces). */
export class SandboxUnavailableError extends ToolwireError {
  static override readonly errorName = 'SandboxUnavailableError';
  /** What is missing: `bubblewrap` (the binary or its namespaces), `prlimit`, `process-limit`, or `cgroup` (a command could not join its cgroup). */
  readonly missing: string;
  /** `hint` replaces the default advice (install bubblewrap) when something else is missing. */
  constructor(options: { missing: string; detail: string; hint?: string }) {
    super(
      `Sandbox unavailable: ${options.detail}. ` +
        (options.hint ??
          `Install bubblewrap (Debian/Ubuntu: \`apt-get install bubblewrap\`; ` +
            `Fedora: \`dnf install bubblewrap\`) on a kernel that allows user namespaces, or pass \`isolation: 'none'\` ` +
            `only if you knowingly run the command without isolation.`),
    );
    this.missing = options.missing;
  }
  static override isInstance(error: unknown): error is SandboxUnavailableError {
    return this.hasMarker(error, SandboxUnavailableError.errorName);
  }
}

/** A fetch refused by the allow-list rules (host not allowed, private address, bad scheme, size, redirects). */
export class FetchDeniedError extends ToolwireError {
  static override readonly errorName = 'FetchDeniedError';
  readonly url: string;
  constructor(options: { url: string; reason: string }) {
    super(`Fetch of ${options.url} refused: ${options.reason}.`);
    this.url = options.url;
  }
  static override isInstance(error: unknown): error is FetchDeniedError {
    return this.hasMarker(error, FetchDeniedError.errorName);
  }
}

/** Sandboxed code failed (threw, timed out, hit a limit or crashed its worker); `kind` says which. */
export class SandboxExecutionError extends ToolwireError {
  static override readonly errorName = 'SandboxExecutionError';
  readonly kind: SandboxErrorKind;
  readonly logs: string[];
  constructor(options: { kind: SandboxExecutionError['kind']; message: string; logs: string[] }) {
    super(options.message);
    this.kind = options.kind;
    this.logs = options.logs;
  }
  static override isInstance(error: unknown): error is SandboxExecutionError {
    return this.hasMarker(error, SandboxExecutionError.errorName);
  }
}

/** A sandboxed tool call refused by policy before it ran (size, concurrency, command or workdir rules). */
export class SandboxPolicyError extends ToolwireError {
  static override readonly errorName = 'SandboxPolicyError';
  readonly reason: string;
  constructor(options: { reason: string; message: string }) {
    super(options.message);
    this.reason = options.reason;
  }
  static override isInstance(error: unknown): error is SandboxPolicyError {
    return this.hasMarker(error, SandboxPolicyError.errorName);
  }
}
