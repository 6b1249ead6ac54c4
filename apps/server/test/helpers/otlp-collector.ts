import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/**
 * How the collector answers an export:
 * - `ok`: 200 with an empty OTLP response, after reading the body;
 * - `hang`: reads the body, then never answers (the connection stays open until `release()`);
 * - `unavailable`: 503 with `Retry-After: 30`;
 * - `reset`: resets the TCP connection once the request has arrived, before any answer;
 * - `trickle`: 200 with headers promising 1 MB, then one byte every 200 ms, never ending.
 */
export type CollectorMode = 'ok' | 'hang' | 'unavailable' | 'reset' | 'trickle';

/** One export request as it arrived. */
export interface ReceivedExport {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as text (OTLP/JSON: the http exporters send JSON). */
  text: string;
  body: unknown;
}

/** A real OTLP/HTTP receiver on 127.0.0.1 (`/v1/traces`, `/v1/metrics`). */
export interface OtlpCollector {
  /** `http://127.0.0.1:<port>`, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  mode: CollectorMode;
  /** Every export that arrived whole, whatever the answer. */
  received: ReceivedExport[];
  /** Exports answered 200 (in `ok` mode, or released). */
  accepted: ReceivedExport[];
  /** Requests held open now (`hang`, `trickle`). */
  readonly held: number;
  /** Answers every held request with 200 and switches to `ok`. */
  release(): void;
  close(): Promise<void>;
}

/** An attribute in OTLP/JSON: `{ key, value: { stringValue | intValue | … } }`. */
export interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  status?: { code?: number };
}

export interface OtlpMetric {
  name: string;
  unit?: string;
  histogram?: { dataPoints: { attributes?: OtlpAttribute[]; count: number | string; sum?: number; explicitBounds?: number[]; bucketCounts?: (number | string)[] }[] };
}

interface TracesBody {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[] }[];
}
interface MetricsBody {
  resourceMetrics?: { resource?: { attributes?: OtlpAttribute[] }; scopeMetrics?: { scope?: { name?: string }; metrics?: OtlpMetric[] }[] }[];
}

/** Every span in the accepted trace exports, with its scope and resource attributes. */
export function spansOf(exports: readonly ReceivedExport[]): (OtlpSpan & { scope: string; resource: OtlpAttribute[] })[] {
  return exports
    .filter((e) => e.path === '/v1/traces')
    .flatMap((e) =>
      ((e.body as TracesBody).resourceSpans ?? []).flatMap((rs) =>
        (rs.scopeSpans ?? []).flatMap((ss) => (ss.spans ?? []).map((span) => ({ ...span, scope: ss.scope?.name ?? '', resource: rs.resource?.attributes ?? [] }))),
      ),
    );
}

/** Every metric in the accepted metric exports, with its scope. */
export function metricsOf(exports: readonly ReceivedExport[]): (OtlpMetric & { scope: string })[] {
  return exports
    .filter((e) => e.path === '/v1/metrics')
    .flatMap((e) => ((e.body as MetricsBody).resourceMetrics ?? []).flatMap((rm) => (rm.scopeMetrics ?? []).flatMap((sm) => (sm.metrics ?? []).map((metric) => ({ ...metric, scope: sm.scope?.name ?? '' })))));
}

/** OTLP/JSON attributes as a plain object (`intValue` arrives as a string or a number). */
export function attributesOf(attributes: readonly OtlpAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of attributes ?? []) {
    if ('stringValue' in value) out[key] = value.stringValue;
    else if ('intValue' in value) out[key] = Number(value.intValue);
    else if ('doubleValue' in value) out[key] = value.doubleValue;
    else if ('boolValue' in value) out[key] = value.boolValue;
    else if ('arrayValue' in value) out[key] = ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map((v) => v.stringValue ?? v.intValue ?? v.doubleValue);
  }
  return out;
}

/** Starts a collector on a free loopback port. */
export async function startOtlpCollector(mode: CollectorMode = 'ok'): Promise<OtlpCollector> {
  const received: ReceivedExport[] = [];
  const accepted: ReceivedExport[] = [];
  const held = new Set<{ res: ServerResponse; exported: ReceivedExport }>();
  const trickles = new Set<NodeJS.Timeout>();
  const answerOk = (res: ServerResponse, exported: ReceivedExport): void => {
    accepted.push(exported);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const exported: ReceivedExport = { path: req.url ?? '', headers: req.headers, text, body };
      received.push(exported);
      if (req.url !== '/v1/traces' && req.url !== '/v1/metrics') {
        res.writeHead(404).end();
        return;
      }
      switch (collector.mode) {
        case 'ok':
          answerOk(res, exported);
          return;
        case 'hang': {
          const entry = { res, exported };
          held.add(entry);
          res.on('close', () => held.delete(entry));
          return;
        }
        case 'unavailable':
          res.writeHead(503, { 'retry-after': '30', 'content-type': 'text/plain' });
          res.end('collector overloaded');
          return;
        case 'reset':
          req.socket.resetAndDestroy();
          return;
        case 'trickle': {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1024 * 1024) });
          const timer = setInterval(() => res.write(' '), 200);
          trickles.add(timer);
          const entry = { res, exported };
          held.add(entry);
          res.on('close', () => {
            clearInterval(timer);
            trickles.delete(timer);
            held.delete(entry);
          });
          return;
        }
        default: {
          const unexpected: never = collector.mode;
          throw new Error(`unknown mode ${String(unexpected)}`);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const collector: OtlpCollector = {
    url: `http://127.0.0.1:${String(address.port)}`,
    mode,
    received,
    accepted,
    get held() {
      return held.size;
    },
    release() {
      collector.mode = 'ok';
      for (const entry of held) {
        if (!entry.res.headersSent) answerOk(entry.res, entry.exported);
      }
      held.clear();
    },
    close: () =>
      new Promise((resolve) => {
        for (const timer of trickles) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return collector;
}
