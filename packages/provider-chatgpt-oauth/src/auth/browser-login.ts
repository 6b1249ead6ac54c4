import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

import { ChatGPTLoginError } from '../chatgpt-errors.ts';
import { ORIGINATOR } from '../constants.ts';
import { trimTrailingSlashes } from '../url.ts';
import { exchangeAuthorizationCode } from './oauth-client.ts';
import type { OAuthEndpoint, TokenResponse } from './oauth-client.ts';
import { createPkcePair, createState } from './pkce.ts';

/** Settings of the browser (PKCE) sign-in. */
export interface BrowserLoginParams {
  endpoint: OAuthEndpoint;
  /** Loopback ports to try in order (the registered ones are 1455, then 1457). */
  ports: readonly number[];
  scope: string;
  /** Opens the authorize URL in a browser. */
  openUrl: (url: string) => void | Promise<void>;
  /** Restrict the sign-in to one ChatGPT workspace. */
  allowedWorkspaceId?: string;
  /** Checks the exchanged tokens before the browser is told the sign-in worked; throws to refuse them. */
  verify?: (tokens: TokenResponse) => void;
  timeoutMs: number;
  signal?: AbortSignal;
}

const CALLBACK_PATH = '/auth/callback';

/**
 * Signs in through the browser: starts a callback server on 127.0.0.1, opens the
 * authorize URL (PKCE S256, random `state`), checks `state` on the callback and exchanges
 * the code for tokens.
 */
