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
 * A Codex CLI version string. The model catalog answers an empty list to versions it does
 * not recognise as Codex's, so this must look like one.
 */
export const CODEX_CLIENT_VERSION = '0.99.0';

/** Sent as `originator` on sign-in and backend requests, as Codex CLI does. */
export const ORIGINATOR = 'codex_cli_rs';

/** The provider name on models, errors and `providerMetadata`. */
export const PROVIDER_NAME = 'chatgpt';
