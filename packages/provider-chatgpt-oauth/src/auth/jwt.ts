/** What Toolwire reads from a ChatGPT id or access token. Nothing here is a secret. */
export interface TokenClaims {
  /** `chatgpt_account_id` of the `https://api.openai.com/auth` claim. */
  accountId?: string;
  /** `chatgpt_plan_type`: free, go, plus, pro, team, business, enterprise, edu. */
  planType?: string;
  userId?: string;
  email?: string;
  /** `chatgpt_compute_residency`, sent back as `x-openai-internal-codex-residency`. */
  residency?: string;
  /** Expiry in epoch milliseconds (`exp`). */
  expiresAt?: number;
}

const AUTH_CLAIM = 'https://api.openai.com/auth';
const PROFILE_CLAIM = 'https://api.openai.com/profile';

/**
 * Decodes a JWT's payload without verifying it. The token came from the issuer over TLS
 * and is only read for display and expiry; the backend verifies it. Returns `undefined`
 * for anything that is not a JWT with a JSON object payload.
 */
export function decodeJwtPayload(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  const payload = parts[1];
  if (parts.length !== 3 || payload === undefined || payload === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads the ChatGPT claims of an id or access token. The account id comes from the
 * `https://api.openai.com/auth` claim, never from `sub` (that is the user, not the account).
 */
export function readTokenClaims(token: string | undefined): TokenClaims {
  if (token === undefined) return {};
  const payload = decodeJwtPayload(token);
  if (payload === undefined) return {};
  const claims: TokenClaims = {};
  const auth = payload[AUTH_CLAIM];
  if (isRecord(auth)) {
    const accountId = stringField(auth, 'chatgpt_account_id');
    if (accountId !== undefined) claims.accountId = accountId;
    const planType = stringField(auth, 'chatgpt_plan_type');
    if (planType !== undefined) claims.planType = planType;
    const userId = stringField(auth, 'chatgpt_user_id') ?? stringField(auth, 'user_id');
    if (userId !== undefined) claims.userId = userId;
    const residency = stringField(auth, 'chatgpt_compute_residency');
    if (residency !== undefined) claims.residency = residency;
  }
  const profile = payload[PROFILE_CLAIM];
  const email = stringField(payload, 'email') ?? (isRecord(profile) ? stringField(profile, 'email') : undefined);
  if (email !== undefined) claims.email = email;
  const exp = payload.exp;
  if (typeof exp === 'number' && Number.isFinite(exp)) claims.expiresAt = exp * 1000;
  return claims;
}

/** True for a plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
