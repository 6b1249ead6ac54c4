import type { Principal } from '../auth/api-key-store.ts';
import type { GatewayState } from '../state/gateway-state.ts';
import { GatewayError } from '../wire/gateway-error.ts';

/** What `admitRequest` hands back: call `release` when the request has ended (answered, failed or cut). */
export interface Admission {
  release(): void;
}

const NOTHING_HELD: Admission = { release: () => undefined };

/**
 * Checks a request against its key's limits in the shared state: one token of
 * `requestsPerMinute` (429 `rate_limit_exceeded` with `Retry-After`), then one of
 * `maxConcurrentRequests` slots (429 `concurrency_limit_exceeded`). A key without limits
 * touches no state. When the state is unreachable this rejects with its 503.
 */
export async function admitRequest(state: GatewayState, principal: Principal): Promise<Admission> {
  if (principal.requestsPerMinute !== undefined) {
    const decision = await state.takeRate(principal.id, principal.requestsPerMinute);
    if (!decision.allowed) {
      throw new GatewayError({
        status: 429,
        type: 'rate_limit_error',
        message: `Rate limit reached for the API key '${principal.id}' (${principal.requestsPerMinute} requests per minute). Retry after ${decision.retryAfterSeconds} s.`,
        code: 'rate_limit_exceeded',
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    }
  }
  if (principal.maxConcurrentRequests === undefined) return NOTHING_HELD;
  const slot = await state.acquireSlot(principal.id, principal.maxConcurrentRequests);
  if (!slot.acquired) {
    throw new GatewayError({
      status: 429,
      type: 'rate_limit_error',
      message: `The API key '${principal.id}' already has ${principal.maxConcurrentRequests} requests running (its maxConcurrentRequests). Wait for one to finish, then retry.`,
      code: 'concurrency_limit_exceeded',
      retryAfterSeconds: 1,
    });
  }
  return slot.slot;
}
