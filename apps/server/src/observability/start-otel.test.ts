import { describe, expect, it } from 'vitest';
import { startOtelFromEnv } from './start-otel.ts';

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
});
