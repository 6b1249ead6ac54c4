import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import { GatewayError } from '../wire/gateway-error.ts';

/** The instrumentation scope of the gateway's own spans. */
export const SERVER_TRACER_NAME = '@toolwire/server';

/**
 * Runs a request's handler inside a server span (`POST /v1/chat/completions`), made the
 * active span so that core's `chat` and `execute_tool` spans of the request become its
 * children. Failures record `error.type` (the gateway's error code or class), never a message.
 */
export function withRequestSpan<T>(route: string, run: (span: Span) => Promise<T>): Promise<T> {
  return trace.getTracer(SERVER_TRACER_NAME).startActiveSpan(`POST ${route}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST', 'http.route': route } }, async (span) => {
    try {
      return await run(span);
    } catch (error) {
      if (span.isRecording()) {
        const type = GatewayError.isInstance(error) ? (error.code ?? error.type) : error instanceof Error ? error.name : typeof error;
        span.setAttribute('error.type', type);
        if (GatewayError.isInstance(error)) span.setAttribute('http.response.status_code', error.status);
        span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      }
      throw error;
    } finally {
      span.end();
    }
  });
}
