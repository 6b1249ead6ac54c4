import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatGPT } from '@toolwire/provider-chatgpt-oauth';
import { createServer } from '../../src/index.ts';
import { createNodeHttpFetch } from '../../src/models/node-http-fetch.ts';
import type { ToolwireServer } from '../../src/index.ts';
import { startAuthServer } from '../../../../packages/provider-chatgpt-oauth/test/helpers/auth-server.ts';
import { writeChatGPTSignIn } from './chatgpt-sign-in.ts';
import { answerProblem, envelopeProblem } from './check-answer.ts';
import type { Api } from './check-answer.ts';
import { fuzzParameters, fuzzTimeoutMs } from './fuzz-settings.ts';
import { FUZZ_UPSTREAM_MODELS, startFuzzUpstream } from './fuzz-upstream.ts';
import type { FuzzUpstream } from './fuzz-upstream.ts';
import { healthProblem, leftOpen } from './gateway-probes.ts';
import { OutcomeTally } from './outcome-tally.ts';
import { eventually, exchange, watchProcess, within } from './raw-exchange.ts';
import type { RawRequest } from './raw-exchange.ts';
import { answerFor, baseAnswers, delivery, eventMutation, MODEL_LISTS, mutateEvents } from './upstream-traffic.ts';
import type { Dialect } from './upstream-traffic.ts';

// The real gateway in this process, in front of a stand-in that answers every model request
// with a mutation of real upstream traffic (OpenAI SSE, Ollama NDJSON, Codex Responses SSE):
// events cut, dropped, duplicated, reordered, retyped; invalid UTF-8; resets; HTML bodies.

let upstream: FuzzUpstream;
let server: ToolwireServer;
let origin: string;
let dir: string;
let auth: Awaited<ReturnType<typeof startAuthServer>>;
const watcher = watchProcess();
const tally = new OutcomeTally();

const UPSTREAM_IDLE_TIMEOUT_MS = 3000;

const ROUTES: readonly { model: string; dialect: Dialect }[] = [
  { model: `openai/${FUZZ_UPSTREAM_MODELS.openai}`, dialect: 'openai' },
  { model: `ollama/${FUZZ_UPSTREAM_MODELS.ollamaNative}`, dialect: 'ollama' },
  { model: `ollama/${FUZZ_UPSTREAM_MODELS.ollamaText}`, dialect: 'ollama' },
  { model: `chatgpt/${FUZZ_UPSTREAM_MODELS.chatgpt}`, dialect: 'responses' },
];

const weatherParameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

/** A valid client request for one case (the upstream's answer is what is fuzzed). */
function clientRequest(api: Api, model: string, stream: boolean, serverTool: boolean): RawRequest {
  const body =
    api === 'chat'
      ? {
          model,
          messages: [{ role: 'user', content: 'Weather in Paris, and 6 * 7?' }],
          tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherParameters } }, ...(serverTool ? [{ type: 'function', function: { name: 'calculate' } }] : [])],
          stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
        }
      : {
          model,
          input: [{ role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris, and 6 * 7?' }] }],
          tools: [{ type: 'function', name: 'get_weather', parameters: weatherParameters }, ...(serverTool ? [{ type: 'function', name: 'calculate' }] : [])],
          stream,
          store: false,
        };
  return { method: 'POST', path: api === 'chat' ? '/v1/chat/completions' : '/v1/responses', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) };
}

const upstreamCase = fc.record({
  api: fc.constantFrom<Api>('chat', 'responses'),
  route: fc.nat(ROUTES.length - 1),
  stream: fc.boolean(),
  serverTool: fc.boolean(),
  base: fc.nat(),
  mutations: fc.array(eventMutation, { maxLength: 5 }),
  delivery,
  /** The client hangs up after this many bytes of the answer (null: it reads to the end). */
  leaveAfterBytes: fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: fc.integer({ min: 0, max: 1500 }), weight: 1 }),
  /** How many clients send the request at once (the first one hangs up when `leaveAfterBytes` says so). */
  clients: fc.oneof({ arbitrary: fc.constant(1), weight: 4 }, { arbitrary: fc.integer({ min: 2, max: 4 }), weight: 1 }),
});

