import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../wire/gateway-error.ts';

/** Counts the request bodies each API key is sending right now. */
export interface PendingBodies {
  /** Counts a request with a body against `key`; a 429 `GatewayError` when the key is at its cap. */
  admit(req: FastifyRequest, key: string, reply: FastifyReply): void;
  /** The request's body is read: it no longer counts (idempotent). */
  release(req: FastifyRequest): void;
}

/** Default `limits.maxPendingBodiesPerKey`. */
export const DEFAULT_MAX_PENDING_BODIES_PER_KEY = 32;

/**
 * Request bodies being received, per API key: a key's slow or abandoned uploads cannot
 * pile up past `max` (each holds up to `bodyLimitBytes` until `requestTimeoutMs`).
 */
export function createPendingBodies(max: number): PendingBodies {
  const byKey = new Map<string, number>();
  const owners = new WeakMap<FastifyRequest, { key: string; onClose: () => void }>();
  const release = (req: FastifyRequest): void => {
    const owner = owners.get(req);
    if (owner === undefined) return;
    owners.delete(req);
    // The close listener goes too: a streamed answer keeps its request open for its whole length.
    req.raw.off('close', owner.onClose);
    const { key } = owner;
    const count = (byKey.get(key) ?? 1) - 1;
    if (count <= 0) byKey.delete(key);
    else byKey.set(key, count);
  };
  return {
    admit(req: FastifyRequest, key: string, reply: FastifyReply): void {
      const length = req.headers['content-length'];
      const hasBody = (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
      if (!hasBody) return;
      const count = byKey.get(key) ?? 0;
      if (count >= max) {
        void reply.header('connection', 'close');
        throw new GatewayError({
          status: 429,
          type: 'rate_limit_error',
          message: `The API key '${key}' is already sending ${max} request bodies at once. Wait for them to finish, or send smaller requests.`,
          code: 'too_many_pending_requests',
          retryAfterSeconds: 1,
        });
      }
      byKey.set(key, count + 1);
      // Whatever ends the request (read, refused, timed out, aborted) releases its place.
      // (`on`, not `once`: `release` removes it, and `once` would wrap it in one more closure.)
      const onClose = (): void => release(req);
      owners.set(req, { key, onClose });
      req.raw.on('close', onClose);
    },
    release,
  };
}
