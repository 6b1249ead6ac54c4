import { join } from 'node:path';

import { AuthExpiredError, ProviderError, ToolwireError } from '@toolwire/core';
import { abortReason } from '@toolwire/core/provider';

import { ChatGPTLoginError, NotSignedInError } from '../chatgpt-errors.ts';
import { CODEX_CLIENT_ID, DEFAULT_CALLBACK_PORTS, DEFAULT_ISSUER, DEFAULT_SCOPE, PROVIDER_NAME } from '../constants.ts';
import { consoleLogger } from '../logger.ts';
import type { ChatGPTLogger } from '../logger.ts';
import type { ChatGPTAuditEvent, RefreshReason } from './audit-event.ts';
import type { ChatGPTTokens, StoredSignIn } from './auth-file.ts';
import { browserLogin } from './browser-login.ts';
import { readCodexCredentialStore } from './codex-credential-store.ts';
import { deviceLogin } from './device-login.ts';
import type { DeviceCodePrompt } from './device-login.ts';
import { resolveLockTimes } from './file-lock.ts';
import type { FileLockTimes } from './file-lock.ts';
import { readTokenClaims } from './jwt.ts';
import { refreshTokens, revokeToken } from './oauth-client.ts';
import type { OAuthEndpoint, TokenResponse } from './oauth-client.ts';
import { openUrlInBrowser } from './open-url.ts';
import { createFileTokenStore, createMemoryTokenStore, defaultCodexHome, defaultToolwireAuthPath } from './token-store.ts';
import type { TokenStore, TokenStoreKind } from './token-store.ts';
import { checkWorkspace } from './workspace-restriction.ts';

/** Where the sign-in lives and how to reach the sign-in server. */
export interface ChatGPTAuthOptions {
  /**
   * `'auto'` (default): Toolwire's own file if it holds a sign-in, else Codex's
   * `auth.json`, else Toolwire's file (where `login` writes). `'toolwire'` or `'codex'`
   * use only that file.
   */
  store?: 'auto' | 'toolwire' | 'codex';
  /** Toolwire's token file (default `~/.toolwire/chatgpt-auth.json`). */
  path?: string;
  /** Codex's home (default `$CODEX_HOME`, else `~/.codex`); its `auth.json` is read. */
  codexHome?: string;
  /**
   * Refresh Codex's `auth.json` in place (default false). Without it a Codex sign-in is
   * read-only: it is never refreshed here, because refresh tokens rotate and a refresh
   * would sign Codex itself out.
   */
  codexWriteBack?: boolean;
  /** Tokens to use instead of a file; refreshed in memory only. */
  tokens?: Partial<ChatGPTTokens> & { accessToken: string };
  /** Sign-in server (default `https://auth.openai.com`). */
  issuer?: string;
  clientId?: string;
  fetch?: typeof globalThis.fetch;
  logger?: ChatGPTLogger;
  /** Called for sign-in, refresh and sign-out events (no tokens in them). */
  onAuditEvent?: (event: ChatGPTAuditEvent) => void;
  /**
   * Timing of the cross-process lock around refreshes and sign-ins: a lock untouched for
   * `staleMs` (default 60 s) is abandoned; its holder touches it every `heartbeatMs`;
   * waiting gives up after `timeoutMs` (default twice `staleMs`).
   */
  lock?: FileLockTimes;
  /**
   * Deadline of any other request to the sign-in server, answer included (default 30 s;
   * a revoke gets at most 10 s, as in Codex).
   */
  requestTimeoutMs?: number;
  /**
   * Deadline of one token refresh, answer included (default 45 s). It must be shorter than
   * `lock.staleMs`, so a refresh ends before anyone could take its lock over.
   */
  refreshTimeoutMs?: number;
}

/** What a backend request needs. `accessToken` is a secret: never log it. */
export interface ChatGPTCredentials {
  accessToken: string;
  accountId: string;
  /** `chatgpt_compute_residency`, sent as `x-openai-internal-codex-residency`. */
  residency?: string;
}

