import { arch, release, type } from 'node:os';

import type { ChatGPTCredentials } from '../auth/chatgpt-auth.ts';
import { CODEX_CLIENT_VERSION, ORIGINATOR } from '../constants.ts';

/** A Codex-style User-Agent: `codex_cli_rs/<version> (<os> <release>; <arch>) toolwire`. */
export function codexUserAgent(clientVersion: string = CODEX_CLIENT_VERSION): string {
  return `${ORIGINATOR}/${clientVersion} (${type()} ${release()}; ${arch()}) toolwire`;
}

/**
 * The headers Codex sends to the backend. Reports differ on which are required (some
 * networks are blocked by Cloudflare without `originator` and a Codex User-Agent), so all
 * are sent.
 */
export function backendHeaders(options: {
  credentials: ChatGPTCredentials;
  sessionId?: string;
  clientVersion: string;
  accept?: string;
}): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.credentials.accessToken}`,
    'chatgpt-account-id': options.credentials.accountId,
    originator: ORIGINATOR,
    'user-agent': codexUserAgent(options.clientVersion),
    'openai-beta': 'responses=experimental',
    accept: options.accept ?? 'text/event-stream',
  };
  if (options.sessionId !== undefined) {
    headers.session_id = options.sessionId;
    headers.conversation_id = options.sessionId;
  }
  if (options.credentials.residency !== undefined) headers['x-openai-internal-codex-residency'] = options.credentials.residency;
  return headers;
}
