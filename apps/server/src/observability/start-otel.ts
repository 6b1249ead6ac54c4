import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** A started tracing SDK; `shutdown` flushes the spans still buffered. */
export interface OtelHandle {
  shutdown(): Promise<void>;
}

/**
 * Whether the standard `OTEL_*` variables ask for OTLP traces: `OTEL_TRACES_EXPORTER`
 * naming `otlp`, or (with it unset) an `OTEL_EXPORTER_OTLP_ENDPOINT` /
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`. `OTEL_SDK_DISABLED=true` wins over both.
 */
export function wantsOtlpTraces(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER;
  if (exporters !== undefined && exporters.trim() !== '') {
    return exporters
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .includes('otlp');
  }
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint !== undefined && endpoint.trim() !== '';
}

/**
 * Registers a Node tracing SDK that sends spans over OTLP/HTTP when the environment asks
 * for it (`wantsOtlpTraces`); the exporter reads the endpoint, headers, timeout and
 * protocol options from the standard `OTEL_EXPORTER_OTLP_*` variables itself. The service
 * is `toolwire-server` unless `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` say
 * otherwise. Returns `undefined` when tracing stays off (then nothing is recorded).
 */
export function startOtelFromEnv(env: Readonly<Record<string, string | undefined>>): OtelHandle | undefined {
  if (!wantsOtlpTraces(env)) return undefined;
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector, reading process.env) win over our default name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'toolwire-server' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register();
  return { shutdown: () => provider.shutdown() };
}
