// Fuzzing the ChatGPT provider used as a library: a stand-in Codex backend on 127.0.0.1 answers
// with mutations of recorded Responses streams (function calls, reasoning, code interpreter)
// and of a token refresh: events dropped, duplicated, reordered, fields of the wrong type at
// every path, garbage bytes, cuts, resets, held connections, error replies of every shape
// (a 401 sends the provider to refresh its tokens at the same stand-in). Each case must end
// within a bound with documented values or a typed Toolwire error, leave no connection open
// and nothing unhandled, and show no token in a message or in the log.
// `pnpm fuzz` runs many more cases (see the README).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cassetteSse, chunkEvents, sseEvents } from '../../openai-responses/test/recorded-streams.ts';
import { functionCallEvents } from '@toolwire/openai-responses/testing';
import { createChatGPT } from '../src/index.ts';
import { makeJwt, makeTokenSet } from './helpers/jwt.ts';
import { recordingLogger } from './helpers/temp-dir.ts';
import { fuzzParameters, fuzzTimeout } from '../../../test/fuzz/fuzz-parameters.ts';
import { errorReply, mutatedReply } from '../../../test/fuzz/hostile-traffic.ts';
import type { Frame, UpstreamReply } from '../../../test/fuzz/hostile-traffic.ts';
import { startHostileUpstream } from '../../../test/fuzz/hostile-upstream.ts';
import type { HostileUpstream } from '../../../test/fuzz/hostile-upstream.ts';
import { exerciseModel } from '../../../test/fuzz/outcome.ts';
import type { CallMode } from '../../../test/fuzz/outcome.ts';

const values = (list: readonly unknown[]): Frame[] => list.map((value) => ({ value }));
const streams: Frame[][] = [
  values(
    functionCallEvents(
      [
        { callId: 'call_a', name: 'get_weather', fragments: ['{"ci', 'ty":"Paris"}'] },
        { callId: 'call_b', name: 'search', fragments: ['{"q":"x"}'] },
      ],
      'Checking.',
    ),
  ),
  values(chunkEvents('xai-text-with-reasoning-streaming-store-false.1.chunks.txt')),
  values(sseEvents(cassetteSse('test_openai_responses_code_execution_return_image_stream.yaml'))),
];

const tools = [
  { type: 'function' as const, name: 'get_weather', description: 'Weather of a city.', inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } },
  { type: 'function' as const, name: 'search', inputSchema: { type: 'object' as const, properties: { q: { type: 'string' } } } },
];
const request = { messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], tools };

const fresh = makeTokenSet();
const refreshed: Frame[] = [{ value: { ...fresh, expires_in: 3600, token_type: 'Bearer', scope: 'openid profile email offline_access' } }];

const mode: fc.Arbitrary<CallMode> = fc.oneof(
  fc.constant<CallMode>({ kind: 'generate' }),
  { arbitrary: fc.constant<CallMode>({ kind: 'stream' }), weight: 2 },
  fc.nat({ max: 20 }).map<CallMode>((n) => ({ kind: 'stream', breakAfter: n + 1 })),
);
const cases = fc.record({
  mode,
  responses: fc.oneof({ arbitrary: fc.constantFrom(...streams).chain((frames) => mutatedReply(frames, 'sse-named')), weight: 4 }, errorReply),
  token: fc.oneof(mutatedReply(refreshed, 'json', { maxOps: 0 }), mutatedReply(refreshed, 'json'), errorReply),
  toolMode: fc.constantFrom('passthrough' as const, 'codex' as const),
  // A dropped stream is sent again after a backoff: at most once here, to keep cases short.
  streamMaxRetries: fc.constantFrom(0, 1),
  // A 5xx is sent again after a backoff: at most once.
  maxRetries: fc.constantFrom(0, 1),
});

let upstream: HostileUpstream;
beforeAll(async () => {
  upstream = await startHostileUpstream();
});
afterAll(() => upstream.close());

const RUNS = 60;

describe('the ChatGPT provider against a hostile Codex backend (fuzz)', () => {
  it(
    'every mutated answer ends in documented values or a typed error, closes its connection, leaks no token',
    async () => {
      await fc.assert(
        fc.asyncProperty(cases, async ({ mode: m, responses, token, toolMode, streamMaxRetries, maxRetries }) => {
          const catalog = readableCatalog();
          upstream.route = (seen) => (seen.path.startsWith('/codex/models') ? catalog : seen.path.startsWith('/oauth/token') ? token : responses);
          const exp = Math.floor(Date.now() / 1000) + 3600;
          const auth = { chatgpt_account_id: 'acct-1234', chatgpt_plan_type: 'plus' };
          const tokens = { accessToken: makeJwt({ 'https://api.openai.com/auth': auth, exp }), idToken: makeJwt({ email: 'ada@example.com', 'https://api.openai.com/auth': auth, exp }), refreshToken: 'rt_fuzz_0123456789abcdef' };
          const log = recordingLogger();
          const chatgpt = createChatGPT({ auth: { tokens, issuer: upstream.origin }, baseURL: upstream.origin, logger: log.logger, maxRetries, streamMaxRetries });
          const secrets = [tokens.accessToken, tokens.idToken, tokens.refreshToken, fresh.access_token, fresh.id_token, fresh.refresh_token];
          await exerciseModel({ model: chatgpt.chat('gpt-5.4', { toolMode }), request, mode: m, upstream, secrets });
          for (const line of log.lines) for (const secret of secrets) expect(line).not.toContain(secret);
        }),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS, 2_000),
  );
});

function readableCatalog(): UpstreamReply {
  const body = new TextEncoder().encode(JSON.stringify({ models: [{ slug: 'gpt-5.4', base_instructions: 'You are Codex.' }] }));
  return { status: 200, headers: { 'content-type': 'application/json' }, informational: [], chunks: [body], ending: 'end' };
}
