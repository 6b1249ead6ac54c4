import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/index.ts';
import type { ToolwireServer } from '../../src/index.ts';
import { startPacedUpstream } from '../helpers/paced-upstream.ts';
import type { PacedUpstream, Script } from '../helpers/paced-upstream.ts';
import { answerProblem } from './check-answer.ts';
import type { Api } from './check-answer.ts';
import { buildRequest, clientCase } from './client-requests.ts';
import { OutcomeTally } from './outcome-tally.ts';
import { fuzzParameters, fuzzTimeoutMs } from './fuzz-settings.ts';
import { healthProblem, leftOpen } from './gateway-probes.ts';
import { eventually, exchange, watchProcess, within } from './raw-exchange.ts';
import type { RawAnswer, RawRequest } from './raw-exchange.ts';

// The real gateway in this process (so a crash is an uncaught exception seen here), the
// stand-in upstream behind it on 127.0.0.1, and requests over real HTTP built from the shapes
// real clients send, then mutated.

let upstream: PacedUpstream;
let server: ToolwireServer;
let origin: string;
let previousResponseId: string;
const watcher = watchProcess();
const tally = new OutcomeTally();

/** The model: calls the first tool it was offered (once per conversation) when told to, else writes text. */
function scriptFor(callTools: boolean): Script {
  return (request) => {
    const first = request.toolNames[0];
    if (!callTools || first === undefined || request.toolResults.length > 0) return { text: 'Done.' };
    const args = first === 'calculate' ? { expression: '6 * 7' } : first === 'get_current_time' ? { timezone: 'UTC' } : { city: 'Paris' };
    return { toolCalls: [{ name: first, arguments: args }] };
  };
}

/** The id of a response a non-streamed Responses request stored, if it did. */
function storedResponseId(api: Api, answer: RawAnswer): string | undefined {
  if (api !== 'responses' || answer.status !== 200 || !String(answer.headers['content-type']).startsWith('application/json')) return undefined;
  const body = JSON.parse(answer.body.toString('utf8')) as { id?: unknown; store?: unknown };
  return typeof body.id === 'string' && body.store !== false ? body.id : undefined;
}

/** A follow-up turn on a stored response. */
function continuation(model: string, previous: string): RawRequest {
  const body = { model, previous_response_id: previous, input: 'Go on.' };
  return { method: 'POST', path: '/v1/responses', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) };
}

beforeAll(async () => {
  upstream = await startPacedUpstream({ pauseMs: 0 });
  server = createServer({
    logger: pino({ level: 'silent' }),
    providers: { openai: { baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream' }, ollama: { host: upstream.url } },
    metrics: { enabled: true },
    limits: { upstreamIdleTimeoutMs: 10_000 },
  });
  const baseURL = await server.listen({ port: 0, host: '127.0.0.1' });
  origin = baseURL.slice(0, -'/v1'.length);
  const stored = await exchange(
    origin,
    { method: 'POST', path: '/v1/responses', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ model: 'openai/gpt-4o-mini', input: 'Hi.', store: true })) },
    10_000,
  );
  previousResponseId = (JSON.parse(stored.body.toString('utf8')) as { id: string }).id;
}, 30_000);

afterAll(async () => {
  await server.close();
  await upstream.close();
  watcher.stop();
  tally.print('client fuzz outcomes (status, error code):');
});

describe('the gateway under generated client requests', () => {
  it(
    'answers every mutation of a real client request with a usable answer or an actionable 4xx, never crashing, hanging or leaking',
    async () => {
      await fc.assert(
        fc.asyncProperty(clientCase, fc.boolean(), async (testCase, callTools) => {
          upstream.reset();
          upstream.pauseMs = 0;
          upstream.script = scriptFor(callTools);
          const request = buildRequest(testCase, previousResponseId);
          const started = performance.now();
          const answering = exchange(origin, request, 30_000);
          const health = new Promise<string | undefined>((resolve) => setImmediate(() => resolve(healthProblem(origin))));
          const answer = await answering;
          tally.add(answer, performance.now() - started);
          const problems = [answerProblem(answer, { api: testCase.api, blame: 'client' }), await health].filter((p) => p !== undefined);
          if (problems.length > 0) throw new Error(problems.join('; '));
          await within(5000, 'the gateway kept the client connection open after the answer', answer.socketClosed);
          const stored = storedResponseId(testCase.api, answer);
          if (stored !== undefined) {
            // What the request stored is read back, and continued: hostile input kept in the store must not break either.
            const read = await exchange(origin, { method: 'GET', path: `/v1/responses/${encodeURIComponent(stored)}`, headers: {} }, 30_000);
            const readProblem = read.status === 200 ? undefined : answerProblem(read, { api: 'responses', blame: 'client' });
            if (readProblem !== undefined) throw new Error(`reading the stored response back: ${readProblem}`);
            const next = await exchange(origin, continuation(testCase.model, stored), 30_000);
            const nextProblem = answerProblem(next, { api: 'responses', blame: 'client' });
            if (nextProblem !== undefined) throw new Error(`continuing the stored response: ${nextProblem}`);
          }
          await eventually(5000, () => leftOpen(origin, () => upstream.inFlight));
          expect(watcher.failures).toEqual([]);
        }),
        fuzzParameters(40),
      );
    },
    fuzzTimeoutMs(90_000),
  );
});
