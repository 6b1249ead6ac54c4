import type { TokenStoreKind } from './token-store.ts';

/**
 * Something that happened to a sign-in, for an audit log. Events carry account ids and
 * error codes, never tokens.
 */
export type ChatGPTAuditEvent =
  | { type: 'login'; method: 'browser' | 'device'; accountId: string; store: TokenStoreKind }
  | { type: 'refresh'; accountId: string; reason: RefreshReason; store: TokenStoreKind }
  /** Another process (or request) refreshed first; its tokens were taken instead. */
  | { type: 'refresh-skipped'; accountId: string; reason: RefreshReason; store: TokenStoreKind }
  | { type: 'refresh-failed'; accountId: string; code?: string; permanent: boolean; store: TokenStoreKind }
  | { type: 'logout'; accountId: string; revoked: boolean; store: TokenStoreKind };

/** Why a refresh was attempted: the access token expired, the last refresh is older than 8 days, or the backend said 401. */
export type RefreshReason = 'expired' | 'stale' | 'unauthorized';
