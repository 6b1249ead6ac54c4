import type { ToolRegistry } from '@toolwire/core';
import type { AnswerBounds } from './loop/run-gateway-loop.ts';
import type { ApiKeyStore } from './auth/api-key-store.ts';
import type { ModelRouter } from './models/model-router.ts';
import type { GatewayMetrics } from './observability/gateway-metrics.ts';
import type { GatewayState } from './state/gateway-state.ts';
import type { ResponseStore } from './response-store.ts';
import type { ToolAuditEvent } from './tools/audit-event.ts';

/** What the route handlers share for the lifetime of one server. */
export interface GatewayContext {
  router: ModelRouter;
  keys: ApiKeyStore;
  /** Rate limits, concurrency slots and hidden turns: in memory, or shared on Redis. */
  state: GatewayState;
  /** Counters and histograms for `GET /metrics`. */
  metrics: GatewayMetrics;
  /** The server tools: each key's permissions and one concurrency cap for all (see `createServerToolRegistry`). */
  serverTools: ToolRegistry;
  /** Time allowed per server-tool call, waiting for a slot included. */
  toolTimeoutMs: number;
  /** Receives the audit event of every server-tool call. */
  audit: (event: ToolAuditEvent) => void;
  maxSteps: number;
  /** The bounds on one model answer (`limits.upstreamAnswerLimitChars`, `limits.upstreamAnswerToolCallLimit`), for core's loop. */
  answerLimits: AnswerBounds;
  /** Responses kept for `previous_response_id`, `item_reference` and `GET /v1/responses/{id}` (`store` not false). */
  responses: ResponseStore;
  /** `limits.maxRequestDurationMs`: how long one model request may run in all (0: no bound). */
  maxRequestDurationMs: number;
  /** Controllers of requests in flight, aborted when a shutdown's grace period ends. */
  inflight: Set<AbortController>;
  /** Seconds since the epoch at start (the `created` of listed models). */
  startedAt: number;
  /** How long `GET /v1/models` waits for a provider's list (`limits.modelListTimeoutMs`). */
  modelListTimeoutMs: number;
}
