import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where Codex says it keeps its sign-in: `cli_auth_credentials_store` in
 * `$CODEX_HOME/config.toml` (`file`, the default, `keyring`, `auto`, `ephemeral`). With the
 * keyring (or `auto` with a working keyring) Codex deletes `auth.json`
 * (`codex-rs/login/src/auth/storage.rs`), so a missing file does not mean "not signed in".
 */
export type CodexCredentialStore =
  | { type: 'no-codex-home' }
  | { type: 'configured'; mode: string }
  | { type: 'unspecified' };

const MAX_CONFIG_BYTES = 256 * 1024;
const KEY = 'cli_auth_credentials_store';

/** Reads the setting without a TOML parser: only a top-level `key = "value"` line counts. */
export async function readCodexCredentialStore(codexHome: string): Promise<CodexCredentialStore> {
  const home = await stat(codexHome).catch(() => undefined);
  if (home === undefined || !home.isDirectory()) return { type: 'no-codex-home' };
  let text: string;
  try {
    const handle = await open(join(codexHome, 'config.toml'), 'r');
    try {
      const buffer = Buffer.alloc(MAX_CONFIG_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, MAX_CONFIG_BYTES, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return { type: 'unspecified' };
  }
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    // Keys after the first table header belong to that table, not to the top level.
    if (line.startsWith('[')) break;
    if (!line.startsWith(KEY)) continue;
    const rest = line.slice(KEY.length).trimStart();
    if (!rest.startsWith('=')) continue;
    const value = rest.slice(1).trim();
    const quote = value[0];
    if (quote !== '"' && quote !== "'") continue;
    const end = value.indexOf(quote, 1);
    if (end > 1) return { type: 'configured', mode: value.slice(1, end) };
  }
  return { type: 'unspecified' };
}
