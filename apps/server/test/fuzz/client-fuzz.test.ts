import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/index.ts';
import type { ToolwireServer } from '../../src/index.ts';
import { startPacedUpstream } from '../helpers/paced-upstream.ts';
import type { PacedUpstream, Script } from '../helpers/paced-upstream.ts';
import { answerProblem } from './check-answer.ts';
import { buildRequest, clientCase } from './client-requests.ts';
import { OutcomeTally } from './outcome-tally.ts';
import { fuzzParameters, fuzzTimeoutMs } from './fuzz-settings.ts';
import { healthProblem, leftOpen } from './gateway-probes.ts';
import { eventually, exchange, watchProcess, within } from './raw-exchange.ts';

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
          await eventually(5000, () => leftOpen(origin, () => upstream.inFlight));
          expect(watcher.failures).toEqual([]);
        }),
        fuzzParameters(40),
      );
    },
    fuzzTimeoutMs(90_000),
  );
});