export async function browserLogin(params: BrowserLoginParams): Promise<TokenResponse> {
  const pkce = createPkcePair();
  const state = createState();
  const { server, port } = await listenOnFirstFreePort(params.ports);
  // Codex registers the redirect with `localhost`, while the server binds 127.0.0.1 only.
  const redirectUri = `http://localhost:${port}${CALLBACK_PATH}`;
  const authorizeUrl = buildAuthorizeUrl({ ...params, redirectUri, state, challenge: pkce.challenge });

  let settle: { resolve: (tokens: TokenResponse) => void; reject: (error: unknown) => void } | undefined;
  const outcome = new Promise<TokenResponse>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // The callback can settle the outcome while `openUrl` is still running; it is awaited below.
  void outcome.catch(() => undefined);
  let done = false;
  let ignoredCallbacks = 0;
  let exchanging = false;
  const finish = (result: { tokens: TokenResponse } | { error: unknown }): void => {
    if (done) return;
    done = true;
    if ('tokens' in result) settle?.resolve(result.tokens);
    else settle?.reject(result.error);
  };

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    void handleCallback(request, response).catch((error: unknown) => finish({ error }));
  });

  async function handleCallback(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== CALLBACK_PATH) {
      reply(response, 404, 'Not found.');
      return;
    }
    if (done) {
      reply(response, 410, 'This sign-in has already finished. You can close this tab.');
      return;
    }
    if (url.searchParams.get('state') !== state) {
      // A stale tab of an earlier sign-in, or a forged link from another page: answered
      // and ignored, so it cannot end (or hijack) the sign-in that is waiting. Codex does
      // the same (`codex-rs/login/src/server.rs`, "State mismatch" 400 without exiting).
      reply(response, 400, 'State mismatch: this sign-in link does not belong to the waiting sign-in. It was ignored.');
      ignoredCallbacks++;
      return;
    }
    const oauthError = url.searchParams.get('error');
    if (oauthError !== null) {
      const description = url.searchParams.get('error_description') ?? '';
      const entitlement = description.includes('missing_codex_entitlement') || oauthError.includes('missing_codex_entitlement');
      reply(response, 400, 'Sign-in failed. You can close this tab and return to the terminal.');
      finish({
        error: new ChatGPTLoginError({
          reason: entitlement ? 'missing_codex_entitlement' : 'access_denied',
          message: entitlement
            ? 'This ChatGPT workspace does not allow Codex (missing_codex_entitlement). Ask its admin to enable Codex, or sign in with another account.'
            : `The sign-in was not completed (${oauthError}${description !== '' ? `: ${description}` : ''}). Run \`toolwire login chatgpt\` again.`,
        }),
      });
      return;
    }
    const code = url.searchParams.get('code');
    if (code === null || code === '') {
      reply(response, 400, 'The callback carried no authorization code.');
      return;
    }
    // A reloaded callback tab repeats the single-use code; its failure must not end the
    // exchange already under way.
    if (exchanging) {
      reply(response, 409, 'This sign-in is already being completed. You can close this tab.');
      return;
    }
    exchanging = true;
    try {
      const tokens = await exchangeAuthorizationCode(params.endpoint, {
        code,
        redirectUri,
        codeVerifier: pkce.verifier,
        ...(params.signal ? { signal: params.signal } : {}),
      });
      try {
        params.verify?.(tokens);
      } catch (error) {
        reply(response, 403, 'This sign-in was refused (see the terminal for why). You can close this tab.');
        finish({ error });
        return;
      }
      reply(response, 200, 'Signed in to ChatGPT. You can close this tab and return to the terminal.');
      finish({ tokens });
    } catch (error) {
      reply(response, 500, 'Signing in failed. Return to the terminal for details.');
      finish({ error });
    }
  }

  const timer = setTimeout(() => {
    finish({
      error: new ChatGPTLoginError({
        reason: 'timeout',
        message:
          `No sign-in arrived within ${Math.round(params.timeoutMs / 1000)} s` +
          (ignoredCallbacks > 0 ? ` (${ignoredCallbacks} callback(s) with a wrong \`state\` were ignored)` : '') +
          '. Run `toolwire login chatgpt` again, or use `--device` on a machine without a browser.',
      }),
    });
  }, params.timeoutMs);
  const onAbort = (): void => {
    finish({ error: new ChatGPTLoginError({ reason: 'aborted', message: 'The sign-in was cancelled.' }) });
  };
  params.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (params.signal?.aborted) onAbort();
    else await params.openUrl(authorizeUrl);
    return await outcome;
  } finally {
    clearTimeout(timer);
    params.signal?.removeEventListener('abort', onAbort);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The `GET /oauth/authorize` URL, with the query Codex sends. */
export function buildAuthorizeUrl(params: {
  endpoint: OAuthEndpoint;
  redirectUri: string;
  scope: string;
  state: string;
  challenge: string;
  allowedWorkspaceId?: string;
}): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: params.endpoint.clientId,
    redirect_uri: params.redirectUri,
    scope: params.scope,
    code_challenge: params.challenge,
    code_challenge_method: 'S256',
    id_token_add_organizations: 'true',
    codex_cli_simplified_flow: 'true',
    state: params.state,
    originator: ORIGINATOR,
  });
  if (params.allowedWorkspaceId !== undefined) query.set('allowed_workspace_id', params.allowedWorkspaceId);
  return `${trimTrailingSlashes(params.endpoint.issuer)}/oauth/authorize?${query.toString()}`;
}

async function listenOnFirstFreePort(ports: readonly number[]): Promise<{ server: Server; port: number }> {
  for (const port of ports) {
    const server = createServer();
    const listening = await new Promise<boolean>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'EADDRINUSE') resolve(false);
        else reject(error);
      });
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) return { server, port };
  }
  throw new ChatGPTLoginError({
    reason: 'port_unavailable',
    message: `The sign-in callback needs one of the ports ${ports.join(', ')} on 127.0.0.1, and all are taken (another sign-in still running?). Close it, or use \`toolwire login chatgpt --device\`.`,
  });
}

function reply(response: ServerResponse, status: number, text: string): void {
  const html = `<!doctype html><meta charset="utf-8"><title>Toolwire sign-in</title><p>${text}</p>`;
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
  response.end(html);
}
