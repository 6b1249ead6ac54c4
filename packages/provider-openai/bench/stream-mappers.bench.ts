// Per-chunk cost of this package's stream mapping: Chat Completions chunks of a typical
// turn (400 text deltas, then two parallel tool calls in 200 argument fragments) and the
// recorded Responses code-interpreter stream, each through the mapper alone (chunks already
// parsed), beside a plain JSON.parse of the same chunks' wire text.
import { generateId } from '@toolwire/core';
import { readFileSync } from 'node:fs';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { compare } from '../../../bench/harness.ts';
import { createChatStreamMapper } from '../src/openai-chat-stream.ts';
import { createResponsesStreamDecoder, prepareResponsesTools } from '@toolwire/openai-responses';
import { callArgs, callStart, chunk, finishChunk, roleChunk, usageChunk } from '../test/chat-wire.ts';

const chatChunks = [roleChunk()];
for (let i = 0; i < 400; i++) chatChunks.push(chunk({ content: ` word${i}` }));
chatChunks.push(callStart(0, 'call_a', 'search_documents'), callStart(1, 'call_b', 'search_documents'));
for (let i = 0; i < 100; i++) {
  chatChunks.push(callArgs(0, i === 0 ? '{"query":"' : i === 99 ? 'x"}' : `part${i} `));
  chatChunks.push(callArgs(1, i === 0 ? '{"query":"' : i === 99 ? 'y"}' : `term${i} `));
}
chatChunks.push(finishChunk('tool_calls'), usageChunk());
const chatWire = chatChunks.map((c) => JSON.stringify(c));
const chatBytes = chatWire.reduce((sum, line) => sum + line.length, 0);

function perChunk(label: string, count: number, results: { name: string; opsPerSec: number }[]): void {
  for (const r of results) console.log(`${label}: ${r.name}: ${Math.round(r.opsPerSec * count).toLocaleString('en')} chunks/s`);
}

const chatResults = await compare({
  title: `Chat Completions: ${chatChunks.length} chunks per turn (${(chatBytes / 1024).toFixed(0)} KB)`,
  baseline: {
    name: 'JSON.parse of each chunk',
    bytes: chatBytes,
    fn: () => {
      let n = 0;
      for (const line of chatWire) n += (JSON.parse(line) as { choices: unknown[] }).choices.length;
      return n;
    },
  },
  cases: [
    {
      name: 'chat stream mapper (parsed chunks)',
      bytes: chatBytes,
      fn: () => {
        const mapper = createChatStreamMapper({ generateId: () => generateId('call_') });
        let events = 0;
        for (const c of chatChunks) events += mapper.push(c).length;
        return events + mapper.end().length;
      },
    },
  ],
});

const responsesWire = readFileSync(new URL('../src/__fixtures__/openai-code-interpreter-tool.1.chunks.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line !== '');
const responsesEvents = responsesWire.map((line) => JSON.parse(line) as ResponseStreamEvent);
const responsesBytes = responsesWire.reduce((sum, line) => sum + line.length, 0);
const { providerTools } = prepareResponsesTools(
  [{ type: 'provider', provider: 'openai', id: 'openai.code_interpreter', name: 'code_interpreter', config: { wireTool: { type: 'code_interpreter', container: { type: 'auto' } } } }],
  undefined,
);

perChunk('chat', chatChunks.length, chatResults);

const responsesResults = await compare({
  title: `Responses: recorded code-interpreter stream, ${responsesEvents.length} events (${(responsesBytes / 1024).toFixed(0)} KB)`,
  baseline: {
    name: 'JSON.parse of each event',
    bytes: responsesBytes,
    fn: () => {
      let n = 0;
      for (const line of responsesWire) n += (JSON.parse(line) as { type: string }).type.length;
      return n;
    },
  },
  cases: [
    {
      name: 'responses stream mapper (parsed events)',
      bytes: responsesBytes,
      fn: () => {
        const mapper = createResponsesStreamDecoder({ provider: 'openai', metadataKey: 'openai', providerTools });
        let parts = 0;
        for (const event of responsesEvents) parts += mapper.push(event).length;
        return parts + mapper.end().length;
      },
    },
  ],
});
perChunk('responses', responsesEvents.length, responsesResults);
