import { isRecord, readTokenClaims } from './jwt.ts';

/** The three tokens of a ChatGPT sign-in and the account they belong to. Secrets. */
export interface ChatGPTTokens {
  idToken: string;
  accessToken: string;
  refreshToken: string;
  accountId: string;
}

/** A sign-in as stored on disk: tokens, when they were last refreshed, and the whole file. */
export interface StoredSignIn {
  tokens: ChatGPTTokens;
  /** Epoch milliseconds of the last refresh (or sign-in), when known. */
  lastRefresh?: number;
  /** The parsed file, so that fields this package does not know survive a rewrite. */
  raw: Record<string, unknown>;
}

/**
 * Reads a sign-in from the text of an `auth.json` (Codex's shape, which Toolwire's own
 * file shares). Returns `undefined` when the file holds no ChatGPT tokens (e.g. an
 * API-key-only Codex sign-in).
 */
export function parseAuthFile(text: string): StoredSignIn | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const tokens = parsed.tokens;
  if (!isRecord(tokens)) return undefined;
  const idToken = typeof tokens.id_token === 'string' ? tokens.id_token : '';
  const accessToken = tokens.access_token;
  const refreshToken = tokens.refresh_token;
  if (typeof accessToken !== 'string' || accessToken === '' || typeof refreshToken !== 'string') return undefined;
  const accountId =
    (typeof tokens.account_id === 'string' && tokens.account_id !== '' ? tokens.account_id : undefined) ??
    readTokenClaims(idToken).accountId ??
    readTokenClaims(accessToken).accountId;
  if (accountId === undefined) return undefined;
  const signIn: StoredSignIn = { tokens: { idToken, accessToken, refreshToken, accountId }, raw: parsed };
  if (typeof parsed.last_refresh === 'string') {
    const time = Date.parse(parsed.last_refresh);
    if (Number.isFinite(time)) signIn.lastRefresh = time;
  }
  return signIn;
}

/** Writes a sign-in back into its file's shape, keeping every field it does not own. */
export function serializeAuthFile(signIn: StoredSignIn): string {
  const previousTokens = isRecord(signIn.raw.tokens) ? signIn.raw.tokens : {};
  const file: Record<string, unknown> = {
    ...signIn.raw,
    auth_mode: typeof signIn.raw.auth_mode === 'string' ? signIn.raw.auth_mode : 'chatgpt',
    tokens: {
      ...previousTokens,
      id_token: signIn.tokens.idToken,
      access_token: signIn.tokens.accessToken,
      refresh_token: signIn.tokens.refreshToken,
      account_id: signIn.tokens.accountId,
    },
  };
  if (!('OPENAI_API_KEY' in file)) file.OPENAI_API_KEY = null;
  if (signIn.lastRefresh !== undefined) file.last_refresh = new Date(signIn.lastRefresh).toISOString();
  return `${JSON.stringify(file, null, 2)}\n`;
}
