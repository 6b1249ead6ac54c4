import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, startOtelFromEnv } from './start-otel.ts';

describe('startOtelFromEnv', () => {
  it('starts no exporter for an endpoint that is not a URL, and warns without echoing it (no fallback to localhost with the headers)', () => {
    const warnings: string[] = [];
    const log = { warn: (_fields: object, message: string) => warnings.push(message), info: () => undefined };
    const handle = startOtelFromEnv(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:s3cret@bad host:4318', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer s3cret-token' },
      { log },
    );
    expect(handle).toBeUndefined();
    expect(warnings).toEqual([
      'OpenTelemetry: OTEL_EXPORTER_OTLP_ENDPOINT is not an absolute http:// or https:// URL (its value is not shown: it can hold credentials); traces and metrics are not exported.',
    ]);
    expect(warnings.join('\n')).not.toContain('s3cret');
  });

  // The environment given need not be process.env (where the SDK itself would look): the
  // length limit is read from the one given, as every other setting is.
  const cases: [string, Record<string, string>, number][] = [
    ['ours when neither variable is set', {}, DEFAULT_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT],
    ['OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT', { OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '12' }, 12],
    ['OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT over OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT', { OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: ' 7 ', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '12' }, 7],
    ['ours in place of a value that is not a whole number', { OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '-3', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: 'ten' }, DEFAULT_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT],
  ];
  for (const [name, limits, expected] of cases) {
    it(`cuts span attribute values by the environment it is given: ${name}`, async () => {
      for (const variable of ['OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT']) expect(process.env[variable]).toBeUndefined();
      // Nothing listens on the endpoint; nothing is exported before the shutdown, which is cut short.
      const handle = startOtelFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_METRICS_EXPORTER: 'none', OTEL_BSP_SCHEDULE_DELAY: '600000', ...limits });
      expect(handle?.signals).toEqual(['traces']);
      try {
        const span = trace.getTracer('test').startSpan('long values');
        span.setAttribute('gen_ai.response.model', 'm'.repeat(10_000));
        span.end();
        expect((span as unknown as { attributes: Record<string, unknown> }).attributes['gen_ai.response.model']).toBe('m'.repeat(expected));
      } finally {
        await handle?.shutdown({ timeoutMs: 100 });
      }
    });
  }
});
