// A local stand-in for auth.openai.com: authorize redirect, token (code and refresh
// grants, with rotating refresh tokens), device code and revoke, over real HTTP.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { listen, readBody, sendJson } from './http.ts';
import { makeTokenSet } from './jwt.ts';
import type { TokenSetOptions } from './jwt.ts';

export interface AuthServerOptions {
  tokens?: TokenSetOptions;
  /** Delay before answering a refresh, to make concurrent refreshes overlap. */
  refreshDelayMs?: number;
  /** Device token polls answered "pending" before success. */
  devicePendingPolls?: number;
  /** The error the authorize endpoint redirects with instead of a code. */
  authorizeError?: { error: string; error_description?: string };
  /** Answers every refresh with this status and raw body (e.g. a huge error page). */
  refreshFailure?: { status: number; body: (refreshToken: string) => string };
  /** Delay before answering a revoke (longer than the client's deadline: a hung server). */
  revokeDelayMs?: number;
  /** Writes a successful refresh's whole JSON answer, then never ends it (a proxy holding the connection). */
  refreshHoldsConnection?: boolean;
}

/** A delay that never keeps the test process alive (a hung server's answer may never be awaited). */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export async function startAuthServer(options: AuthServerOptions = {}) {
  const requests: { method: string; path: string; body: string; contentType: string | undefined }[] = [];
  const issued: string[] = [];
  const codes = new Map<string, { challenge: string; redirectUri: string; clientId: string }>();
  /** The refresh token that is valid now; every older one is "reused". */
  let currentRefreshToken: string | undefined;
  const retired = new Set<string>();
  let refreshCount = 0;
  let devicePolls = 0;
  const revoked: string[] = [];
  const revokeRequests: { contentType: string | undefined; body: Record<string, unknown> }[] = [];
  /** Answers held open (`refreshHoldsConnection`), and how many of them the client closed. */
  const held = new Set<ServerResponse>();
  let heldClosedByClient = 0;

  const issue = (): ReturnType<typeof makeTokenSet> => {
    const set = makeTokenSet(options.tokens);
    if (currentRefreshToken !== undefined) retired.add(currentRefreshToken);
    currentRefreshToken = set.refresh_token;
    issued.push(set.id_token, set.access_token, set.refresh_token);
    return set;
  };

  const server = await listen(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const body = request.method === 'POST' ? await readBody(request) : '';
    requests.push({ method: request.method ?? '', path: url.pathname, body, contentType: request.headers['content-type'] });

    if (request.method === 'GET' && url.pathname === '/oauth/authorize') {
      const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
      const state = url.searchParams.get('state') ?? '';
      if (options.authorizeError) {
        redirect.searchParams.set('error', options.authorizeError.error);
        if (options.authorizeError.error_description) redirect.searchParams.set('error_description', options.authorizeError.error_description);
      } else {
        const code = `code_${codes.size + 1}`;
        codes.set(code, {
          challenge: url.searchParams.get('code_challenge') ?? '',
          redirectUri: redirect.toString(),
          clientId: url.searchParams.get('client_id') ?? '',
        });
        redirect.searchParams.set('code', code);
      }
      redirect.searchParams.set('state', state);
      response.writeHead(302, { location: redirect.toString() });
      response.end();
      return;
    }

    if (request.method === 'POST' && url.pathname === '/oauth/token') {
      const params: Record<string, string> = request.headers['content-type']?.includes('json')
        ? (JSON.parse(body) as Record<string, string>)
        : Object.fromEntries(new URLSearchParams(body));
      if (params.grant_type === 'authorization_code') {
        const code = codes.get(params.code ?? '');
        codes.delete(params.code ?? '');
        const challenge = createHash('sha256').update(params.code_verifier ?? '').digest('base64url');
        if (code === undefined || code.challenge !== challenge || code.redirectUri.split('?')[0] !== params.redirect_uri) {
          sendJson(response, 400, { error: 'invalid_grant', error_description: 'bad code, verifier or redirect_uri' });
          return;
        }
        sendJson(response, 200, { ...issue(), expires_in: 3600 });
        return;
      }
      if (params.grant_type === 'refresh_token') {
        refreshCount++;
        if (options.refreshDelayMs) await delay(options.refreshDelayMs);
        const token = params.refresh_token ?? '';
        if (options.refreshFailure) {
          response.writeHead(options.refreshFailure.status, { 'content-type': 'text/plain' });
          response.end(options.refreshFailure.body(token));
          return;
        }
        if (retired.has(token)) {
          sendJson(response, 401, { error: { code: 'refresh_token_reused', message: 'Your refresh token has already been used to generate a new access token.' } });
          return;
        }
        if (token !== currentRefreshToken) {
          sendJson(response, 400, { error: 'invalid_grant', error_description: `unknown refresh token ${token}` });
          return;
        }
        if (options.refreshHoldsConnection) {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.write(JSON.stringify(issue()));
          held.add(response);
          response.on('close', () => {
            if (held.delete(response)) heldClosedByClient++;
          });
          return;
        }
        sendJson(response, 200, issue());
        return;
      }
      sendJson(response, 400, { error: 'unsupported_grant_type' });
      return;
    }

    if (request.method === 'POST' && url.pathname === '/api/accounts/deviceauth/usercode') {
      sendJson(response, 200, { device_auth_id: 'dev_1', user_code: 'ABCD-1234', interval: '0.01' });
      return;
    }

    if (request.method === 'POST' && url.pathname === '/api/accounts/deviceauth/token') {
      const params = JSON.parse(body) as Record<string, string>;
      if (params.device_auth_id !== 'dev_1' || params.user_code !== 'ABCD-1234') {
        sendJson(response, 400, { error: 'bad device code' });
        return;
      }
      devicePolls++;
      if (devicePolls <= (options.devicePendingPolls ?? 1)) {
        sendJson(response, 403, { error: 'authorization_pending' });
        return;
      }
      const verifier = 'device-verifier-0123456789abcdefghijklmnopqrstuvwxyz';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      codes.set('device_code_1', { challenge, redirectUri: `${server.url}/deviceauth/callback`, clientId: '' });
      sendJson(response, 200, { authorization_code: 'device_code_1', code_challenge: challenge, code_verifier: verifier });
      return;
    }

    if (request.method === 'POST' && url.pathname === '/oauth/revoke') {
      // Codex sends JSON (codex-rs/login/src/auth/revoke.rs); a form body is refused here.
      if (!request.headers['content-type']?.includes('application/json')) {
        sendJson(response, 400, { error: 'invalid_request', error_description: 'expected a JSON body' });
        return;
      }
      const params = JSON.parse(body) as Record<string, unknown>;
      revokeRequests.push({ contentType: request.headers['content-type'], body: params });
      if (options.revokeDelayMs) await delay(options.revokeDelayMs);
      if (typeof params.token !== 'string' || (params.token_type_hint !== 'refresh_token' && params.token_type_hint !== 'access_token')) {
        sendJson(response, 400, { error: 'invalid_request' });
        return;
      }
      revoked.push(params.token);
      sendJson(response, 200, {});
      return;
    }

    sendJson(response, 404, { error: 'not found' });
  });

  return {
    url: server.url,
    close: async () => {
      for (const response of [...held]) {
        held.delete(response);
        response.destroy();
      }
      await server.close();
    },
    /** Held answers the client closed (`refreshHoldsConnection`), and those still open. */
    get heldAnswers() {
      return { closedByClient: heldClosedByClient, open: held.size };
    },
    requests,
    /** Every token handed out, for redaction checks. */
    issued,
    revoked,
    revokeRequests,
    get refreshCount() {
      return refreshCount;
    },
    /** Makes a token set the server knows as current (as if it had issued it). */
    adopt(set: ReturnType<typeof makeTokenSet>) {
      if (currentRefreshToken !== undefined) retired.add(currentRefreshToken);
      currentRefreshToken = set.refresh_token;
      issued.push(set.id_token, set.access_token, set.refresh_token);
    },
    retire(refreshToken: string) {
      retired.add(refreshToken);
    },
  };
}
