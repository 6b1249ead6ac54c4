import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createExporterAgents, EXPORT_ABANDONED } from './exporter-agent.ts';
import { createExportFailureLog, reportExports } from './export-failure-log.ts';
import type { OtelLog, OtelSignal } from './export-failure-log.ts';
import { readOtelSettings } from './otel-settings.ts';
import type { OtelEnv } from './otel-settings.ts';

/** Options of `startOtelFromEnv`. */
export interface StartOtelOptions {
  /** `service.name` unless `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` say otherwise (default `toolwire-server`). */
  serviceName?: string;
  /** Where export failures and unusable settings are reported, a few lines at most (none when left out). */
  log?: OtelLog;
}

/**
 * How a shutdown went: `flushed` when the SDK finished its last exports within the time limit
 * (an export may still have failed: that is logged), `timed-out` when they were cut off.
 */
export type OtelShutdownResult = 'flushed' | 'timed-out';

/** A started OpenTelemetry SDK. */
export interface OtelHandle {
  /** What is exported over OTLP. */
  readonly signals: readonly OtelSignal[];
  /**
   * Sends what is still buffered (spans, a last collection of metrics) and stops, waiting at
   * most `timeoutMs` (default: the OTLP export timeout). Past it, exports still under way are
   * cut, so a collector that hangs or trickles cannot keep the process alive.
   */
  shutdown(options?: { timeoutMs?: number }): Promise<OtelShutdownResult>;
}

/**
 * Registers OpenTelemetry's tracer and meter providers with OTLP/HTTP exporters when the
 * standard `OTEL_*` variables ask for them (see `readOtelSettings`): spans through a batch
 * processor (`OTEL_BSP_*`), metrics every `OTEL_METRIC_EXPORT_INTERVAL` ms. The exporters
 * read the endpoint, headers, timeout and compression from `OTEL_EXPORTER_OTLP_*` in
 * `process.env` themselves. Returns `undefined` when nothing is exported (then nothing is
 * recorded either).
 *
 * @example
 * const otel = startOtelFromEnv(process.env, { serviceName: 'my-gateway', log: logger });
 * // … serve …
 * await otel?.shutdown({ timeoutMs: 5_000 });
 */
export function startOtelFromEnv(env: OtelEnv, options: StartOtelOptions = {}): OtelHandle | undefined {
  const settings = readOtelSettings(env);
  for (const problem of settings.problems) options.log?.warn({}, `OpenTelemetry: ${problem}`);
  if (!settings.traces && settings.metrics === undefined) return undefined;
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector, reading process.env) win over our default name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': options.serviceName ?? 'toolwire-server' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const agents = createExporterAgents(env);
  const failureLog = options.log === undefined ? undefined : createExportFailureLog(options.log);
  const report = (signal: OtelSignal) => (outcome: { code: number; error?: Error }) => {
    // An export cut at shutdown is covered by the one line that says so.
    if ((outcome.error as { code?: unknown } | undefined)?.code === EXPORT_ABANDONED) return;
    failureLog?.(signal, outcome);
  };
  const stops: (() => Promise<void>)[] = [];
  const signals: OtelSignal[] = [];

  if (settings.traces) {
    const exporter = new OTLPTraceExporter({ httpAgentOptions: agents.factory('TRACES') });
    reportExports(exporter, report('traces'));
    const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)], ...spanLimitsOf(env) });
    provider.register();
    stops.push(() => provider.shutdown());
    signals.push('traces');
  }
  if (settings.metrics !== undefined) {
    const exporter = new OTLPMetricExporter({ httpAgentOptions: agents.factory('METRICS') });
    reportExports(exporter, report('metrics'));
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: settings.metrics.intervalMs, exportTimeoutMillis: settings.metrics.timeoutMs });
    const provider = new MeterProvider({ resource, readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    stops.push(() => provider.shutdown());
    signals.push('metrics');
  }

  let stopped: Promise<OtelShutdownResult> | undefined;
  const defaultTimeoutMs = Math.max(settings.exportTimeoutMs.traces, settings.exportTimeoutMs.metrics);
  return {
    signals,
    shutdown(shutdownOptions = {}) {
      stopped ??= stopWithin(stops, shutdownOptions.timeoutMs ?? defaultTimeoutMs).then((result) => {
        // Cut what a hanging or trickling collector still holds; after a flush in time there is nothing left to cut.
        agents.close();
        // Later spans and measurements go to the API's no-op providers, not to stopped ones.
        if (settings.traces) {
          trace.disable();
          context.disable();
          propagation.disable();
        }
        if (settings.metrics !== undefined) metrics.disable();
        if (result === 'timed-out') options.log?.warn({ signals }, `OpenTelemetry: the collector did not take the last ${signals.join(' and ')} in time; they were dropped`);
        return result;
      });
      return stopped;
    },
  };
}

/**
 * The longest span attribute value kept when neither `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`
 * nor `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT` says otherwise (the SDK's own default keeps
 * everything). Attribute values can come from an upstream's answer (`gen_ai.response.model`,
 * `gen_ai.response.id`, up to `limits.upstreamMessageLimitBytes` each), and every span waits
 * in the batch queue while a collector is slow.
 */
export const DEFAULT_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT = 4096;

/**
 * `spanLimits` for the tracer provider, read from `env` (which need not be `process.env`, where
 * the SDK would look): `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`, else
 * `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`, else ours. A value that is not a whole number of at
 * least 0 is left out, as the SDK leaves it out.
 */
function spanLimitsOf(env: OtelEnv): { spanLimits: { attributeValueLengthLimit: number } } {
  const limit = (name: string): number | undefined => {
    const text = (env[name] ?? '').trim();
    if (!/^\d+$/.test(text)) return undefined;
    const value = Number(text);
    return Number.isSafeInteger(value) ? value : undefined;
  };
  const attributeValueLengthLimit = limit('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? limit('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? DEFAULT_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT;
  return { spanLimits: { attributeValueLengthLimit } };
}

/** Runs every stop at once; resolves when all are done or at `timeoutMs`, whichever comes first. Never rejects. */
async function stopWithin(stops: readonly (() => Promise<void>)[], timeoutMs: number): Promise<OtelShutdownResult> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<OtelShutdownResult>((resolve) => {
    timer = setTimeout(() => resolve('timed-out'), Math.max(0, timeoutMs));
  });
  // A stop that fails (an SDK's own error) still counts as done: there is nothing more to wait for.
  const done = Promise.all(stops.map((stop) => stop().catch(() => undefined))).then((): OtelShutdownResult => 'flushed');
  try {
    return await Promise.race([done, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
