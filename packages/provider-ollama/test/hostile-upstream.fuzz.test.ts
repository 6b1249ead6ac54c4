// Fuzzing the Ollama provider used as a library: a stand-in Ollama on 127.0.0.1 answers the
// real `ollama` client with mutations of recorded traffic (Ollama's documented /api/chat
// answers and NDJSON streams with message.tool_calls; /api/show with capabilities): lines
// dropped, duplicated, reordered, fields of the wrong type at every path, arguments that are
// not objects, garbage bytes, cuts, resets, held connections, and error replies of every
// shape. Each case must end within a bound with documented values or a typed Toolwire error,
// leave no connection open and nothing unhandled, and show the bearer token in no message.
// `pnpm fuzz` runs many more cases (see the README).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createOllama } from '../src/index.ts';
import { fuzzParameters, fuzzTimeout } from '../../../test/fuzz/fuzz-parameters.ts';
import { errorReply, mutatedReply } from '../../../test/fuzz/hostile-traffic.ts';
import type { Frame, UpstreamReply } from '../../../test/fuzz/hostile-traffic.ts';
import { startHostileUpstream } from '../../../test/fuzz/hostile-upstream.ts';
import type { HostileUpstream } from '../../../test/fuzz/hostile-upstream.ts';
import { exerciseModel } from '../../../test/fuzz/outcome.ts';
import type { CallMode } from '../../../test/fuzz/outcome.ts';

const TOKEN = 'ollama-fuzz-token-0123456789SECRET';
const docs = JSON.parse(readFileSync(new URL('../src/__fixtures__/ollama-api-docs.chat.json', import.meta.url), 'utf8')) as Record<'streamChunk' | 'streamFinal' | 'noStreaming' | 'withTools', Record<string, unknown>>;

const line = (message: Record<string, unknown>, done = false): Frame => ({ value: { model: 'llama3.2', created_at: '2026-11-25T02:00:00Z', message: { role: 'assistant', ...message }, done } });
const streams: Frame[][] = [
  [{ value: docs.streamChunk }, line({ content: ' sky' }), { value: docs.streamFinal }],
  [
    line({ content: '', thinking: 'Let me call it.' }),
    line({ content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] }),
    line({ content: '', tool_calls: [{ id: 'call_1', function: { index: 1, name: 'search', arguments: { q: 'x', n: 2 } } }] }),
    { value: { ...docs.streamFinal, done_reason: 'stop', message: { role: 'assistant', content: '' } } },
  ],
  [{ value: { ...docs.withTools, done: false } }, { value: docs.streamFinal }],
];
const bodies: Frame[][] = [[{ value: docs.noStreaming }], [{ value: docs.withTools }]];
const show: Frame[] = [{ value: { license: '', modelfile: 'FROM llama3.2', details: { family: 'llama', families: ['llama'] }, model_info: {}, capabilities: ['completion', 'tools', 'thinking'], modified_at: '2026-11-01T10:00:00Z' } }];

const tools = [
  { type: 'function' as const, name: 'get_weather', description: 'Weather of a city.', inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } },
  { type: 'function' as const, name: 'search', inputSchema: { type: 'object' as const, properties: { q: { type: 'string' } } } },
];
const request = { messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], tools };

const mode: fc.Arbitrary<CallMode> = fc.oneof(
  fc.constant<CallMode>({ kind: 'generate' }),
  { arbitrary: fc.constant<CallMode>({ kind: 'stream' }), weight: 2 },
  fc.nat({ max: 6 }).map<CallMode>((n) => ({ kind: 'stream', breakAfter: n + 1 })),
);
const cases = mode.chain((m) => {
  const traffic = m.kind === 'generate' ? fc.constantFrom(...bodies).chain((frames) => mutatedReply(frames, 'json')) : fc.constantFrom(...streams).chain((frames) => mutatedReply(frames, 'ndjson'));
  const chat: fc.Arbitrary<UpstreamReply> = fc.oneof({ arbitrary: traffic, weight: 4 }, errorReply);
  // The capabilities lookup is mostly sound, so that most cases reach the chat.
  const showReply: fc.Arbitrary<UpstreamReply> = fc.oneof({ arbitrary: mutatedReply(show, 'json', { maxOps: 0 }), weight: 4 }, mutatedReply(show, 'json'), errorReply);
  return fc.record({ mode: fc.constant(m), chat, show: showReply });
});

let upstream: HostileUpstream;
beforeAll(async () => {
  upstream = await startHostileUpstream();
});
afterAll(() => upstream.close());

const RUNS = 100;
let caseNumber = 0;

describe('the Ollama provider against a hostile upstream (fuzz)', () => {
  it(
    'every mutated answer ends in documented values or a typed error, closes its connection, leaks no token',
    async () => {
      await fc.assert(
        fc.asyncProperty(cases, async ({ mode: m, chat, show: showReply }) => {
          upstream.route = (seen) => (seen.path.startsWith('/api/show') ? showReply : chat);
          const ollama = createOllama({ host: upstream.origin, headers: { Authorization: `Bearer ${TOKEN}` } });
          // A model name of its own per case: capabilities are cached per host and model, and each case's /api/show answer is to be read.
          caseNumber++;
          await exerciseModel({ model: ollama.chat(`llama3.2-case${caseNumber}`), request, mode: m, upstream, secrets: [TOKEN] });
        }),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS, 2_000),
  );
});
