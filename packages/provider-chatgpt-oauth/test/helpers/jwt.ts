// Unsigned JWTs shaped like OpenAI's: the provider only reads claims, the backend verifies.
import { randomBytes } from 'node:crypto';

export function makeJwt(payload: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.${randomBytes(16).toString('base64url')}`;
}

export interface TokenSetOptions {
  accountId?: string;
  planType?: string;
  email?: string;
  /** Seconds from now until the access token expires (negative: already expired). */
  expiresIn?: number;
}

/** An id token, access token and refresh token for one account. */
export function makeTokenSet(options: TokenSetOptions = {}) {
  const accountId = options.accountId ?? 'acct-1234';
  const auth = { chatgpt_account_id: accountId, chatgpt_plan_type: options.planType ?? 'plus', chatgpt_user_id: 'user-1' };
  const exp = Math.floor(Date.now() / 1000) + (options.expiresIn ?? 3600);
  return {
    id_token: makeJwt({ sub: 'auth0|not-the-account', email: options.email ?? 'ada@example.com', 'https://api.openai.com/auth': auth, exp }),
    access_token: makeJwt({ sub: 'auth0|not-the-account', 'https://api.openai.com/auth': auth, exp, nonce: randomBytes(8).toString('hex') }),
    refresh_token: `rt_${randomBytes(24).toString('base64url')}`,
  };
}

/** A Codex-style auth.json for a token set. */
export function makeAuthFile(
  tokens: ReturnType<typeof makeTokenSet>,
  extra: Record<string, unknown> = {},
  lastRefresh = new Date(),
  accountId = 'acct-1234',
) {
  return {
    auth_mode: 'chatgpt',
    OPENAI_API_KEY: null,
    tokens: { ...tokens, account_id: accountId },
    last_refresh: lastRefresh.toISOString(),
    ...extra,
  };
}
