import { SpanStatusCode } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../gateway-context.ts';
import { clientLeft } from '../observability/access-log.ts';
import { spanErrorType } from '../observability/request-span.ts';
import { toGatewayError } from '../wire/to-gateway-error.ts';
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
  #streamFailed = false;

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
    if (span.isRecording()) this.#recordAnswer(span, reply);
    resolve();
  }

  /**
   * A stream that failed after its 200 (error frames sent): the span gets `error.type` and
   * status ERROR (the answer broke although the status said it would not), and the metrics
   * count it in `toolwire_stream_errors_total` by the error frame's `type`.
   */
  streamFailed(error: unknown): void {
    const { span, req, context } = this.#options;
    this.#streamFailed = true;
    if (context.metrics.enabled) context.metrics.streamFailed(req.routeOptions.url ?? 'unmatched', toGatewayError(error).type);
    if (!span.isRecording()) return;
    const type = spanErrorType(error);
    span.setAttribute('error.type', type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: type });
  }

  /**
   * The status code sent, when one was (a client that left before the answer started got
   * none: the access line's 499 is not put on the span). A client that left gets
   * `error.type: client_disconnected` and no ERROR status: its own choice, like a 4xx.
   */
  #recordAnswer(span: Span, reply: FastifyReply): void {
    const res = reply.raw;
    if (res.headersSent) span.setAttribute('http.response.status_code', res.statusCode);
    if (!this.#streamFailed && clientLeft(reply)) span.setAttribute('error.type', 'client_disconnected');
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
