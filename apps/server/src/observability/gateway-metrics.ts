import type { ToolAuditEvent } from '../tools/audit-event.ts';
import { PrometheusRegistry } from './prometheus-registry.ts';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const TOOL_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30];

/** Read at scrape time: the gauges' sources. */
export interface GatewayMetricsSources {
  /** Server-tool executions running and waiting for a slot (core's registry). */
  toolLoad: () => { active: number; waiting: number };
  /** The registry's concurrency cap. */
  toolSlots: number;
  /** Whether a JavaScript sandbox pool is running (custom tools), and its configured size. */
  sandboxPoolSize: number;
  /** The state backend and whether it is reachable. */
  state: () => { kind: string; available: boolean };
  /** Requests being answered now. */
  inflight: () => number;
}

/** The gateway's Prometheus metrics; `render()` answers `GET /metrics`. */
export interface GatewayMetrics {
  /** False for `DISABLED_GATEWAY_METRICS`: callers may skip the work of measuring. */
  readonly enabled: boolean;
  /** A finished HTTP exchange; `route` is the matched route pattern (never the raw URL). */
  request(route: string, method: string, status: number, seconds: number): void;
  streamOpened(): void;
  streamClosed(): void;
  /** Time from the request to the first streamed chunk. */
  firstChunk(seconds: number): void;
  /** A stream that ended with error frames after its 200; `type` is the frames' error type (`upstream_error`, `server_error`, …). */
  streamFailed(route: string, type: string): void;
  /** Tokens reported by a provider for one client request (all steps). */
  tokens(provider: string, input: number, output: number): void;
  /** A server-tool execution, from its audit event (unknown tool names are folded into `(unknown)`). */
  toolExecution(event: ToolAuditEvent, known: boolean): void;
  /** A sandbox run of a custom tool (its outcome, e.g. `ok`, `timeout`, `memory`). */
  sandboxRun(outcome: string): void;
  render(): string;
}

/** Creates the metrics of one server. */
export function createGatewayMetrics(sources: GatewayMetricsSources): GatewayMetrics {
  const registry = new PrometheusRegistry();
  const requests = registry.counter('toolwire_http_requests_total', 'HTTP requests answered, by route, method and status.', ['route', 'method', 'status']);
  const latency = registry.histogram('toolwire_http_request_duration_seconds', 'Time from request to the end of the response (a stream to its last byte).', LATENCY_BUCKETS, ['route']);
  const firstChunk = registry.histogram('toolwire_stream_first_chunk_seconds', 'Time from request to the first streamed chunk (time to first token, as seen by the gateway).', LATENCY_BUCKETS);
  const streamErrors = registry.counter('toolwire_stream_errors_total', 'Streams that ended with an error frame after their 200, by route and error type.', ['route', 'type']);
  const tokens = registry.counter('toolwire_model_tokens_total', 'Tokens reported by providers, by provider and type (input, output).', ['provider', 'type']);
  const tools = registry.counter('toolwire_tool_executions_total', 'Server-tool executions by tool and outcome (success or the error type).', ['tool', 'outcome']);
  const toolTime = registry.histogram('toolwire_tool_execution_duration_seconds', 'Server-tool run time after getting a slot.', TOOL_BUCKETS, ['tool']);
  const sandbox = registry.counter('toolwire_sandbox_runs_total', 'JavaScript sandbox runs of custom tools, by outcome.', ['outcome']);
  let openStreams = 0;
  registry.gauge('toolwire_open_streams', 'SSE streams open now.', () => [{ labels: [], value: openStreams }]);
  registry.gauge('toolwire_requests_in_flight', 'Model requests being answered now.', () => [{ labels: [], value: sources.inflight() }]);
  registry.gauge('toolwire_tool_slots', 'Server-tool concurrency: slots in use, calls waiting, and the cap.', () => {
    const load = sources.toolLoad();
    return [
      { labels: ['active'], value: load.active },
      { labels: ['waiting'], value: load.waiting },
      { labels: ['max'], value: sources.toolSlots },
    ];
  }, ['state']);
  registry.gauge('toolwire_sandbox_pool_workers', 'Configured JavaScript sandbox worker processes (0 without custom tools).', () => [{ labels: [], value: sources.sandboxPoolSize }]);
  registry.gauge('toolwire_state_up', 'Whether the state backend is reachable (1) or not (0).', () => {
    const state = sources.state();
    return [{ labels: [state.kind], value: state.available ? 1 : 0 }];
  }, ['backend']);

  return {
    enabled: true,
    request(route, method, status, seconds) {
      requests.inc([route, method, String(status)]);
      latency.observe([route], seconds);
    },
    streamOpened() {
      openStreams++;
    },
    streamClosed() {
      openStreams--;
    },
    firstChunk(seconds) {
      firstChunk.observe([], seconds);
    },
    streamFailed(route, type) {
      streamErrors.inc([route, type]);
    },
    tokens(provider, input, output) {
      if (input > 0) tokens.inc([provider, 'input'], input);
      if (output > 0) tokens.inc([provider, 'output'], output);
    },
    toolExecution(event, known) {
      const tool = known ? event.tool : '(unknown)';
      tools.inc([tool, event.errorType ?? event.outcome]);
      toolTime.observe([tool], event.durationMs / 1000);
    },
    sandboxRun(outcome) {
      sandbox.inc([outcome]);
    },
    render: () => registry.render(),
  };
}

const ignore = (): void => undefined;

/** The metrics of a server without `metrics.enabled`: nothing is counted, so nothing costs. */
export const DISABLED_GATEWAY_METRICS: GatewayMetrics = {
  enabled: false,
  request: ignore,
  streamOpened: ignore,
  streamClosed: ignore,
  firstChunk: ignore,
  streamFailed: ignore,
  tokens: ignore,
  toolExecution: ignore,
  sandboxRun: ignore,
  render: () => '',
};
