import type { Message } from '@toolwire/core';
import type { RateDecision } from '../auth/rate-limiter.ts';
import type { HiddenToolTurn } from '../hidden-tool-turns.ts';

/** A held per-key concurrency slot; `release` is idempotent. */
export interface StateSlot {
  release(): void;
}

/** The outcome of asking for a per-key concurrency slot. */
export type SlotDecision = { acquired: true; slot: StateSlot } | { acquired: false };

/**
 * Everything a request on another instance of the gateway must see: rate limits,
 * per-key concurrency slots and the server halves of mixed turns. In memory by default
 * (one process); on Redis when `state.redis` is configured, so that several instances
 * behind one load balancer share it. Every method may reject with a 503 `GatewayError`
 * (`state_unavailable`, from `stateUnavailable`) when the backend cannot be reached or does not answer.
 */
export interface GatewayState {
  /** `memory` or `redis`, for logs and metrics. */
  readonly kind: 'memory' | 'redis';
  /** Takes one request from a key's allowance (a token bucket: `requestsPerMinute`, bursts up to the same). */
  takeRate(keyId: string, requestsPerMinute: number): Promise<RateDecision>;
  /** Takes one of a key's `limit` concurrent-request slots; release it when the request ends. */
  acquireSlot(keyId: string, limit: number): Promise<SlotDecision>;
  /** Keeps the hidden half of a mixed turn (see `HiddenToolTurns`). */
  rememberTurn(principal: string, turn: HiddenToolTurn): Promise<void>;
  /** `messages` with this principal's remembered turns restored; the same array when none matched. */
  restoreTurns(principal: string, messages: Message[]): Promise<Message[]>;
  /** False while the backend is unreachable or cannot serve the state (readiness); requests that need it then get 503 at once. */
  readonly available: boolean;
  /** Waits (up to `timeoutMs`) until the backend is reachable; resolves with `available`. */
  whenAvailable(timeoutMs: number): Promise<boolean>;
  /** Closes connections; held slots are released. */
  close(): Promise<void>;
}
