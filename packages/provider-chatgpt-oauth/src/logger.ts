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

// Redaction lives with the other secret-text helpers; re-exported for existing imports.
export { redactSecrets } from './secret-text.ts';
