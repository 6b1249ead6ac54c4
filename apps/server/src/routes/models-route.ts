import { globMatch } from '@toolwire/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../gateway-context.ts';

/** A `GET /v1/models` answer in OpenAI's format. */
export interface ModelList {
  object: 'list';
  data: { id: string; object: 'model'; created: number; owned_by: string }[];
}

/**
 * The `GET /v1/models` handler: the configured providers' models that the caller's key may
 * use (a provider that cannot list is logged and left out).
 */
export function createModelsHandler(getContext: () => GatewayContext): (req: FastifyRequest, reply: FastifyReply) => Promise<ModelList> {
  return async (req, reply) => {
    void reply.header('x-request-id', req.id);
    const context = getContext();
    const principal = context.keys.authenticate(req.headers.authorization);
    const { models, failures } = await context.router.list();
    for (const failure of failures) req.log.warn({ provider: failure.provider, err: failure.error }, 'could not list models');
    const patterns = principal.models;
    // A key sees only the models it may use.
    const allowed = patterns === undefined ? models : models.filter((m) => patterns.some((pattern) => globMatch(pattern, m.id)));
    return { object: 'list', data: allowed.map((m) => ({ id: m.id, object: 'model', created: context.startedAt, owned_by: m.ownedBy })) };
  };
}