/** The state of the sign-in, safe to print: no tokens. */
export type ChatGPTStatus =
  | { signedIn: false; store: TokenStoreKind; path?: string; message: string }
  | {
      signedIn: true;
      store: TokenStoreKind;
      path?: string;
      /** True for a Codex sign-in used without write-back. */
      readOnly: boolean;
      accountId: string;
      planType?: string;
      email?: string;
      /** When the access token expires. */
      expiresAt?: Date;
      lastRefresh?: Date;
      /** True when the next request will refresh first. */
      needsRefresh: boolean;
    };

/** Options of `login`. */
export interface ChatGPTLoginOptions {
  /** `'browser'` (PKCE with a loopback callback, default) or `'device'` (a code to enter elsewhere). */
  method?: 'browser' | 'device';
  /** Opens the sign-in URL (default: the system browser, and the URL is printed through the logger). */
  openUrl?: (url: string) => void | Promise<void>;
  /** Shows the device code (default: printed through the logger). */
  onDeviceCode?: (prompt: DeviceCodePrompt) => void | Promise<void>;
  /** Callback ports to try (default 1455, then 1457). */
  ports?: readonly number[];
  /**
   * Restrict the sign-in to one ChatGPT workspace (account id): asked of the sign-in page,
   * and checked against the account the tokens name; other tokens are revoked, not saved.
   */
  allowedWorkspaceId?: string;
  /** Default 10 minutes (browser) or 15 minutes (device). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What `logout` did. */
export interface ChatGPTLogoutResult {
  /** A sign-in was found and deleted. */
  removed: boolean;
  /** The sign-in server confirmed the revocation of the refresh token. */
  revoked: boolean;
}

/** Keeps one ChatGPT sign-in fresh: loads it, refreshes it (single-flight, across processes), signs in and out. */
export interface ChatGPTAuth {
  /** Credentials for the next request, refreshed first when needed. */
  getCredentials(signal?: AbortSignal): Promise<ChatGPTCredentials>;
  /** After the backend rejected `rejectedAccessToken` with 401: new credentials, or `AuthExpiredError`. */
  refreshAfterUnauthorized(rejectedAccessToken: string, signal?: AbortSignal): Promise<ChatGPTCredentials>;
  status(): Promise<ChatGPTStatus>;
  login(options?: ChatGPTLoginOptions): Promise<ChatGPTStatus>;
  logout(signal?: AbortSignal): Promise<ChatGPTLogoutResult>;
}

/**
 * Refresh when the access token expires within this margin. Codex refreshes once `exp`
 * has passed (`is_stale_for_proactive_refresh`, `codex-rs/login/src/auth/manager.rs`);
 * a minute early keeps a request from starting with a token about to expire.
 */
const REFRESH_MARGIN_MS = 60_000;
/** Only for an access token without a readable `exp`: Codex's 8-day refresh interval. */
const STALE_AFTER_MS = 8 * 24 * 60 * 60 * 1000;
const DEFAULT_REFRESH_TIMEOUT_MS = 45_000;
const SIGN_IN = 'sign in with `toolwire login chatgpt`';

/**
 * Creates the sign-in manager that `createChatGPT`, `login`, `logout` and `whoami` use.
 *
 * @example const auth = createChatGPTAuth({ store: 'codex' }); console.log(await auth.status());
 */
export function createChatGPTAuth(options: ChatGPTAuthOptions = {}): ChatGPTAuth {
  const logger = options.logger ?? consoleLogger;
  const endpoint: OAuthEndpoint = {
    issuer: options.issuer ?? DEFAULT_ISSUER,
    clientId: options.clientId ?? CODEX_CLIENT_ID,
    fetch: options.fetch ?? globalThis.fetch,
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  };
  const lockTimes = resolveLockTimes(options.lock);
  const refreshTimeoutMs = options.refreshTimeoutMs ?? Math.min(DEFAULT_REFRESH_TIMEOUT_MS, Math.floor(lockTimes.staleMs * 0.75));
  if (!(refreshTimeoutMs > 0 && refreshTimeoutMs < lockTimes.staleMs && lockTimes.heartbeatMs < lockTimes.staleMs)) {
    throw new ToolwireError(
      `Invalid sign-in timing: refreshTimeoutMs (${refreshTimeoutMs}) and lock.heartbeatMs (${lockTimes.heartbeatMs}) must be positive and shorter than lock.staleMs (${lockTimes.staleMs}), ` +
        'or a slow refresh could outlive its lock and the refresh token be used twice.',
    );
  }
  const onNotice = (message: string): void => (logger.info ?? logger.warn)(message);
  const codexHome = options.codexHome ?? defaultCodexHome();
  const toolwireStore = createFileTokenStore({
    path: options.path ?? defaultToolwireAuthPath(),
    kind: 'toolwire',
    writable: true,
    lock: lockTimes,
    onNotice,
  });
  const codexStore = createFileTokenStore({
    path: join(codexHome, 'auth.json'),
    kind: 'codex',
    writable: options.codexWriteBack === true,
    lock: lockTimes,
    onNotice,
  });
  const memoryStore = options.tokens ? createMemoryTokenStore(memoryTokens(options.tokens)) : undefined;

  let cached: StoredSignIn | undefined;
  let activeStore: TokenStore | undefined;
  /** The refresh token whose refresh failed for good, and that failure (not retried). */
  let permanentFailure: { refreshToken: string; error: Error } | undefined;
  // Refreshes inside this process run one at a time; the file lock covers other processes.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const audit = (event: ChatGPTAuditEvent): void => {
    try {
      options.onAuditEvent?.(event);
    } catch {
      // An audit sink must not break a request.
    }
  };

