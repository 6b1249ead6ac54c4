/** The environment as the OpenTelemetry variables are read from it. */
export type OtelEnv = Readonly<Record<string, string | undefined>>;

/** What the standard `OTEL_*` variables ask of the process, before any SDK is made. */
export interface OtelSettings {
  /** Send spans over OTLP/HTTP. */
  traces: boolean;
  /** Send metrics over OTLP/HTTP, and how often. */
  metrics: { intervalMs: number; timeoutMs: number } | undefined;
  /** Time allowed per export request (`OTEL_EXPORTER_OTLP_TIMEOUT`, default 10 000 ms), by signal. */
  exportTimeoutMs: { traces: number; metrics: number };
  /** What was set but cannot be honoured here, one sentence each, for a warning at start. */
  problems: string[];
}

/** The spec's defaults: `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_METRIC_EXPORT_TIMEOUT`, `OTEL_EXPORTER_OTLP_TIMEOUT`. */
const DEFAULT_METRIC_INTERVAL_MS = 60_000;
const DEFAULT_METRIC_TIMEOUT_MS = 30_000;
const DEFAULT_OTLP_TIMEOUT_MS = 10_000;

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

/**
 * Whether `OTEL_{SIGNAL}_EXPORTER` asks for OTLP: a comma-separated list naming `otlp`, or
 * (with it unset) an OTLP endpoint for the signal. Other exporter names are reported in
 * `problems`: only OTLP is built in.
 */
function wantsOtlp(env: OtelEnv, signal: 'TRACES' | 'METRICS', problems: string[]): boolean {
  const variable = `OTEL_${signal}_EXPORTER`;
  const exporters = env[variable];
  if (isSet(exporters)) {
    const names = exporters.split(',').map((name) => name.trim().toLowerCase());
    const unknown = names.filter((name) => name !== 'otlp' && name !== 'none' && name !== '');
    if (unknown.length > 0) problems.push(`${variable}=${unknown.join(',')} is not supported (only otlp and none are); those exporters are not started.`);
    return names.includes('otlp');
  }
  return isSet(env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]) || isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * The OTLP endpoint variable that applies to `signal` (its own, else the one for all) when
 * that one is set and is not an absolute http(s) URL; `undefined` when it is usable or unset.
 * The SDK would fall back to `http://localhost:4318` for such a value and send the
 * `OTEL_EXPORTER_OTLP_HEADERS` (often a bearer token) there; the signal is not exported instead.
 */
function badEndpointVariable(env: OtelEnv, signal: 'TRACES' | 'METRICS'): string | undefined {
  const own = `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`;
  const variable = isSet(env[own]) ? own : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const value = env[variable];
  if (!isSet(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return variable;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : variable;
}

/** A positive whole number of milliseconds from `variable`, or `fallback` (with a problem noted when set but not one). */
function millis(env: OtelEnv, variable: string, fallback: number, problems: string[]): number {
  const raw = env[variable];
  if (!isSet(raw)) return fallback;
  const value = Number(raw.trim());
  if (Number.isFinite(value) && value > 0) return Math.ceil(value);
  problems.push(`${variable}=${raw} is not a positive number of milliseconds; using ${String(fallback)}.`);
  return fallback;
}

/**
 * Reads the standard variables: `OTEL_SDK_DISABLED`, `OTEL_TRACES_EXPORTER`,
 * `OTEL_METRICS_EXPORTER` (each `otlp` or `none`; with it unset, on when an OTLP endpoint is
 * set for the signal or for all), `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_METRIC_EXPORT_TIMEOUT`
 * and `OTEL_EXPORTER_OTLP[_TRACES|_METRICS]_TIMEOUT`; a protocol other than `http/json` is
 * reported in `problems`, and so is an `OTEL_EXPORTER_OTLP[_TRACES|_METRICS]_ENDPOINT` that
 * is not an absolute http(s) URL, whose signal is then off.
 */
export function readOtelSettings(env: OtelEnv): OtelSettings {
  const problems: string[] = [];
  const otlpTimeout = millis(env, 'OTEL_EXPORTER_OTLP_TIMEOUT', DEFAULT_OTLP_TIMEOUT_MS, problems);
  const exportTimeoutMs = {
    traces: millis(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', otlpTimeout, problems),
    metrics: millis(env, 'OTEL_EXPORTER_OTLP_METRICS_TIMEOUT', otlpTimeout, problems),
  };
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { traces: false, metrics: undefined, exportTimeoutMs, problems };
  // An endpoint that is not an absolute http(s) URL turns its signal off, said once per
  // variable, without its value (it can hold credentials).
  const badEndpoints = new Map<string, string[]>();
  const endpointUsable = (signal: 'TRACES' | 'METRICS'): boolean => {
    const variable = badEndpointVariable(env, signal);
    if (variable === undefined) return true;
    badEndpoints.set(variable, [...(badEndpoints.get(variable) ?? []), signal.toLowerCase()]);
    return false;
  };
  const traces = wantsOtlp(env, 'TRACES', problems) && endpointUsable('TRACES');
  let metrics: OtelSettings['metrics'];
  if (wantsOtlp(env, 'METRICS', problems) && endpointUsable('METRICS')) {
    const intervalMs = millis(env, 'OTEL_METRIC_EXPORT_INTERVAL', DEFAULT_METRIC_INTERVAL_MS, problems);
    // The SDK's reader refuses a timeout longer than the interval.
    metrics = { intervalMs, timeoutMs: Math.min(millis(env, 'OTEL_METRIC_EXPORT_TIMEOUT', DEFAULT_METRIC_TIMEOUT_MS, problems), intervalMs) };
  }
  for (const [variable, signals] of badEndpoints) {
    problems.push(`${variable} is not an absolute http:// or https:// URL (its value is not shown: it can hold credentials); ${signals.join(' and ')} are not exported.`);
  }
  // The exporters built in speak OTLP/HTTP with JSON bodies, whatever the protocol variables say.
  if (traces || metrics !== undefined) {
    for (const variable of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL']) {
      const protocol = env[variable];
      if (isSet(protocol) && protocol.trim().toLowerCase() !== 'http/json') problems.push(`${variable}=${protocol} is not supported; exports are sent as http/json (OTLP/HTTP with JSON bodies).`);
    }
  }
  return { traces, metrics, exportTimeoutMs, problems };
}

/**
 * Whether the standard `OTEL_*` variables ask for OTLP traces: `OTEL_TRACES_EXPORTER`
 * naming `otlp`, or (with it unset) an `OTEL_EXPORTER_OTLP_ENDPOINT` /
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`. `OTEL_SDK_DISABLED=true` wins over both.
 */
export function wantsOtlpTraces(env: OtelEnv): boolean {
  return readOtelSettings(env).traces;
}

/** The same for metrics: `OTEL_METRICS_EXPORTER`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT`. */
export function wantsOtlpMetrics(env: OtelEnv): boolean {
  return readOtelSettings(env).metrics !== undefined;
}
