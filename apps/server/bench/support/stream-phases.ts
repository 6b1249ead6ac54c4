// Where a target's time to first token goes, per request, from Node's HTTP diagnostics
// channels (the same for every target, and nothing per streamed chunk): from the client
// request's arrival to the target's first upstream request, from that request to the
// upstream's response headers, from those to the first byte written back; and how many
// upstream requests each client request took (more than one = the SDK retried) and how
// many failed. The upstream request is tied to the client request it serves through an
// AsyncLocalStorage entered when the client request arrives.
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';

const acceptedAt = new WeakMap<object, number>();
subscribe('net.server.socket', (message) => {
  acceptedAt.set((message as { socket: object }).socket, performance.now());
});

interface Phases {
  /** When the client sent it until the target accepted its connection. */
  sentToAccept: number;
  /** When the client sent it (its clock: `x-bench-sent-at`, ms since the epoch; same machine) until it arrived here. */
  sentToArrival: number;
  arrivedAt: number;
  upstreamAt: number;
  upstreamHeadersAt: number;
  firstWriteAt: number;
  upstreamRequests: number;
}

/** Percentiles (ms) of one phase over the requests measured. */
export interface PhaseSummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** What `phaseReport` returns. */
export interface PhaseReport {
  requests: number;
  /** Upstream requests made for them (retries included). */
  upstreamRequests: number;
  /** Client requests that took more than one upstream request. */
  retried: number;
  /** Upstream requests that failed (socket errors, resets, timeouts). */
  upstreamErrors: number;
  upstreamErrorCodes: Record<string, number>;
  /** From the client sending the request (its clock) to its arrival here (the HTTP parser done with its head). */
  sentToArrival: PhaseSummary;
  sentToAccept: PhaseSummary;
  /** Arrivals per second from the first (a throttled intake shows as a flat rate). */
  arrivalsPerSecond: number[];
  toUpstream: PhaseSummary;
  upstreamHeaders: PhaseSummary;
  toFirstWrite: PhaseSummary;
  arrivalToFirstWrite: PhaseSummary;
}

const store = new AsyncLocalStorage<Phases>();
let measured: Phases[] = [];
let upstreamErrors = 0;
let upstreamErrorCodes: Record<string, number> = {};
const byRequest = new WeakMap<ClientRequest, Phases>();

subscribe('http.server.request.start', (message) => {
  const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
  if (request.url?.endsWith('/chat/completions') !== true) return;
  const sentAt = Number(request.headers['x-bench-sent-at']);
  const arrivedAt = performance.now();
  const accepted = acceptedAt.get(request.socket) ?? Number.NaN;
  const phases: Phases = { sentToAccept: performance.timeOrigin + accepted - sentAt, sentToArrival: performance.timeOrigin + arrivedAt - sentAt, arrivedAt, upstreamAt: Number.NaN, upstreamHeadersAt: Number.NaN, firstWriteAt: Number.NaN, upstreamRequests: 0 };
  measured.push(phases);
  // Published synchronously before the server's 'request' event: the handler runs in this store.
  store.enterWith(phases);
  const write = response.write.bind(response) as (...args: unknown[]) => boolean;
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  const firstWrite = (): void => {
    if (Number.isNaN(phases.firstWriteAt)) phases.firstWriteAt = performance.now();
    (response as { write: unknown }).write = write;
    (response as { end: unknown }).end = end;
  };
  (response as { write: unknown }).write = (...args: unknown[]) => {
    firstWrite();
    return write(...args);
  };
  (response as { end: unknown }).end = (...args: unknown[]) => {
    firstWrite();
    return end(...args);
  };
});

subscribe('http.client.request.start', (message) => {
  const phases = store.getStore();
  if (phases === undefined) return;
  const { request } = message as { request: ClientRequest };
  byRequest.set(request, phases);
  phases.upstreamRequests++;
  if (Number.isNaN(phases.upstreamAt)) phases.upstreamAt = performance.now();
});

subscribe('http.client.response.finish', (message) => {
  const { request } = message as { request: ClientRequest };
  const phases = byRequest.get(request);
  if (phases !== undefined && Number.isNaN(phases.upstreamHeadersAt)) phases.upstreamHeadersAt = performance.now();
});

subscribe('http.client.request.error', (message) => {
  const { error } = message as { error: NodeJS.ErrnoException };
  upstreamErrors++;
  const code = error.code ?? error.name;
  upstreamErrorCodes[code] = (upstreamErrorCodes[code] ?? 0) + 1;
});

/** Forgets what was measured so far (the warm-up). */
export function resetPhases(): void {
  measured = [];
  upstreamErrors = 0;
  upstreamErrorCodes = {};
}

function summary(values: number[]): PhaseSummary {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN };
}

function perSecond(times: number[]): number[] {
  const first = Math.min(...times);
  const counts: number[] = [];
  for (const t of times) {
    const second = Math.floor((t - first) / 1000);
    while (counts.length <= second) counts.push(0);
    counts[second]!++;
  }
  return counts;
}

/** The phases of the requests since the last reset. */
export function phaseReport(): PhaseReport {
  return {
    requests: measured.length,
    upstreamRequests: measured.reduce((sum, p) => sum + p.upstreamRequests, 0),
    retried: measured.filter((p) => p.upstreamRequests > 1).length,
    upstreamErrors,
    upstreamErrorCodes,
    sentToArrival: summary(measured.map((p) => p.sentToArrival)),
    sentToAccept: summary(measured.map((p) => p.sentToAccept)),
    arrivalsPerSecond: perSecond(measured.map((p) => p.arrivedAt)),
    toUpstream: summary(measured.map((p) => p.upstreamAt - p.arrivedAt)),
    upstreamHeaders: summary(measured.map((p) => p.upstreamHeadersAt - p.upstreamAt)),
    toFirstWrite: summary(measured.map((p) => p.firstWriteAt - p.upstreamHeadersAt)),
    arrivalToFirstWrite: summary(measured.map((p) => p.firstWriteAt - p.arrivedAt)),
  };
}
