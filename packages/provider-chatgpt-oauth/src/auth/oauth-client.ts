import { AuthExpiredError, ProviderError, ProviderUnavailableError } from '@toolwire/core';

import { ChatGPTLoginError } from '../chatgpt-errors.ts';
import { PROVIDER_NAME } from '../constants.ts';
import { boundedSecretFreeText, MAX_ERROR_BODY_BYTES, readBoundedText } from '../secret-text.ts';
import { trimTrailingSlashes } from '../url.ts';
import { isRecord } from './jwt.ts';

/** Where and as whom to talk to the sign-in server. */
export interface OAuthEndpoint {
  issuer: string;
  clientId: string;
  fetch: typeof globalThis.fetch;
  /** Deadline of one request to the sign-in server, answer included (default 30 s). */
  requestTimeoutMs?: number;
}

/** Per-call options: the caller's signal and this call's own deadline. */
export interface OAuthCallOptions {
  signal?: AbortSignal;
  /** Overrides the endpoint's `requestTimeoutMs` for this call. */
  timeoutMs?: number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Codex gives the revoke request 10 s (`codex-rs/login/src/auth/revoke.rs`). */
export const REVOKE_TIMEOUT_MS = 10_000;
/** A token answer is a few KiB; anything past this is not one. */
const MAX_TOKEN_BODY_BYTES = 1024 * 1024;
/**
 * How long the end of a whole JSON answer is awaited before it is taken as it is: a proxy
 * that holds a refresh's complete answer open must not make the refresh time out after the
 * server has already rotated the refresh token (the new one would be lost).
 */
const COMPLETE_ANSWER_GRACE_MS = 1000;
/** The most of a server's error text that goes into a message (after redaction). */
const MAX_ERROR_TEXT_CHARS = 300;

/** Tokens returned by the token endpoint. A refresh may leave some out (keep the old ones). */
export interface TokenResponse {
  idToken?: string;
  accessToken?: string;
  refreshToken?: string;
  expiresIn?: number;
}

/**
 * The refresh-failure codes after which only a new sign-in helps: Codex's (`auth/manager.rs`)
 * and OAuth's `invalid_grant` (RFC 6749 §5.2: the refresh token is invalid, expired or revoked).
 */
const PERMANENT_REFRESH_CODES = new Set(['refresh_token_expired', 'refresh_token_reused', 'refresh_token_invalidated', 'invalid_grant']);

const SIGN_IN_AGAIN = 'sign in again with `toolwire login chatgpt`';

/** Exchanges an authorization code (browser or device flow) for tokens. */
export async function exchangeAuthorizationCode(
  endpoint: OAuthEndpoint,
  params: { code: string; redirectUri: string; codeVerifier: string; signal?: AbortSignal },
): Promise<TokenResponse> {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: params.code,
    redirect_uri: params.redirectUri,
    client_id: endpoint.clientId,
    code_verifier: params.codeVerifier,
  });
  const response = await call(endpoint, '/oauth/token', { form: body }, params.signal ? { signal: params.signal } : {}, [params.code, params.codeVerifier]);
  const { payload } = response;
  if (!response.ok) {
    throw new ChatGPTLoginError({
      reason: 'token_exchange_failed',
      message:
        `The sign-in server refused the authorization code (HTTP ${response.status}${describeError(payload, [params.code, params.codeVerifier])}). ` +
        'Start the sign-in again; codes are single-use and expire within minutes.',
    });
  }
  return toTokenResponse(payload);
}

/**
 * Trades a refresh token for new tokens. Refresh tokens rotate: the old one is dead once
 * this succeeds. Throws `AuthExpiredError` when only a new sign-in helps.
 */
