import { describe, expect, it } from 'vitest';
import { readOtelSettings, wantsOtlpMetrics, wantsOtlpTraces } from './otel-settings.ts';

const ENDPOINT = 'http://127.0.0.1:4318';

describe('readOtelSettings', () => {
  it('turns traces on for an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp, and leaves them off otherwise', () => {
    expect(wantsOtlpTraces({})).toBe(false);
    expect(wantsOtlpTraces({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toBe(true);
    expect(wantsOtlpTraces({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` })).toBe(true);
    expect(wantsOtlpTraces({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(wantsOtlpTraces({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toBe(false);
    expect(wantsOtlpTraces({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
  });

  it('decides metrics the same way, from their own variables', () => {
    expect(wantsOtlpMetrics({})).toBe(false);
    expect(wantsOtlpMetrics({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toBe(true);
    expect(wantsOtlpMetrics({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${ENDPOINT}/v1/metrics` })).toBe(true);
    // A traces endpoint says nothing about metrics.
    expect(wantsOtlpMetrics({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` })).toBe(false);
    expect(wantsOtlpMetrics({ OTEL_METRICS_EXPORTER: 'otlp' })).toBe(true);
    expect(wantsOtlpMetrics({ OTEL_METRICS_EXPORTER: ' None ', OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toBe(false);
    expect(wantsOtlpMetrics({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toBe(false);
    expect(readOtelSettings({ OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toMatchObject({ traces: true, metrics: undefined });
  });

  it("uses the spec's defaults: a metric export every 60 s, 30 s for it, 10 s per OTLP request", () => {
    expect(readOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toEqual({
      traces: true,
      metrics: { intervalMs: 60_000, timeoutMs: 30_000 },
      exportTimeoutMs: { traces: 10_000, metrics: 10_000 },
      problems: [],
    });
  });

  it('reads the interval and timeouts, per signal where the spec has one, and keeps the metric timeout within the interval', () => {
    const settings = readOtelSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
      OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: '750',
    });
    expect(settings.metrics).toEqual({ intervalMs: 5_000, timeoutMs: 5_000 });
    expect(settings.exportTimeoutMs).toEqual({ traces: 2_000, metrics: 750 });
  });

  it('turns a signal off, and says so without the value, when its endpoint is not an absolute http(s) URL', () => {
    const secret = 'http://user:s3cret@bad host:4318';
    const both = readOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: secret, OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer s3cret-token' });
    expect(both).toMatchObject({ traces: false, metrics: undefined });
    expect(both.problems).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT is not an absolute http:// or https:// URL (its value is not shown: it can hold credentials); traces and metrics are not exported.',
    ]);
    expect(JSON.stringify(both.problems)).not.toContain('s3cret');
    for (const bad of ['localhost:4318', '/v1/traces', 'ftp://collector:4318', 'collector']) {
      expect(readOtelSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: bad })).toMatchObject({ traces: false });
    }
    // Each signal's own endpoint wins over the one for all: only the bad one's signal is off.
    const split = readOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` });
    expect(split.traces).toBe(true);
    expect(split.metrics).toBeUndefined();
    expect(split.problems).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT is not an absolute http:// or https:// URL (its value is not shown: it can hold credentials); metrics are not exported.',
    ]);
    expect(readOtelSettings({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https:', OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toMatchObject({ traces: true, metrics: undefined });
    // A signal that is not exported anyway says nothing of its endpoint; good URLs pass.
    expect(readOtelSettings({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }).problems).toEqual([]);
    expect(readOtelSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }).problems).toEqual([]);
    expect(readOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ' https://otlp.example.com:4318/ ' })).toMatchObject({ traces: true, problems: [] });
  });

  it('names what it cannot honour and falls back to the default instead of failing', () => {
    const settings = readOtelSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
      OTEL_TRACES_EXPORTER: 'otlp,console',
      OTEL_METRICS_EXPORTER: 'prometheus',
      OTEL_METRIC_EXPORT_INTERVAL: 'soon',
      OTEL_EXPORTER_OTLP_TIMEOUT: '-5',
    });
    expect(settings.traces).toBe(true);
    expect(settings.metrics).toBeUndefined();
    expect(settings.exportTimeoutMs.traces).toBe(10_000);
    expect(settings.problems).toEqual([
      'OTEL_EXPORTER_OTLP_TIMEOUT=-5 is not a positive number of milliseconds; using 10000.',
      'OTEL_TRACES_EXPORTER=console is not supported (only otlp and none are); those exporters are not started.',
      'OTEL_METRICS_EXPORTER=prometheus is not supported (only otlp and none are); those exporters are not started.',
    ]);
    expect(readOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).problems).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; exports are sent as http/json (OTLP/HTTP with JSON bodies).',
    ]);
    expect(readOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).problems).toEqual([]);
    // Nothing is exported, so nothing to say about how.
    expect(readOtelSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).problems).toEqual([]);
    expect(readOtelSettings({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_METRIC_EXPORT_INTERVAL: 'soon' }).problems).toEqual([
      'OTEL_METRIC_EXPORT_INTERVAL=soon is not a positive number of milliseconds; using 60000.',
    ]);
  });
});
