import type { Logger } from 'pino';
import type { StateConfig } from '../config/server-config.ts';
import type { GatewayState } from './gateway-state.ts';
import { createMemoryState } from './memory-state.ts';
import { createRedisState } from './redis-state.ts';

/** The state `state` asks for: Redis when `state.redis.url` is set, this process's memory otherwise. */
export function createGatewayState(config: StateConfig | undefined, logger: Logger): GatewayState {
  const redis = config?.redis;
  if (redis === undefined) return createMemoryState();
  return createRedisState({
    url: redis.url,
    logger,
    ...(redis.keyPrefix === undefined ? {} : { keyPrefix: redis.keyPrefix }),
    ...(redis.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: redis.commandTimeoutMs }),
  });
}