export async function refreshTokens(endpoint: OAuthEndpoint, refreshToken: string, options: OAuthCallOptions = {}): Promise<TokenResponse> {
  // Current Codex sends JSON here; the form encoding works too.
  const response = await call(
    endpoint,
    '/oauth/token',
    { json: { client_id: endpoint.clientId, grant_type: 'refresh_token', refresh_token: refreshToken } },
    options,
    [refreshToken],
  );
  const { payload } = response;
  if (response.ok) {
    const tokens = toTokenResponse(payload);
    if (tokens.accessToken !== undefined) return tokens;
    // A proxy's or captive portal's page with status 200 is no refresh: the expired token
    // must not go out as if it were fresh.
    throw new ProviderError({
      provider: PROVIDER_NAME,
      status: response.status,
      code: 'invalid_token_response',
      retryable: true,
      message:
        `The sign-in server answered the token refresh with HTTP ${response.status} but no access token ` +
        `(${isRecord(payload) ? 'JSON without access_token' : 'not JSON: a proxy or captive-portal page?'}). ` +
        `Check the network (a proxy or Wi-Fi sign-in page in the way) and try again; if it keeps failing, ${SIGN_IN_AGAIN}.`,
    });
  }
  const code = errorCode(payload);
  const detail = describeError(payload, [refreshToken]);
  if (response.status === 401 || (code !== undefined && PERMANENT_REFRESH_CODES.has(code))) {
    throw new AuthExpiredError({
      provider: PROVIDER_NAME,
      status: response.status,
      ...(code !== undefined ? { code } : {}),
      message: `The ChatGPT sign-in can no longer be refreshed (HTTP ${response.status}${detail}): ${SIGN_IN_AGAIN}.`,
    });
  }
  throw new ProviderError({
    provider: PROVIDER_NAME,
    status: response.status,
    ...(code !== undefined ? { code } : {}),
    retryable: response.status >= 500 || response.status === 429,
    message: `Refreshing the ChatGPT sign-in failed (HTTP ${response.status}${detail}). Try again shortly; if it keeps failing, ${SIGN_IN_AGAIN}.`,
  });
}

/**
 * Revokes a token, best effort: returns false when the server did not confirm in time
 * (the local sign-in is deleted anyway). The body is what Codex sends
 * (`codex-rs/login/src/auth/revoke.rs`): JSON `{ token, token_type_hint }`, plus
 * `client_id` for a refresh token; the request gets 10 s.
 */
export async function revokeToken(
  endpoint: OAuthEndpoint,
  token: { value: string; kind: 'refresh_token' | 'access_token' },
  options: OAuthCallOptions = {},
): Promise<boolean> {
  try {
    const body = {
      token: token.value,
      token_type_hint: token.kind,
      ...(token.kind === 'refresh_token' ? { client_id: endpoint.clientId } : {}),
    };
    const timeoutMs = Math.min(REVOKE_TIMEOUT_MS, endpoint.requestTimeoutMs ?? REVOKE_TIMEOUT_MS);
    const response = await call(endpoint, '/oauth/revoke', { json: body }, { timeoutMs, ...options }, [token.value]);
    return response.ok;
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return false;
  }
}

/** A device code the user types in at `{issuer}/codex/device`. */
export interface DeviceCode {
  deviceAuthId: string;
  userCode: string;
  intervalMs: number;
}

/** Starts the device-code flow. */
export async function requestDeviceCode(endpoint: OAuthEndpoint, signal?: AbortSignal): Promise<DeviceCode> {
  const response = await call(endpoint, '/api/accounts/deviceauth/usercode', { json: { client_id: endpoint.clientId } }, signal ? { signal } : {});
  const { payload } = response;
  const userCode = isRecord(payload) ? (stringOf(payload.user_code) ?? stringOf(payload.usercode)) : undefined;
  const deviceAuthId = isRecord(payload) ? stringOf(payload.device_auth_id) : undefined;
  if (!response.ok || userCode === undefined || deviceAuthId === undefined) {
    const hint =
      response.status === 404
        ? ' Device-code sign-in may not be enabled for this server; use the browser sign-in (`toolwire login chatgpt` without --device).'
        : ' Try again, or use the browser sign-in.';
    throw new ChatGPTLoginError({
      reason: 'device_code_failed',
      message: `Could not start the device-code sign-in (HTTP ${response.status}${describeError(payload, [])}).${hint}`,
    });
  }
  // Codex sends the interval in seconds, as a string or a number.
  const rawInterval = isRecord(payload) ? payload.interval : undefined;
  const seconds = typeof rawInterval === 'number' ? rawInterval : typeof rawInterval === 'string' ? Number(rawInterval) : Number.NaN;
  const intervalMs = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 5000;
  return { deviceAuthId, userCode, intervalMs };
}

/** One poll of the device flow: `pending` until the user has entered the code. */
export async function pollDeviceToken(
  endpoint: OAuthEndpoint,
  code: DeviceCode,
  signal?: AbortSignal,
): Promise<'pending' | { authorizationCode: string; codeVerifier: string }> {
  const response = await call(
    endpoint,
    '/api/accounts/deviceauth/token',
    { json: { device_auth_id: code.deviceAuthId, user_code: code.userCode } },
    signal ? { signal } : {},
  );
  const { payload } = response;
  if (response.status === 403 || response.status === 404) return 'pending';
  const authorizationCode = isRecord(payload) ? stringOf(payload.authorization_code) : undefined;
  const codeVerifier = isRecord(payload) ? stringOf(payload.code_verifier) : undefined;
  if (!response.ok || authorizationCode === undefined || codeVerifier === undefined) {
    throw new ChatGPTLoginError({
      reason: 'device_code_failed',
      message: `The device-code sign-in failed (HTTP ${response.status}${describeError(payload, [])}). Run the sign-in again.`,
    });
  }
  return { authorizationCode, codeVerifier };
}

