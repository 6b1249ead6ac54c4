import { globMatch } from '@toolwire/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../gateway-context.ts';

/** A `GET /v1/models` answer in OpenAI's format. */
export interface ModelList {
  object: 'list';
  data: { id: string; object: 'model'; created: number; owned_by: string }[];
}

/** Default `limits.modelListTimeoutMs`: how long `GET /v1/models` waits for a provider's list. */
export const DEFAULT_MODEL_LIST_TIMEOUT_MS = 10_000;

/**
 * The `GET /v1/models` handler: the configured providers' models that the caller's key may
 * use (a provider that cannot list, or takes longer than `limits.modelListTimeoutMs`, is logged
 * and left out; a client that leaves stops the listing).
 */
export function createModelsHandler(getContext: () => GatewayContext): (req: FastifyRequest, reply: FastifyReply) => Promise<ModelList> {
  return async (req, reply) => {
    void reply.header('x-request-id', req.id);
    const context = getContext();
    const principal = context.keys.authenticate(req.headers.authorization);
    // Stopped when the client leaves, and bounded: a provider that does not answer is left out, not waited for.
    const left = new AbortController();
    const onClose = (): void => {
      if (!reply.raw.writableFinished) left.abort(new Error('The client left before the model list was complete.'));
    };
    reply.raw.on('close', onClose);
    const signal = AbortSignal.any([left.signal, AbortSignal.timeout(context.modelListTimeoutMs)]);
    const { models, failures } = await context.router.list(signal).finally(() => reply.raw.off('close', onClose));
    for (const failure of failures) req.log.warn({ provider: failure.provider, err: failure.error }, 'could not list models');
    const patterns = principal.models;
    // A key sees only the models it may use.
    const allowed = patterns === undefined ? models : models.filter((m) => patterns.some((pattern) => globMatch(pattern, m.id)));
    return { object: 'list', data: allowed.map((m) => ({ id: m.id, object: 'model', created: context.startedAt, owned_by: m.ownedBy })) };
  };
}
