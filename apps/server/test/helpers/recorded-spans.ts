import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll } from 'vitest';

/**
 * Records every span of the test file in memory: registers a tracer provider before the
 * file's tests and takes it down after them (the global tracer and context manager
 * disabled again, so the next file starts without one). Call at the top of a file or a
 * `describe`; read and reset the returned exporter in the tests.
 */
export function recordSpans(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    provider.register();
  });
  afterAll(async () => {
    trace.disable();
    context.disable();
    await provider.shutdown();
  });
  return exporter;
}