beforeAll(async () => {
  upstream = await startFuzzUpstream();
  auth = await startAuthServer();
  dir = await mkdtemp(join(tmpdir(), 'toolwire-upstream-fuzz-'));
  const authFile = await writeChatGPTSignIn(dir, auth);
  const chatgpt = createChatGPT({
    auth: { path: authFile, issuer: auth.url },
    baseURL: upstream.url,
    fetch: createNodeHttpFetch({ maxSockets: Infinity, idleTimeoutMs: UPSTREAM_IDLE_TIMEOUT_MS }),
    maxMessageBytes: 0,
    maxRetries: 1,
    streamMaxRetries: 1,
  });
  server = createServer({
    logger: pino({ level: 'silent' }),
    providers: {
      openai: { baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream' },
      ollama: { host: upstream.url },
    },
    // The ChatGPT provider as `providers.chatgpt` builds it, with one retry where it makes five
    // (a stream dropped before any output is sent again after 0.25, 0.5, 1, 2 and 4 s): the
    // retries are not what is fuzzed, and they would spend most of the test's time waiting.
    modelProviders: [
      {
        name: 'chatgpt',
        chat: (id) => chatgpt.chat(id),
        listModels: () => Promise.resolve([FUZZ_UPSTREAM_MODELS.chatgpt]),
      },
    ],
    metrics: { enabled: true },
    limits: { upstreamIdleTimeoutMs: UPSTREAM_IDLE_TIMEOUT_MS, maxSteps: 3 },
  });
  const baseURL = await server.listen({ port: 0, host: '127.0.0.1' });
  origin = baseURL.slice(0, -'/v1'.length);
}, 30_000);

afterAll(async () => {
  await server.close();
  await upstream.close();
  await auth.close();
  await rm(dir, { recursive: true, force: true });
  watcher.stop();
  tally.print('upstream fuzz outcomes (status, error code):');
});

describe('the gateway in front of a generated hostile upstream', () => {
  it(
    'answers every client with a usable answer or a well-formed upstream error, never crashing, hanging or leaking',
    async () => {
      await fc.assert(
        fc.asyncProperty(upstreamCase, async (testCase) => {
          const route = ROUTES[testCase.route]!;
          upstream.reset();
          // A failure belongs to the case it happened in (and a shrunk case must not inherit it).
          watcher.failures.length = 0;
          upstream.answer = ({ dialect, stream }) => {
            const bases = baseAnswers(dialect, stream);
            const events = mutateEvents(bases[testCase.base % bases.length]!, testCase.mutations);
            return answerFor(dialect, stream, events, testCase.delivery);
          };
          const started = performance.now();
          // The same request from `clients` clients at once: shared state (caches, slots, pools) meets the failure together.
          const answering = Array.from({ length: testCase.clients }, (_, i) =>
            exchange(origin, clientRequest(testCase.api, route.model, testCase.stream, testCase.serverTool), 30_000, testCase.leaveAfterBytes === null || i > 0 ? {} : { leaveAfterBytes: testCase.leaveAfterBytes }),
          );
          const health = new Promise<string | undefined>((resolve) => setImmediate(() => resolve(healthProblem(origin))));
          const answers = await Promise.all(answering);
          for (const answer of answers) tally.add(answer, performance.now() - started);
          const problems = [...answers.map((answer) => (answer.left ? undefined : answerProblem(answer, { api: testCase.api, blame: 'upstream' }))), await health].filter((p) => p !== undefined);
          if (problems.length > 0) throw new Error(problems.join('; '));
          for (const answer of answers) await within(5000, 'the gateway kept the client connection open after the answer', answer.socketClosed);
          await eventually(5000, () => leftOpen(origin, () => upstream.inFlight));
          if (watcher.failures.length > 0) throw new Error(watcher.failures.join('\n'));
        }),
        fuzzParameters(50),
      );
    },
    fuzzTimeoutMs(90_000),
  );

  it(
    'lists models whatever the upstreams answer to their model lists, leaving out what it cannot read',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(eventMutation, { maxLength: 5 }), delivery, async (mutations, how) => {
          watcher.failures.length = 0;
          upstream.listAnswer = (api) => answerFor(api, false, mutateEvents(MODEL_LISTS[api], mutations), how);
          try {
            const started = performance.now();
            const answer = await exchange(origin, { method: 'GET', path: '/v1/models', headers: {} }, 30_000);
            tally.add(answer, performance.now() - started, 'GET /v1/models: ');
            const text = answer.body.toString('utf8');
            if (answer.status !== 200) {
              const problem = envelopeProblem(JSON.parse(text));
              throw new Error(`GET /v1/models answered ${answer.status}${problem === undefined ? '' : `: ${problem}`} (${text.slice(0, 300)})`);
            }
            const list = JSON.parse(text) as { object?: unknown; data?: { id?: unknown; object?: unknown }[] };
            expect(list.object).toBe('list');
            for (const model of list.data ?? []) {
              expect(typeof model.id).toBe('string');
              expect(model.object).toBe('model');
            }
            await within(5000, 'the gateway kept the client connection open after the answer', answer.socketClosed);
            await eventually(5000, () => leftOpen(origin, () => upstream.inFlight));
            if (watcher.failures.length > 0) throw new Error(watcher.failures.join('\n'));
          } finally {
            upstream.listAnswer = undefined;
          }
        }),
        fuzzParameters(20),
      );
    },
    fuzzTimeoutMs(60_000),
  );
});
