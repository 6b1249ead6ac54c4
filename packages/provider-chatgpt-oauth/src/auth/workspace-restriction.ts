import { ChatGPTLoginError } from '../chatgpt-errors.ts';
import { readTokenClaims } from './jwt.ts';
import type { TokenResponse } from './oauth-client.ts';

/**
 * Checks that a sign-in belongs to the workspace it was restricted to. The authorize URL
 * asks for `allowed_workspace_id`, but the answer is what counts: Codex checks the id
 * token's `chatgpt_account_id` after the exchange, in the browser and the device flow
 * alike (`ensure_workspace_allowed`, `codex-rs/login/src/server.rs`), and so does this.
 * Followed from Codex's source; not verified against the live sign-in server.
 */
export function checkWorkspace(tokens: TokenResponse, allowedWorkspaceId: string | undefined): void {
  if (allowedWorkspaceId === undefined) return;
  const accountId = readTokenClaims(tokens.idToken).accountId ?? readTokenClaims(tokens.accessToken).accountId;
  if (accountId === undefined) {
    throw new ChatGPTLoginError({
      reason: 'workspace_mismatch',
      message: `The sign-in is restricted to workspace ${allowedWorkspaceId}, but the tokens name no ChatGPT workspace (no chatgpt_account_id claim). Nothing was saved; sign in again and pick that workspace.`,
    });
  }
  if (accountId !== allowedWorkspaceId) {
    throw new ChatGPTLoginError({
      reason: 'workspace_mismatch',
      message: `The sign-in is restricted to workspace ${allowedWorkspaceId}, but the account chosen was ${accountId}. Nothing was saved; sign in again and pick workspace ${allowedWorkspaceId}.`,
    });
  }
}
