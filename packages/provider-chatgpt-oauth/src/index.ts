export { createChatGPT } from './create-chatgpt.ts';
export type { ChatGPTProvider, ChatGPTProviderOptions } from './create-chatgpt.ts';
export type { ChatGPTChatSettings, ChatGPTReasoningEffort } from './chatgpt-settings.ts';
export { createChatGPTAuth } from './auth/chatgpt-auth.ts';
export type {
  ChatGPTAuth,
  ChatGPTAuthOptions,
  ChatGPTCredentials,
  ChatGPTLoginOptions,
  ChatGPTLogoutResult,
  ChatGPTStatus,
} from './auth/chatgpt-auth.ts';
export { login, logout, whoami } from './auth/sign-in.ts';
export type { ChatGPTAuditEvent, RefreshReason } from './auth/audit-event.ts';
export type { ChatGPTTokens } from './auth/auth-file.ts';
export type { DeviceCodePrompt } from './auth/device-login.ts';
export type { TokenStoreKind } from './auth/token-store.ts';
export { FileLockLostError } from './auth/file-lock.ts';
export type { FileLockTimes } from './auth/file-lock.ts';
export type { ChatGPTRateLimits, RateLimitWindow } from './backend/rate-limits.ts';
export type { ChatGPTResidency } from './backend/request-headers.ts';
export { ChatGPTLoginError, InsecureTokenPathError, NotSignedInError } from './chatgpt-errors.ts';
export type { ChatGPTLoginFailure } from './chatgpt-errors.ts';
export type { ChatGPTLogger } from './logger.ts';
export { CLI_TOOL_COMMAND } from './tools/cli-tools.ts';
export type { ChatGPTToolMode } from './tools/wire-tool.ts';