  async function resolveStore(): Promise<{ store: TokenStore; signIn: StoredSignIn | undefined }> {
    if (memoryStore) return { store: memoryStore, signIn: await memoryStore.load() };
    if (activeStore) return { store: activeStore, signIn: await activeStore.load() };
    const mode = options.store ?? 'auto';
    if (mode === 'codex') return { store: codexStore, signIn: await codexStore.load() };
    const own = await toolwireStore.load();
    if (mode === 'toolwire' || own !== undefined) return { store: toolwireStore, signIn: own };
    const codex = await codexStore.load();
    return codex !== undefined ? { store: codexStore, signIn: codex } : { store: toolwireStore, signIn: undefined };
  }

  async function notSignedIn(store: TokenStore): Promise<NotSignedInError> {
    if (store.kind === 'memory') return new NotSignedInError({ message: `The tokens passed in were removed: ${SIGN_IN}.` });
    const codexFile = codexStore.path ?? 'auth.json';
    if (options.store === 'toolwire') {
      return new NotSignedInError({ message: `No ChatGPT sign-in in ${toolwireStore.path ?? ''}: ${SIGN_IN}.` });
    }
    // `auto` looked in Toolwire's file first; `codex` only in Codex's.
    const message = (codexPart: string): NotSignedInError =>
      new NotSignedInError({
        message: options.store === 'codex' ? `No ChatGPT sign-in: ${codexPart}` : `No ChatGPT sign-in in ${toolwireStore.path ?? ''}, and ${codexPart}`,
      });
    const codex = await readCodexCredentialStore(codexHome);
    switch (codex.type) {
      case 'no-codex-home':
        return message(`no Codex sign-in (${codexFile} does not exist): ${SIGN_IN}, or run \`codex login\`.`);
      case 'configured':
        if (codex.mode === 'keyring' || codex.mode === 'auto') {
          return message(
            `found none in ${codexFile}; Codex keeps its sign-in in the system keyring (cli_auth_credentials_store = "${codex.mode}"), ` +
              'which Toolwire does not read: run `toolwire login chatgpt`.',
          );
        }
        break;
      case 'unspecified':
        break;
      default: {
        const unexpected: never = codex;
        throw new Error(`unexpected Codex store ${String(unexpected)}`);
      }
    }
    // Codex is installed but left no auth.json: signed out, or signed in to the keyring.
    return message(`found none in ${codexFile}; Codex may keep it in the keyring: run \`toolwire login chatgpt\`.`);
  }

  /**
   * As Codex: refresh when the access token (nearly) expired by its JWT `exp`, however
   * recently it was refreshed; the 8-day age rule applies only to a token without `exp`.
   */
  function refreshReason(signIn: StoredSignIn): RefreshReason | undefined {
    const now = Date.now();
    const expiresAt = readTokenClaims(signIn.tokens.accessToken).expiresAt;
    if (expiresAt !== undefined) return expiresAt - now < REFRESH_MARGIN_MS ? 'expired' : undefined;
    if (signIn.lastRefresh !== undefined && now - signIn.lastRefresh > STALE_AFTER_MS) return 'stale';
    return undefined;
  }

