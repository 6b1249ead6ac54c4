import { createChatGPTAuth } from './chatgpt-auth.ts';
import type { ChatGPTAuthOptions, ChatGPTLoginOptions, ChatGPTLogoutResult, ChatGPTStatus } from './chatgpt-auth.ts';

/**
 * Signs in to ChatGPT (browser with PKCE, or `method: 'device'`) and saves the tokens to
 * `~/.toolwire/chatgpt-auth.json` (mode 0600). Used by `toolwire login chatgpt [--device]`.
 *
 * @example const status = await login({ method: 'device', onDeviceCode: ({ verificationUrl, userCode }) => console.log(verificationUrl, userCode) });
 */
export function login(options: ChatGPTAuthOptions & ChatGPTLoginOptions = {}): Promise<ChatGPTStatus> {
  return createChatGPTAuth(options).login(options);
}

/** Revokes the refresh token and deletes the saved sign-in. Used by `toolwire logout chatgpt`. */
export function logout(options: ChatGPTAuthOptions & { signal?: AbortSignal } = {}): Promise<ChatGPTLogoutResult> {
  return createChatGPTAuth(options).logout(options.signal);
}

/**
 * The current sign-in (account id, plan, e-mail, expiry), without tokens. Used by
 * `toolwire whoami`.
 */
export function whoami(options: ChatGPTAuthOptions = {}): Promise<ChatGPTStatus> {
  return createChatGPTAuth(options).status();
}
