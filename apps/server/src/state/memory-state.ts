import { createRateLimiter } from '../auth/rate-limiter.ts';
import { createHiddenToolTurns } from '../hidden-tool-turns.ts';
import type { HiddenToolTurnsOptions } from '../hidden-tool-turns.ts';
import type { GatewayState, SlotDecision } from './gateway-state.ts';

/** Options of `createMemoryState`. */
export interface MemoryStateOptions {
  turns?: HiddenToolTurnsOptions;
}

/**
 * The default state: everything in this process (nothing to install). Correct for one
 * instance; behind a load balancer every instance counts its own limits and keeps its own
 * turns, so use the Redis state there.
 */
export function createMemoryState(options: MemoryStateOptions = {}): GatewayState {
  const limiter = createRateLimiter();
  const turns = createHiddenToolTurns(options.turns);
  // Keys come from the configuration, so the map is bounded by it.
  const slotsInUse = new Map<string, number>();
  return {
    kind: 'memory',
    available: true,
    takeRate: (keyId, requestsPerMinute) => Promise.resolve(limiter.take(keyId, requestsPerMinute)),
    acquireSlot(keyId, limit): Promise<SlotDecision> {
      const used = slotsInUse.get(keyId) ?? 0;
      if (used >= limit) return Promise.resolve({ acquired: false });
      slotsInUse.set(keyId, used + 1);
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        const now = (slotsInUse.get(keyId) ?? 1) - 1;
        if (now <= 0) slotsInUse.delete(keyId);
        else slotsInUse.set(keyId, now);
      };
      return Promise.resolve({ acquired: true, slot: { release } });
    },
    rememberTurn(principal, turn) {
      turns.remember(principal, turn);
      return Promise.resolve();
    },
    restoreTurns: (principal, messages) => Promise.resolve(turns.restore(principal, messages)),
    whenAvailable: () => Promise.resolve(true),
    close: () => Promise.resolve(),
  };
}
