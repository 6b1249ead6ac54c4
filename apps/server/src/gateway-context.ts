import type { ToolRegistry } from '@toolwire/core';
import type { ApiKeyStore } from './auth/api-key-store.ts';
import type { RateLimiter } from './auth/rate-limiter.ts';
import type { HiddenToolTurns } from './hidden-tool-turns.ts';
import type { ModelRouter } from './models/model-router.ts';
import type { ResponseStore } from './response-store.ts';
import type { ToolAuditEvent } from './tools/audit-event.ts';

/** What the route handlers share for the lifetime of one server. */
export interface GatewayContext {
  router: ModelRouter;
  keys: ApiKeyStore;
  rateLimiter: RateLimiter;
  /** The server tools: each key's permissions and one concurrency cap for all (see `createServerToolRegistry`). */
  serverTools: ToolRegistry;
  /** Time allowed per server-tool call, waiting for a slot included. */
  toolTimeoutMs: number;
  /** Receives the audit event of every server-tool call. */
  audit: (event: ToolAuditEvent) => void;
  maxSteps: number;
  /** Server halves of turns that also called client tools, restored when the client comes back. */
  hiddenTurns: HiddenToolTurns;
  /** Responses kept for `previous_response_id` and `item_reference` (`store` not false). */
  responses: ResponseStore;
  /** Controllers of requests in flight, aborted when a shutdown's grace period ends. */
  inflight: Set<AbortController>;
  /** Seconds since the epoch at start (the `created` of listed models). */
  startedAt: number;
}
