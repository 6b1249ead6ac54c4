import type { Span } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../gateway-context.ts';
import type { Admission } from './admit-request.ts';
import type { CallEnding } from './serve-gateway-call.ts';

/** What a `RequestEnding` needs at the end. */
export interface RequestEndingOptions {
  context: GatewayContext;
  req: FastifyRequest;
  reply: FastifyReply;
  /** The request's server span (see `withRequestSpan`). */
  span: Span;
  /** The model the client asked for, when it named one. */
  model: string | undefined;
  /** Settle the handler's promise. */
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * How a model request's handling ends, whenever that is: the key's admission released
 * (once), the span's status code, the handler's promise settled, a failure scoped to the
 * key's models. One object an open stream holds, rather than a promise, a reaction and
 * closures over each step's scope per async function on the way.
 */
export class RequestEnding implements CallEnding {
  readonly #options: RequestEndingOptions;
  #admission: Admission | undefined;

  constructor(options: RequestEndingOptions) {
    this.#options = options;
  }

  /** The admission this ending releases, once the answer (or its failure) is over. */
  hold(admission: Admission): void {
    this.#admission = admission;
  }

  /** Releases the admission, at most once. */
  release(): void {
    const admission = this.#admission;
    this.#admission = undefined;
    admission?.release();
  }

  resolve(): void {
    const { span, reply, resolve } = this.#options;
    this.release();
    if (span.isRecording()) span.setAttribute('http.response.status_code', reply.raw.statusCode);
    resolve();
  }

  reject(error: unknown): void {
    const { context, req, model, reject } = this.#options;
    this.release();
    // A key limited by `models` never learns other models' names from a 404.
    reject(model === undefined ? error : scopedError(context, req, model, error));
  }
}

/** `scopeModelError` for the request's key (an unauthenticated request keeps its 401). */
function scopedError(context: GatewayContext, req: FastifyRequest, model: string, error: unknown): unknown {
  try {
    return context.keys.scopeModelError(context.keys.authenticate(req.headers.authorization), model, error);
  } catch (failure) {
    return failure;
  }
}