interface CallResult {
  ok: boolean;
  status: number;
  /** The parsed JSON answer, or its (bounded) text when it is not JSON. */
  payload: unknown;
}

/**
 * POSTs to the sign-in server and reads the answer, all under one deadline: a server that
 * trickles its answer is cut off like one that never answers. Error bodies are read only up
 * to 64 KiB. A deadline is a `ProviderUnavailableError` with code `timeout`; the caller's
 * own abort is rethrown as is.
 */
async function call(
  endpoint: OAuthEndpoint,
  path: string,
  body: { json: Record<string, unknown> } | { form: URLSearchParams },
  options: OAuthCallOptions,
  secrets: readonly string[] = [],
): Promise<CallResult> {
  const url = trimTrailingSlashes(endpoint.issuer) + path;
  const timeoutMs = options.timeoutMs ?? endpoint.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const init: RequestInit =
    'json' in body
      ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body.json), signal }
      : { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.form.toString(), signal };
  try {
    const response = await endpoint.fetch(url, init);
    const { text, truncated } = await readBoundedText(response, response.ok ? MAX_TOKEN_BODY_BYTES : MAX_ERROR_BODY_BYTES, { completeJsonGraceMs: COMPLETE_ANSWER_GRACE_MS });
    let payload: unknown = text;
    if (!truncated) {
      try {
        payload = JSON.parse(text);
      } catch {
        // Not JSON (an HTML error page, a proxy's text): kept as text.
      }
    }
    return { ok: response.ok && !truncated, status: response.status, payload };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason ?? error;
    if (deadline.aborted) {
      throw new ProviderUnavailableError({
        provider: PROVIDER_NAME,
        baseURL: endpoint.issuer,
        code: 'timeout',
        retryable: true,
        message: `The sign-in server ${endpoint.issuer} did not answer within ${timeoutMs} ms (${path}); the request was cancelled. Check the network connection and try again.`,
      });
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProviderUnavailableError({
      provider: PROVIDER_NAME,
      baseURL: endpoint.issuer,
      message: `Could not reach the sign-in server ${endpoint.issuer}: ${boundedSecretFreeText(reason, secrets, MAX_ERROR_TEXT_CHARS)}. Check the network connection.`,
      cause: error,
    });
  }
}

function toTokenResponse(payload: unknown): TokenResponse {
  const result: TokenResponse = {};
  if (!isRecord(payload)) return result;
  const idToken = stringOf(payload.id_token);
  const accessToken = stringOf(payload.access_token);
  const refreshToken = stringOf(payload.refresh_token);
  if (idToken !== undefined) result.idToken = idToken;
  if (accessToken !== undefined) result.accessToken = accessToken;
  if (refreshToken !== undefined) result.refreshToken = refreshToken;
  if (typeof payload.expires_in === 'number') result.expiresIn = payload.expires_in;
  return result;
}

/**
 * The error code of a token-endpoint answer: in `error.code`, `error` (a string) or `code`.
 * Codes are short identifiers; a longer "code" is the server's free text, not a code.
 */
function errorCode(payload: unknown): string | undefined {
  if (!isRecord(payload)) return undefined;
  const code = isRecord(payload.error) ? stringOf(payload.error.code) : (stringOf(payload.error) ?? stringOf(payload.code));
  return code !== undefined && code.length <= 64 && isIdentifier(code) ? code : undefined;
}

function isIdentifier(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const ok = (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 45 || code === 46;
    if (!ok) return false;
  }
  return true;
}

/**
 * `: <code>: <message>` from an error answer: the request's secrets (and anything shaped
 * like a token) redacted in the whole text first, then cut to 300 characters.
 */
function describeError(payload: unknown, secrets: readonly string[]): string {
  let text: string | undefined;
  if (isRecord(payload)) {
    const nested = isRecord(payload.error) ? payload.error : undefined;
    const code = errorCode(payload);
    const message =
      stringOf(nested?.message) ?? stringOf(payload.error_description) ?? stringOf(payload.message) ?? stringOf(payload.detail);
    text = [code, message].filter((part) => part !== undefined).join(': ');
  } else if (typeof payload === 'string') {
    text = payload.trim();
  }
  return text === undefined || text === '' ? '' : `: ${boundedSecretFreeText(text, secrets, MAX_ERROR_TEXT_CHARS)}`;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
