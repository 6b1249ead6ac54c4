import { setTimeout as sleep } from 'node:timers/promises';

import { ChatGPTLoginError } from '../chatgpt-errors.ts';
import { trimTrailingSlashes } from '../url.ts';
import { exchangeAuthorizationCode, pollDeviceToken, requestDeviceCode } from './oauth-client.ts';
import type { OAuthEndpoint, TokenResponse } from './oauth-client.ts';

/** What the user needs to finish a device-code sign-in on another device. */
export interface DeviceCodePrompt {
  /** Open this page (on any device)… */
  verificationUrl: string;
  /** …and enter this code. */
  userCode: string;
}

/** Settings of the device-code sign-in. */
export interface DeviceLoginParams {
  endpoint: OAuthEndpoint;
  onDeviceCode: (prompt: DeviceCodePrompt) => void | Promise<void>;
  /** Give up after this long (Codex: 15 minutes). */
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Signs in with a device code, for machines without a browser: shows a code, polls until
 * the user has entered it, then exchanges the resulting authorization code.
 */
export async function deviceLogin(params: DeviceLoginParams): Promise<TokenResponse> {
  const { endpoint, signal } = params;
  const code = await requestDeviceCode(endpoint, signal);
  const issuer = trimTrailingSlashes(endpoint.issuer);
  await params.onDeviceCode({ verificationUrl: `${issuer}/codex/device`, userCode: code.userCode });
  const deadline = Date.now() + params.timeoutMs;
  for (;;) {
    if (signal?.aborted) throw new ChatGPTLoginError({ reason: 'aborted', message: 'The sign-in was cancelled.' });
    const result = await pollDeviceToken(endpoint, code, signal);
    if (result !== 'pending') {
      return exchangeAuthorizationCode(endpoint, {
        code: result.authorizationCode,
        redirectUri: `${issuer}/deviceauth/callback`,
        codeVerifier: result.codeVerifier,
        ...(signal ? { signal } : {}),
      });
    }
    if (Date.now() + code.intervalMs > deadline) {
      throw new ChatGPTLoginError({
        reason: 'device_code_expired',
        message: `The code ${code.userCode} was not entered within ${Math.round(params.timeoutMs / 60_000)} minutes. Run \`toolwire login chatgpt --device\` again.`,
      });
    }
    await sleep(code.intervalMs, undefined, signal ? { signal } : {}).catch(() => undefined);
  }
}
