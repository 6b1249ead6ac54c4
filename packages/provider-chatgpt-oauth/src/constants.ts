/** OpenAI's sign-in server (`issuer`), as Codex CLI uses it. */
export const DEFAULT_ISSUER = 'https://auth.openai.com';

/** The public OAuth client id of Codex CLI; the ChatGPT backend only accepts its tokens. */
export const CODEX_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann';

/** Where the Codex backend lives. */
export const DEFAULT_BASE_URL = 'https://chatgpt.com/backend-api';

/** The loopback ports registered for the browser sign-in callback, in order of preference. */
export const DEFAULT_CALLBACK_PORTS: readonly number[] = [1455, 1457];

/** Scopes third-party Codex clients request. */
export const DEFAULT_SCOPE = 'openid profile email offline_access';

/**
 * A recent Codex CLI release. The model catalog answers an empty list to versions it does
 * not recognise as Codex's, and hides models whose minimal client version is newer, so
 * this must look like a current one; `TOOLWIRE_CODEX_VERSION` or `clientVersion` override it.
 */
export const CODEX_CLIENT_VERSION = '0.158.0';

/** The Codex version to present: `TOOLWIRE_CODEX_VERSION` when it is a version number, else `CODEX_CLIENT_VERSION`. */
export function resolveClientVersion(env: Record<string, string | undefined>): string {
  const fromEnv = env['TOOLWIRE_CODEX_VERSION']?.trim();
  if (fromEnv === undefined || fromEnv === '') return CODEX_CLIENT_VERSION;
  const parts = fromEnv.split('.');
  const numeric = parts.length === 3 && parts.every((part) => part !== '' && Number.isInteger(Number(part)) && !part.includes('+') && !part.includes('-'));
  return numeric ? fromEnv : CODEX_CLIENT_VERSION;
}

/** Sent as `originator` on sign-in and backend requests, as Codex CLI does. */
export const ORIGINATOR = 'codex_cli_rs';

/** The provider name on models, errors and `providerMetadata`. */
export const PROVIDER_NAME = 'chatgpt';
