import { exchange } from './raw-exchange.ts';

/** The value of one unlabelled gauge in the gateway's Prometheus text. */
function gauge(text: string, name: string): number | undefined {
  for (const line of text.split('\n')) if (line.startsWith(`${name} `)) return Number(line.slice(name.length + 1));
  return undefined;
}

/**
 * What the gateway still holds after a case, as its own `/metrics` reports it (open SSE
 * streams, model requests in flight) plus the stand-in upstream's open responses; undefined
 * once all are back to zero.
 */
export async function leftOpen(origin: string, upstreamInFlight: () => number): Promise<string | undefined> {
  const metrics = await exchange(origin, { method: 'GET', path: '/metrics', headers: {} }, 10_000);
  const text = metrics.body.toString('utf8');
  const streams = gauge(text, 'toolwire_open_streams');
  const inFlight = gauge(text, 'toolwire_requests_in_flight');
  const upstream = upstreamInFlight();
  if (streams === 0 && inFlight === 0 && upstream === 0) return undefined;
  return `requests outlived their responses: ${streams} open streams, ${inFlight} model requests in flight, ${upstream} upstream responses open`;
}

/** `/healthz`, sent while a case runs: the event loop must still answer (within a generous bound). */
export async function healthProblem(origin: string): Promise<string | undefined> {
  try {
    const answer = await exchange(origin, { method: 'GET', path: '/healthz', headers: {} }, 10_000);
    return answer.status === 200 ? undefined : `/healthz answered ${answer.status} during a case`;
  } catch (error) {
    return `/healthz during a case: ${(error as Error).message}`;
  }
}
