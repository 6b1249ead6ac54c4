import { AuthExpiredError, ProviderError, ProviderUnavailableError } from '@toolwire/core';

import { ChatGPTLoginError } from '../chatgpt-errors.ts';
import { PROVIDER_NAME } from '../constants.ts';
import { redactSecrets } from '../logger.ts';
import { trimTrailingSlashes } from '../url.ts';
import { isRecord } from './jwt.ts';

/** Where and as whom to talk to the sign-in server. */
export interface OAuthEndpoint {
  issuer: string;
  clientId: string;
  fetch: typeof globalThis.fetch;
}

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
  const response = await send(endpoint, '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
    ...(params.signal ? { signal: params.signal } : {}),
  });
  const payload = await readJson(response);
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
export async function refreshTokens(endpoint: OAuthEndpoint, refreshToken: string, signal?: AbortSignal): Promise<TokenResponse> {
  // Current Codex sends JSON here; the form encoding works too.
  const response = await send(endpoint, '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: endpoint.clientId, grant_type: 'refresh_token', refresh_token: refreshToken }),
    ...(signal ? { signal } : {}),
  });
  const payload = await readJson(response);
  if (response.ok) return toTokenResponse(payload);
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

/** Revokes a token. Returns false when the server did not confirm (the local sign-in is deleted anyway). */
export async function revokeToken(endpoint: OAuthEndpoint, token: string, signal?: AbortSignal): Promise<boolean> {
  try {
    const body = new URLSearchParams({ token, token_type_hint: 'refresh_token', client_id: endpoint.clientId });
    const response = await send(endpoint, '/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
      ...(signal ? { signal } : {}),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
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
  const response = await send(endpoint, '/api/accounts/deviceauth/usercode', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: endpoint.clientId }),
    ...(signal ? { signal } : {}),
  });
  const payload = await readJson(response);
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
  const response = await send(endpoint, '/api/accounts/deviceauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ device_auth_id: code.deviceAuthId, user_code: code.userCode }),
    ...(signal ? { signal } : {}),
  });
  const payload = await readJson(response);
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

async function send(endpoint: OAuthEndpoint, path: string, init: RequestInit): Promise<Response> {
  const url = trimTrailingSlashes(endpoint.issuer) + path;
  try {
    return await endpoint.fetch(url, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ProviderUnavailableError({
      provider: PROVIDER_NAME,
      baseURL: endpoint.issuer,
      message: `Could not reach the sign-in server ${endpoint.issuer}: ${error instanceof Error ? error.message : String(error)}. Check the network connection.`,
      cause: error,
    });
  }
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
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

/** The error code of a token-endpoint answer: in `error.code`, `error` (a string) or `code`. */
function errorCode(payload: unknown): string | undefined {
  if (!isRecord(payload)) return undefined;
  if (isRecord(payload.error)) return stringOf(payload.error.code);
  return stringOf(payload.error) ?? stringOf(payload.code);
}

/** `: <code>: <message>` from an error answer, with the request's secrets redacted. */
function describeError(payload: unknown, secrets: readonly string[]): string {
  let text: string | undefined;
  if (isRecord(payload)) {
    const nested = isRecord(payload.error) ? payload.error : undefined;
    const code = errorCode(payload);
    const message =
      stringOf(nested?.message) ?? stringOf(payload.error_description) ?? stringOf(payload.message) ?? stringOf(payload.detail);
    text = [code, message].filter((part) => part !== undefined).join(': ');
  } else if (typeof payload === 'string' && payload.trim() !== '') {
    text = payload.trim().slice(0, 200);
  }
  return text === undefined || text === '' ? '' : `: ${redactSecrets(text, secrets)}`;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
