// Fuzzing the shared Responses wire format as both providers feed it: recorded streams and
// responses (code interpreter, reasoning, function calls, a cassette with an image) with events
// dropped, duplicated, reordered, fields of the wrong type at every path or removed, raw
// non-object events. The decoder and the response mapper must never throw, and what they give
// is events and values of the documented types (errors typed). `pnpm fuzz` runs many more.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { cassetteSse, chunkEvents, codeInterpreterChunks, codeInterpreterResponse, sseEvents } from '../test/recorded-streams.ts';
import { functionCallEvents, functionCallItem, responseObject } from './testing/index.ts';
import { prepareResponsesTools } from './responses-tools.ts';
import { createResponsesStreamDecoder } from './responses-stream.ts';
import { mapResponsesResponse } from './responses-response.ts';
import { fuzzParameters } from '../../../test/fuzz/fuzz-parameters.ts';
import { mutatedFrames } from '../../../test/fuzz/hostile-traffic.ts';
import type { Frame } from '../../../test/fuzz/hostile-traffic.ts';
import { checkResponse, checkStreamEvent, checkUniqueIds } from '../../../test/fuzz/outcome.ts';
import { codeInterpreter } from '../test/code-interpreter-tool.ts';

const { providerTools } = prepareResponsesTools([codeInterpreter], undefined);

const values = (list: readonly unknown[]): Frame[] => list.map((value) => ({ value }));
const streams: Frame[][] = [
  values(codeInterpreterChunks()),
  values(chunkEvents('azure-code-interpreter-tool.1.chunks.txt')),
  values(chunkEvents('xai-text-with-reasoning-streaming-store-false.1.chunks.txt')),
  values(sseEvents(cassetteSse('test_openai_responses_code_execution_return_image_stream.yaml'))),
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
const responses: Frame[][] = [
  [{ value: codeInterpreterResponse() }],
  [{ value: responseObject('completed', [functionCallItem('call_a', 'get_weather', '{"city":"Paris"}'), functionCallItem('call_b', 'search', '{"q":"x"}')]) }],
];

/** Parsed SSE payloads are JSON values: what a raw frame would parse to, if it parses. */
function payloads(frames: readonly Frame[]): unknown[] {
  return frames.flatMap((frame) => {
    if ('value' in frame) return [frame.value];
    try {
      return [JSON.parse(frame.raw) as unknown];
    } catch {
      return [];
    }
  });
}

const RUNS = 500;
const NO_SECRETS: string[] = [];

describe('the Responses wire format against hostile events (fuzz)', () => {
  it('the stream decoder never throws and gives documented events, with typed errors', () => {
    const cases = fc.record({
      frames: fc.constantFrom(...streams).chain((frames) => mutatedFrames(frames, 8)),
      parallelToolCalls: fc.boolean(),
      withTools: fc.boolean(),
    });
    fc.assert(
      fc.property(cases, ({ frames, parallelToolCalls, withTools }) => {
        const decoder = createResponsesStreamDecoder({ provider: 'openai', metadataKey: 'openai', providerTools: withTools ? providerTools : [], parallelToolCalls, recordWireCalls: true });
        const parts = [...payloads(frames).flatMap((event) => decoder.push(event as never)), ...decoder.end()];
        const ids: string[] = [];
        let sawError = false;
        for (const part of parts) {
          if (sawError) throw new Error('a part came after an error');
          if (part.type === 'provider-output') continue;
          checkStreamEvent(part, NO_SECRETS);
          if (part.type === 'error') sawError = true;
          if (part.type === 'tool-call') ids.push(part.toolCall.id);
        }
        checkUniqueIds(ids, 'decoded stream');
      }),
      fuzzParameters(RUNS),
    );
  });

  it('the response mapper never throws and gives a documented response', () => {
    const cases = fc.record({ frames: fc.constantFrom(...responses).chain((frames) => mutatedFrames(frames, 8)), parallelToolCalls: fc.boolean(), withTools: fc.boolean() });
    fc.assert(
      fc.property(cases, ({ frames, parallelToolCalls, withTools }) => {
        for (const wire of payloads(frames)) {
          const mapped = mapResponsesResponse(wire, { metadataKey: 'openai', providerTools: withTools ? providerTools : [], parallelToolCalls });
          checkResponse(mapped.response);
        }
      }),
      fuzzParameters(RUNS),
    );
  });
});
