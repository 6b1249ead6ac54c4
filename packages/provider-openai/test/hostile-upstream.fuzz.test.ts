// Fuzzing the OpenAI provider used as a library: a stand-in upstream on 127.0.0.1 answers the
// real `openai` SDK with mutations of recorded Chat Completions and Responses traffic (events
// dropped, duplicated, reordered, fields of the wrong type, tool-call indexes and ids gone
// wrong, garbage bytes, cuts, resets, held connections) and error replies of every shape.
// Each case must end within a bound with documented values or a typed Toolwire error, leave
// no connection open and nothing unhandled, and show the API key in no message.
// `pnpm fuzz` runs many more cases (see the README).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { functionCallEvents, functionCallItem, responseObject } from '@toolwire/openai-responses/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { callsStream, completion, roleChunk, textStream, usageChunk } from './chat-wire.ts';
import { fuzzParameters, fuzzTimeout } from '../../../test/fuzz/fuzz-parameters.ts';
import { errorReply, framesFromLines, mutatedReply } from '../../../test/fuzz/hostile-traffic.ts';
import type { Frame, UpstreamReply } from '../../../test/fuzz/hostile-traffic.ts';
import { startHostileUpstream } from '../../../test/fuzz/hostile-upstream.ts';
import type { HostileUpstream } from '../../../test/fuzz/hostile-upstream.ts';
import { exerciseModel } from '../../../test/fuzz/outcome.ts';
import type { CallMode } from '../../../test/fuzz/outcome.ts';

const API_KEY = 'sk-fuzz-0123456789abcdefSECRET';
const fixture = (name: string): string => readFileSync(new URL(`../src/__fixtures__/${name}`, import.meta.url), 'utf8');
const responsesFixture = (name: string): string => readFileSync(new URL(`../../openai-responses/src/__fixtures__/${name}`, import.meta.url), 'utf8');

const DONE: Frame = { raw: '[DONE]' };
const values = (list: unknown[]): Frame[] => list.map((value) => ({ value }));

const chatStreams: Frame[][] = [
  [...framesFromLines(fixture('groq-tool-call.chunks.txt')), DONE],
  [...framesFromLines(fixture('deepseek-tool-call.chunks.txt')), DONE],
  [...framesFromLines(fixture('xai-tool-call.chunks.txt')), DONE],
  [...framesFromLines(fixture('openai-text.chunks.txt')), DONE],
  [
    ...values([roleChunk(), ...textStream(['Let me ', 'look.'])]),
    ...values(
      callsStream([
        { id: 'call_a', name: 'get_weather', fragments: ['{"ci', 'ty":"Pa', 'ris"}'] },
        { id: 'call_b', name: 'search', fragments: ['{"q":', '"x"}'] },
      ]),
    ),
    { value: usageChunk() },
    DONE,
  ],
];

const chatBodies: Frame[][] = [
  [{ value: completion({ content: 'Hello.' }) }],
  [
    {
      value: completion(
        {
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } },
          ],
        },
        'tool_calls',
      ),
    },
  ],
];

const responsesStreams: Frame[][] = [
  framesFromLines(responsesFixture('openai-code-interpreter-tool.1.chunks.txt')).slice(0, 40).concat(framesFromLines(responsesFixture('openai-code-interpreter-tool.1.chunks.txt')).slice(-12)),
  framesFromLines(responsesFixture('xai-text-with-reasoning-streaming-store-false.1.chunks.txt')),
  values(
    functionCallEvents(
      [
        { callId: 'call_a', name: 'get_weather', fragments: ['{"ci', 'ty":"Paris"}'] },
        { callId: 'call_b', name: 'search', fragments: ['{"q":"x"}'] },
      ],
      'Checking.',
    ),
  ),
];

const responsesBodies: Frame[][] = [
  [{ value: JSON.parse(responsesFixture('openai-code-interpreter-tool.1.json')) as unknown }],
  [{ value: responseObject('completed', [functionCallItem('call_a', 'get_weather', '{"city":"Paris"}'), functionCallItem('call_b', 'search', '{"q":"x"}')]) }],
];

const tools = [
  { type: 'function' as const, name: 'get_weather', description: 'Weather of a city.', inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } },
  { type: 'function' as const, name: 'search', inputSchema: { type: 'object' as const, properties: { q: { type: 'string' } } } },
];
const request = { messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], tools };

/** A case: one reply, or an error reply, for `generate` or a stream read whole or abandoned. */
function caseOf(streams: Frame[][], bodies: Frame[][], encoding: 'sse' | 'sse-named') {
  const mode: fc.Arbitrary<CallMode> = fc.oneof(
    fc.constant<CallMode>({ kind: 'generate' }),
    { arbitrary: fc.constant<CallMode>({ kind: 'stream' }), weight: 2 },
    fc.nat({ max: 30 }).map<CallMode>((n) => ({ kind: 'stream', breakAfter: n + 1 })),
  );
  return mode.chain((m) => {
    const traffic = m.kind === 'generate' ? fc.constantFrom(...bodies).chain((frames) => mutatedReply(frames, 'json')) : fc.constantFrom(...streams).chain((frames) => mutatedReply(frames, encoding));
    const reply: fc.Arbitrary<UpstreamReply> = fc.oneof({ arbitrary: traffic, weight: 4 }, errorReply);
    return reply.map((r) => ({ mode: m, reply: r }));
  });
}

let upstream: HostileUpstream;
beforeAll(async () => {
  upstream = await startHostileUpstream();
});
afterAll(() => upstream.close());

const RUNS = 100;

const RETRY_RUNS = 10;

/** A retryable status, answered first (with a `retry-after` of any shape, or none). */
const retryStatus = fc.constantFrom(408, 409, 429, 500, 502, 503, 504);

describe('the OpenAI provider against a hostile upstream (fuzz)', () => {
  it(
    'chat with a retry: a retryable failure with any retry-after, then a mutated answer, still ends within the bound',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          caseOf(chatStreams, chatBodies, 'sse'),
          errorReply,
          retryStatus,
          async ({ mode, reply }, first, status) => {
            const replies = [{ ...first, status }, reply];
            upstream.route = () => replies.shift() ?? reply;
            const provider = createOpenAI({ baseURL: `${upstream.origin}/v1`, apiKey: API_KEY, maxRetries: 1 });
            await exerciseModel({ model: provider.chat('gpt-4.1-mini'), request, mode, upstream, secrets: [API_KEY] });
          },
        ),
        fuzzParameters(RETRY_RUNS, 0.05),
      );
    },
    fuzzTimeout(RETRY_RUNS, 12_000, 0.05),
  );

  for (const api of ['chat', 'responses'] as const) {
    it(
      `${api}: every mutated answer ends in documented values or a typed error, closes its connection, leaks no key`,
      async () => {
        const arbitrary = api === 'chat' ? caseOf(chatStreams, chatBodies, 'sse') : caseOf(responsesStreams, responsesBodies, 'sse-named');
        await fc.assert(
          fc.asyncProperty(arbitrary, async ({ mode, reply }) => {
            upstream.route = () => reply;
            const provider = createOpenAI({ baseURL: `${upstream.origin}/v1`, apiKey: API_KEY, maxRetries: 0 });
            const model = api === 'chat' ? provider.chat('gpt-4.1-mini') : provider.responses('gpt-4.1-mini');
            await exerciseModel({ model, request, mode, upstream, secrets: [API_KEY] });
          }),
          fuzzParameters(RUNS),
        );
      },
      fuzzTimeout(RUNS, 2_000),
    );
  }
});
