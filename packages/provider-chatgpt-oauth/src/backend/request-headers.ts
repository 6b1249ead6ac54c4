import { arch, release, type } from 'node:os';

import type { ChatGPTCredentials } from '../auth/chatgpt-auth.ts';
import { decodeJwtPayload, isRecord } from '../auth/jwt.ts';
import { CODEX_CLIENT_VERSION, ORIGINATOR } from '../constants.ts';

/** A Codex-style User-Agent: `codex_cli_rs/<version> (<os> <release>; <arch>) toolwire`. */
export function codexUserAgent(clientVersion: string = CODEX_CLIENT_VERSION): string {
  return `${ORIGINATOR}/${clientVersion} (${type()} ${release()}; ${arch()}) toolwire`;
}

/**
 * Data residency an admin enforced, as Codex's `enforce_residency` requirement: the only
 * value Codex knows is `us`, sent as `x-openai-internal-codex-residency: us`
 * (openai/codex, codex-rs/login/src/auth/default_client.rs, `RESIDENCY_HEADER_NAME`).
 */
export type ChatGPTResidency = 'us';

/** Whether the token's `https://api.openai.com/auth` claim marks a FedRAMP account (`chatgpt_account_is_fedramp`). */
export function isFedrampToken(token: string): boolean {
  const auth = decodeJwtPayload(token)?.['https://api.openai.com/auth'];
  return isRecord(auth) && auth['chatgpt_account_is_fedramp'] === true;
}

/**
 * The headers Codex sends to the backend: the sign-in, `originator`, a Codex User-Agent
 * and `version` (some networks are blocked by Cloudflare without them), the session, the
 * residency header only when residency is enforced (never the token's
 * `chatgpt_compute_residency` claim, which Codex does not send), and `X-OpenAI-Fedramp:
 * true` for FedRAMP accounts (openai/codex, codex-rs/login/src/token_data.rs,
 * `is_fedramp_account`; Codex reads the claim from the id token, Toolwire from the access
 * token it holds).
 */
export function backendHeaders(options: {
  credentials: ChatGPTCredentials;
  sessionId?: string;
  clientVersion: string;
  accept?: string;
  residency?: ChatGPTResidency | undefined;
}): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.credentials.accessToken}`,
    'chatgpt-account-id': options.credentials.accountId,
    originator: ORIGINATOR,
    'user-agent': codexUserAgent(options.clientVersion),
    // Codex's built-in OpenAI provider sends its own version this way (openai/codex,
    // codex-rs/core/src/model_provider_info.rs, `create_openai_provider`'s `http_headers`).
    version: options.clientVersion,
    'openai-beta': 'responses=experimental',
    accept: options.accept ?? 'text/event-stream',
  };
  if (options.sessionId !== undefined) {
    headers.session_id = options.sessionId;
    headers.conversation_id = options.sessionId;
  }
  if (options.residency === 'us') headers['x-openai-internal-codex-residency'] = 'us';
  if (isFedrampToken(options.credentials.accessToken)) headers['x-openai-fedramp'] = 'true';
  return headers;
}