  function credentialsOf(signIn: StoredSignIn): ChatGPTCredentials {
    const claims = readTokenClaims(signIn.tokens.idToken);
    const residency = claims.residency ?? readTokenClaims(signIn.tokens.accessToken).residency;
    return {
      accessToken: signIn.tokens.accessToken,
      accountId: signIn.tokens.accountId,
      ...(residency !== undefined ? { residency } : {}),
    };
  }

  function readOnlyExpired(store: TokenStore): AuthExpiredError {
    return new AuthExpiredError({
      provider: PROVIDER_NAME,
      message:
        `The Codex sign-in in ${store.path ?? 'auth.json'} has expired and is read-only here (refreshing it would sign Codex out). ` +
        `Run \`codex\` once to refresh it, or ${SIGN_IN}, or pass codexWriteBack: true.`,
    });
  }

  async function refresh(store: TokenStore, signIn: StoredSignIn, reason: RefreshReason, signal?: AbortSignal): Promise<StoredSignIn> {
    const { refreshToken, accountId } = signIn.tokens;
    if (permanentFailure?.refreshToken === refreshToken) throw permanentFailure.error;
    if (refreshToken === '') {
      throw new AuthExpiredError({ provider: PROVIDER_NAME, message: `The ChatGPT access token has expired and there is no refresh token: ${SIGN_IN}.` });
    }
    let response: TokenResponse;
    try {
      response = await refreshTokens(endpoint, refreshToken, { timeoutMs: refreshTimeoutMs, ...(signal ? { signal } : {}) });
    } catch (error) {
      const permanent = AuthExpiredError.isInstance(error);
      const code = ProviderError.isInstance(error) ? error.code : undefined;
      audit({ type: 'refresh-failed', accountId, permanent, store: store.kind, ...(code !== undefined ? { code } : {}) });
      if (permanent) permanentFailure = { refreshToken, error };
      throw error;
    }
    const next: StoredSignIn = {
      tokens: {
        idToken: response.idToken ?? signIn.tokens.idToken,
        accessToken: response.accessToken ?? signIn.tokens.accessToken,
        refreshToken: response.refreshToken ?? refreshToken,
        accountId,
      },
      lastRefresh: Date.now(),
      raw: signIn.raw,
    };
    await store.save(next);
    audit({ type: 'refresh', accountId, reason, store: store.kind });
    logger.debug?.(`Refreshed the ChatGPT sign-in of account ${accountId} (${reason}).`);
    return next;
  }

  /**
   * Loads the sign-in and refreshes it when needed; `rejected` is an access token the backend
   * refused. It takes no caller signal: see `untilAborted`.
   */
  async function ensureFresh(rejected: string | undefined): Promise<StoredSignIn> {
    const { store, signIn } = await resolveStore();
    if (signIn === undefined) throw await notSignedIn(store);
    activeStore = store;
    const reason: RefreshReason | undefined =
      rejected !== undefined ? (signIn.tokens.accessToken === rejected ? 'unauthorized' : undefined) : refreshReason(signIn);
    if (reason === undefined) return signIn;
    if (!store.writable) {
      if (reason === 'stale') return signIn;
      throw readOnlyExpired(store);
    }
    return store.withLock(async (lockSignal) => {
      // Another process may have refreshed while this one waited for the lock.
      const current = await store.load();
      if (current === undefined) throw await notSignedIn(store);
      const stillNeeded =
        rejected !== undefined
          ? current.tokens.accessToken === rejected
          : current.tokens.refreshToken === signIn.tokens.refreshToken && refreshReason(current) !== undefined;
      if (!stillNeeded) {
        audit({ type: 'refresh-skipped', accountId: current.tokens.accountId, reason, store: store.kind });
        return current;
      }
      // The lock's signal aborts only if the lock were ever lost; the caller's never stops a refresh.
      return refresh(store, current, reason, lockSignal);
    });
  }

