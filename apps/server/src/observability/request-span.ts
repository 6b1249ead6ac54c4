import { context, isSpanContextValid, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Span, SpanOptions } from '@opentelemetry/api';
import { GatewayError } from '../wire/gateway-error.ts';

/** The instrumentation scope of the gateway's own spans. */
export const SERVER_TRACER_NAME = '@toolwire/server';

// The same for every request of a route: made once.
const spanOptions = new Map<string, SpanOptions>();
function optionsOf(route: string): SpanOptions {
  let options = spanOptions.get(route);
  if (options === undefined) {
    options = { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST', 'http.route': route } };
    spanOptions.set(route, options);
  }
  return options;
}

/**
 * Runs a request's handler inside a server span (`POST /v1/chat/completions`), made the
 * active span so that core's `chat` and `execute_tool` spans of the request become its
 * children. Failures record `error.type` (the gateway's error code or class), never a message.
 * Without an OpenTelemetry SDK the span is the API's no-op one and no context is made for it.
 */
export function withRequestSpan<T>(route: string, run: (span: Span) => Promise<T>): Promise<T> {
  const span = trace.getTracer(SERVER_TRACER_NAME).startSpan(`POST ${route}`, optionsOf(route));
  // An invalid span context means no tracer provider: nothing to carry to child spans, and
  // `run`'s promise is handed back as it is (an async function here would add a promise
  // that waits on it for as long as the request lasts: a stream's whole length).
  // (A valid but unsampled span is still made active, so that its children follow its sampling.)
  if (!isSpanContextValid(span.spanContext())) {
    try {
      return run(span);
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what `run` threw, passed on as an async function would
      return Promise.reject(error);
    }
  }
  return context.with(trace.setSpan(context.active(), span), async () => {
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
