import { describe, expect, it } from 'vitest';
import type { Principal } from '../auth/api-key-store.ts';
import { createMemoryState } from '../state/memory-state.ts';
import { GatewayError } from '../wire/gateway-error.ts';
import { admitRequest } from './admit-request.ts';

const refusal = async (run: Promise<unknown>): Promise<GatewayError> => {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!GatewayError.isInstance(error)) throw new Error('expected a GatewayError');
  return error;
};

describe('admitRequest (in-memory state)', () => {
  it("refuses past a key's maxConcurrentRequests with a 429, and admits again once one is released", async () => {
    const state = createMemoryState();
    const principal: Principal = { id: 'k', alwaysTools: [], maxConcurrentRequests: 2 };
    const first = await admitRequest(state, principal);
    await admitRequest(state, principal);
    const error = await refusal(admitRequest(state, principal));
    expect(error).toMatchObject({ status: 429, type: 'rate_limit_error', code: 'concurrency_limit_exceeded', retryAfterSeconds: 1 });
    first.release();
    first.release();
    const third = await admitRequest(state, principal);
    await expect(refusal(admitRequest(state, principal))).resolves.toMatchObject({ status: 429 });
    third.release();
  });

  it('spends one token of requestsPerMinute per request (429 with Retry-After), and touches nothing for keys without limits', async () => {
    const state = createMemoryState();
    const limited: Principal = { id: 'r', alwaysTools: [], requestsPerMinute: 2 };
    await admitRequest(state, limited);
    await admitRequest(state, limited);
    const error = await refusal(admitRequest(state, limited));
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    const open: Principal = { id: 'o', alwaysTools: [] };
    for (let i = 0; i < 100; i++) (await admitRequest(state, open)).release();
  });
});
