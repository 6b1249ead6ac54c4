import { context, isSpanContextValid, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Span, SpanOptions } from '@opentelemetry/api';
import { GatewayError } from '../wire/gateway-error.ts';
import { toGatewayError } from '../wire/to-gateway-error.ts';

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
      if (span.isRecording()) recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * A request answered with an HTTP error, per the HTTP conventions for server spans: the
 * status code sent (what the error handler answers: `toGatewayError`), `error.type`, and
 * status ERROR only for a 5xx (a 4xx is the client's doing and leaves the status unset).
 */
function recordFailure(span: Span, error: unknown): void {
  const { status } = toGatewayError(error);
  const type = spanErrorType(error);
  span.setAttribute('error.type', type);
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/**
 * A failure's `error.type`: the gateway's error code (or type), else the error's class
 * name, never a message. A code that is not a short token (an upstream's code can be any
 * text) gives way to the type.
 */
export function spanErrorType(error: unknown): string {
  if (GatewayError.isInstance(error)) return error.code !== null && isShortToken(error.code) ? error.code : error.type;
  return error instanceof Error ? error.name : typeof error;
}

/** 1–64 characters of `A-Z a-z 0-9 _ . -` (a plain loop: any input is safe). */
function isShortToken(text: string): boolean {
  if (text.length === 0 || text.length > 64) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const ok = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2e || c === 0x2d;
    if (!ok) return false;
  }
  return true;
}
