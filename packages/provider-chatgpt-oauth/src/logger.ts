/**
 * Where the provider reports things a person should see (a tool left out, a refresh).
 * Messages never contain tokens.
 */
export interface ChatGPTLogger {
  warn(message: string): void;
  info?(message: string): void;
  debug?(message: string): void;
}

/** The default logger: `console.warn` for warnings (to stderr), nothing else. */
export const consoleLogger: ChatGPTLogger = {
  warn(message) {
    console.warn(message);
  },
};

const REDACTED = '[redacted]';

/**
 * Replaces every occurrence of each secret in `text` with `[redacted]`. Secrets shorter
 * than 8 characters are ignored (they would redact ordinary words).
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret === undefined || secret.length < 8) continue;
    result = result.split(secret).join(REDACTED);
  }
  return result;
}
