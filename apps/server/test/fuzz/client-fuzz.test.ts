import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createServer } from '../../src/index.ts';
import type { ToolwireServer } from '../../src/index.ts';
import { startPacedUpstream } from '../helpers/paced-upstream.ts';
import type { PacedUpstream, Script } from '../helpers/paced-upstream.ts';
import { answerProblem } from './check-answer.ts';
import type { Api } from './check-answer.ts';
import { buildRequest, clientCase, FUZZ_KEYS } from './client-requests.ts';
import { hashApiKey } from '../../src/index.ts';
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

/** Whether the client hangs up after some bytes of the answer (null: it reads to the end), and how fast the upstream writes. */
const leaving = fc.record({
  afterBytes: fc.oneof({ arbitrary: fc.constant(null), weight: 5 }, { arbitrary: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2000 })), weight: 1 }),
  pauseMs: fc.constantFrom(0, 0, 3),
  copies: fc.constantFrom(1, 1, 2),
});

/** What the scripted model does on a turn without tool results: write text, call the first tool offered, or call every one. */
type ModelHabit = 'text' | 'first-tool' | 'every-tool';

const argumentsFor = (name: string): Record<string, unknown> => (name === 'calculate' ? { expression: '6 * 7' } : name === 'get_current_time' ? { timezone: 'UTC' } : { city: 'Paris' });

function scriptFor(habit: ModelHabit): Script {
  return (request) => {
    if (habit === 'text' || request.toolNames.length === 0 || request.toolResults.length > 0) return { text: 'Done.' };
    const names = habit === 'first-tool' ? request.toolNames.slice(0, 1) : request.toolNames;
    return { toolCalls: names.map((name) => ({ name, arguments: argumentsFor(name) })) };
  };
}

const jsonHeaders = (request: RawRequest): Record<string, string> => ({
  'content-type': 'application/json',
  ...(request.headers.authorization === undefined ? {} : { authorization: request.headers.authorization }),
});

/**
 * The requests a client sends next after a successful answer: a stored response read back
 * and continued (`previous_response_id`); a chat turn's tool calls answered with results
 * (the gateway pairs them with the server tools it ran hidden). What hostile input left in
 * the store or in a turn must not break them either.
 */
function followUps(api: Api, request: RawRequest, answer: RawAnswer): { what: string; request: RawRequest; api: Api }[] {
  if (answer.status !== 200 || !String(answer.headers['content-type']).startsWith('application/json')) return [];
  const body = JSON.parse(answer.body.toString('utf8')) as { id?: unknown; store?: unknown; model?: unknown; choices?: { message?: { tool_calls?: { id: string; function: { name: string } }[] } }[] };
  if (api === 'responses') {
    if (typeof body.id !== 'string' || body.store === false) return [];
    const next = { model: body.model, previous_response_id: body.id, input: 'Go on.' };
    return [
      { what: 'reading the stored response back', api, request: { method: 'GET', path: `/v1/responses/${encodeURIComponent(body.id)}`, headers: jsonHeaders(request) } },
      { what: 'continuing the stored response', api, request: { method: 'POST', path: '/v1/responses', headers: jsonHeaders(request), body: Buffer.from(JSON.stringify(next)) } },
    ];
  }
  const message = body.choices?.[0]?.message;
  const calls = message?.tool_calls ?? [];
  if (calls.length === 0 || request.body === undefined) return [];
  const sent = JSON.parse(request.body.toString('utf8')) as { messages: unknown[] };
  const results = calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: `result of ${call.function.name}` }));
  const next = { ...sent, stream: false, messages: [...sent.messages, message, ...results] };
  return [{ what: 'answering the tool calls', api, request: { method: 'POST', path: '/v1/chat/completions', headers: jsonHeaders(request), body: Buffer.from(JSON.stringify(next)) } }];
}

beforeAll(async () => {
  upstream = await startPacedUpstream({ pauseMs: 0 });
  server = createServer({
    logger: pino({ level: 'silent' }),
    providers: { openai: { baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream' }, ollama: { host: upstream.url } },
    metrics: { enabled: true },
    limits: { upstreamIdleTimeoutMs: 10_000 },
    keys: [
      { id: 'full', keyHash: hashApiKey(FUZZ_KEYS.full) },
      { id: 'limited', keyHash: hashApiKey(FUZZ_KEYS.limited), models: ['openai/*'], tools: ['get_current_time'], alwaysTools: ['get_current_time'], requestsPerMinute: 100_000 },
    ],
  });
  const baseURL = await server.listen({ port: 0, host: '127.0.0.1' });
  origin = baseURL.slice(0, -'/v1'.length);
  const stored = await exchange(
    origin,
    { method: 'POST', path: '/v1/responses', headers: { 'content-type': 'application/json', authorization: `Bearer ${FUZZ_KEYS.full}` }, body: Buffer.from(JSON.stringify({ model: 'openai/gpt-4o-mini', input: 'Hi.', store: true })) },
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
        fc.asyncProperty(clientCase, fc.constantFrom<ModelHabit>('text', 'first-tool', 'every-tool'), leaving, async (testCase, habit, leave) => {
          upstream.reset();
          // A failure belongs to the case it happened in (and a shrunk case must not inherit it).
          watcher.failures.length = 0;
          upstream.pauseMs = leave.pauseMs;
          upstream.script = scriptFor(habit);
          const request = buildRequest(testCase, previousResponseId);
          const started = performance.now();
          const answering = exchange(origin, request, 30_000, leave.afterBytes === null ? {} : { leaveAfterBytes: leave.afterBytes });
          const health = new Promise<string | undefined>((resolve) => setImmediate(() => resolve(healthProblem(origin))));
          const answer = await answering;
          tally.add(answer, performance.now() - started);
          const problems = [answer.left ? undefined : answerProblem(answer, { api: testCase.api, blame: 'client' }), await health].filter((p) => p !== undefined);
          if (problems.length > 0) throw new Error(problems.join('; '));
          await within(5000, 'the gateway kept the client connection open after the answer', answer.socketClosed);
          // Follow-ups go out together, each `leave.copies` times (a client retrying, two tabs): a stored
          // response or a hidden tool turn read by two requests at once.
          const nexts = (answer.left ? [] : followUps(testCase.api, request, answer)).flatMap((next) => Array.from({ length: leave.copies }, () => next));
          const nextStarted = performance.now();
          const nextAnswers = await Promise.all(nexts.map((next) => exchange(origin, next.request, 30_000)));
          for (const [i, nextAnswer] of nextAnswers.entries()) {
            const next = nexts[i]!;
            tally.add(nextAnswer, performance.now() - nextStarted, `${next.what}: `);
            const problem = answerProblem(nextAnswer, { api: next.api, blame: 'client' });
            if (problem !== undefined) throw new Error(`${next.what}: ${problem}`);
          }
          await eventually(5000, () => leftOpen(origin, () => upstream.inFlight));
          if (watcher.failures.length > 0) throw new Error(watcher.failures.join('\n'));
        }),
        fuzzParameters(100),
      );
    },
    fuzzTimeoutMs(90_000),
  );
});