  /** Keeps the loaded sign-in; a switch to another account (a new `login` elsewhere) is reported once. */
  function remember(signIn: StoredSignIn): StoredSignIn {
    if (cached !== undefined && cached.tokens.accountId !== signIn.tokens.accountId) {
      logger.warn(`The ChatGPT sign-in changed from account ${cached.tokens.accountId} to ${signIn.tokens.accountId}; requests now use the new account.`);
    }
    cached = signIn;
    return signIn;
  }

  return {
    async getCredentials(signal) {
      if (cached !== undefined && refreshReason(cached) === undefined) return credentialsOf(cached);
      const signIn = await untilAborted(
        exclusive(async () => {
          if (cached !== undefined && refreshReason(cached) === undefined) return cached;
          return ensureFresh(undefined);
        }),
        signal,
      );
      return credentialsOf(remember(signIn));
    },

    async refreshAfterUnauthorized(rejectedAccessToken, signal) {
      const signIn = await untilAborted(
        exclusive(async () => {
          if (cached !== undefined && cached.tokens.accessToken !== rejectedAccessToken) return cached;
          const { store, signIn } = await resolveStore();
          if (signIn !== undefined && !store.writable) {
            if (signIn.tokens.accessToken !== rejectedAccessToken) return signIn;
            throw readOnlyExpired(store);
          }
          return ensureFresh(rejectedAccessToken);
        }),
        signal,
      );
      return credentialsOf(remember(signIn));
    },

    async status() {
      let resolved: Awaited<ReturnType<typeof resolveStore>>;
      try {
        resolved = await resolveStore();
      } catch (error) {
        // A damaged token file: not signed in, and the message says what to do.
        if (!NotSignedInError.isInstance(error)) throw error;
        return { signedIn: false, store: options.store === 'codex' ? 'codex' : 'toolwire', message: error.message };
      }
      const { store, signIn } = resolved;
      const base = { store: store.kind, ...(store.path !== undefined ? { path: store.path } : {}) };
      if (signIn === undefined) return { signedIn: false, ...base, message: (await notSignedIn(store)).message };
      const id = readTokenClaims(signIn.tokens.idToken);
      const access = readTokenClaims(signIn.tokens.accessToken);
      const planType = id.planType ?? access.planType;
      const email = id.email ?? access.email;
      return {
        signedIn: true,
        ...base,
        readOnly: !store.writable,
        accountId: signIn.tokens.accountId,
        ...(planType !== undefined ? { planType } : {}),
        ...(email !== undefined ? { email } : {}),
        ...(access.expiresAt !== undefined ? { expiresAt: new Date(access.expiresAt) } : {}),
        ...(signIn.lastRefresh !== undefined ? { lastRefresh: new Date(signIn.lastRefresh) } : {}),
        needsRefresh: refreshReason(signIn) !== undefined,
      };
    },

    async login(loginOptions = {}) {
      const method = loginOptions.method ?? 'browser';
      const store = memoryStore ?? (options.store === 'codex' && codexStore.writable ? codexStore : toolwireStore);
      const signal = loginOptions.signal;
      // A directory the tokens could not be saved to fails now, not after the user signed in.
      await store.prepare();
      const allowed = loginOptions.allowedWorkspaceId;
      // Tokens of the wrong workspace are revoked (best effort, awaited) and never saved.
      let revoking: Promise<boolean> | undefined;
      const verify = (tokens: TokenResponse): void => {
        try {
          checkWorkspace(tokens, allowed);
        } catch (error) {
          if (tokens.refreshToken !== undefined) revoking = revokeToken(endpoint, { value: tokens.refreshToken, kind: 'refresh_token' });
          throw error;
        }
      };
      const signIn = (): Promise<TokenResponse> =>
        method === 'device'
          ? deviceLogin({
              endpoint,
              timeoutMs: loginOptions.timeoutMs ?? 15 * 60_000,
              onDeviceCode:
                loginOptions.onDeviceCode ??
                ((prompt) => (logger.info ?? logger.warn)(`To sign in to ChatGPT, open ${prompt.verificationUrl} and enter the code ${prompt.userCode}`)),
              ...(signal ? { signal } : {}),
            }).then((tokens) => {
              // The browser flow checks inside, to tell the browser; the device flow here.
              verify(tokens);
              return tokens;
            })
          : browserLogin({
              endpoint,
              ports: loginOptions.ports ?? DEFAULT_CALLBACK_PORTS,
              scope: DEFAULT_SCOPE,
              timeoutMs: loginOptions.timeoutMs ?? 10 * 60_000,
              openUrl:
                loginOptions.openUrl ??
                ((url) => {
                  (logger.info ?? logger.warn)(`Opening the ChatGPT sign-in page. If no browser opens, visit:\n${url}`);
                  openUrlInBrowser(url);
                }),
              ...(allowed !== undefined ? { allowedWorkspaceId: allowed } : {}),
              verify,
              ...(signal ? { signal } : {}),
            });
      const tokens = await signIn().catch(async (error: unknown) => {
        await revoking;
        throw error;
      });
      const { idToken = '', accessToken, refreshToken } = tokens;
      if (accessToken === undefined || refreshToken === undefined) {
        throw new ChatGPTLoginError({
          reason: 'token_exchange_failed',
          message: 'The sign-in server answered without an access and a refresh token. Run the sign-in again.',
        });
      }
      const accountId = readTokenClaims(idToken).accountId ?? readTokenClaims(accessToken).accountId;
      if (accountId === undefined) {
        throw new ChatGPTLoginError({
          reason: 'no_account_id',
          message: 'The sign-in returned no ChatGPT account id (the `https://api.openai.com/auth` claim). Sign in with a ChatGPT Plus, Pro or team account.',
        });
      }
      await store.withLock(async () => {
        const previous = await store.load().catch(() => undefined);
        await store.save({ tokens: { idToken, accessToken, refreshToken, accountId }, lastRefresh: Date.now(), raw: previous?.raw ?? {} });
      }, signal);
      activeStore = store;
      cached = undefined;
      permanentFailure = undefined;
      audit({ type: 'login', method, accountId, store: store.kind });
      return this.status();
    },

    async logout(signal) {
      const { store, signIn } = await resolveStore();
      if (signIn === undefined) return { removed: false, revoked: false };
      if (!store.writable) {
        throw new AuthExpiredError({
          provider: PROVIDER_NAME,
          message: `The active sign-in is Codex's (${store.path ?? 'auth.json'}), which is read-only here: sign out with \`codex logout\`, or pass codexWriteBack: true.`,
        });
      }
      // As Codex: the refresh token, or the access token when there is none.
      const { refreshToken, accessToken } = signIn.tokens;
      const revoked = await revokeToken(
        endpoint,
        refreshToken !== '' ? { value: refreshToken, kind: 'refresh_token' } : { value: accessToken, kind: 'access_token' },
        signal ? { signal } : {},
      );
      const removed = await store.withLock(() => store.remove(), signal);
      cached = undefined;
      activeStore = undefined;
      audit({ type: 'logout', accountId: signIn.tokens.accountId, revoked, store: store.kind });
      if (!revoked) {
        logger.warn('The sign-in server did not confirm the revocation of the ChatGPT sign-in; the local copy was deleted anyway.');
      }
      return { removed, revoked };
    },
  };
}

/**
 * Waits for `work` until `signal` aborts; the work itself goes on. A refresh must never be
 * cancelled by its caller: once the request is sent the sign-in server may already have
 * rotated the single-use refresh token, and a cancelled answer would lose the new one (the
 * next refresh gets `refresh_token_reused`: signed out for good). It is bounded by the lock's
 * `timeoutMs` and `refreshTimeoutMs`, and its result is saved for the next request.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  // The caller may have left: a failure is then nobody's to report.
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(abortReason(signal));
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(abortReason(signal));
  });
  signal.addEventListener('abort', onAbort, { once: true });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

function memoryTokens(tokens: Partial<ChatGPTTokens> & { accessToken: string }): ChatGPTTokens {
  const idToken = tokens.idToken ?? '';
  const accountId = tokens.accountId ?? readTokenClaims(idToken).accountId ?? readTokenClaims(tokens.accessToken).accountId;
  if (accountId === undefined) {
    throw new NotSignedInError({
      message: 'The tokens passed in carry no ChatGPT account id: pass tokens.accountId, or an id token with the `https://api.openai.com/auth` claim.',
    });
  }
  return { idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? '', accountId };
}
