// This package's own cost per streamed answer: mapping Ollama's NDJSON chunks of a
// typical turn (thinking, ~600 text deltas, two tool calls) to core events, beside a
// baseline that only walks the same chunks and concatenates their text. And the cost of
// mapping a long history to the wire, beside JSON.stringify of the same history.
import type { Message } from '@toolwire/core';
import { compare } from '../../../bench/harness.ts';
import { toOllamaMessages } from '../src/ollama-chat-messages.ts';
import type { OllamaChatChunk } from '../src/ollama-wire.ts';
import { streamTurn } from '../src/ollama-chat-stream.ts';

const chunks: OllamaChatChunk[] = [];
for (let i = 0; i < 100; i++) chunks.push({ message: { role: 'assistant', content: '', thinking: ` step ${i}` }, done: false });
for (let i = 0; i < 600; i++) chunks.push({ message: { role: 'assistant', content: ` word${i}` }, done: false });
for (const city of ['Paris', 'Rome']) {
  chunks.push({ message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city, days: 3 } } }] }, done: false });
}
chunks.push({ model: 'qwen3:8b', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 900, eval_count: 700 });
const chunkBytes = chunks.reduce((sum, chunk) => sum + JSON.stringify(chunk).length + 1, 0);

async function* replay(): AsyncGenerator<OllamaChatChunk> {
  for (const chunk of chunks) yield chunk;
}

await compare({
  title: `streamed turn: ${chunks.length} NDJSON chunks (${(chunkBytes / 1024).toFixed(0)} KB) to core events`,
  baseline: {
    name: 'walk chunks, concatenate text',
    bytes: chunkBytes,
    fn: async () => {
      let text = '';
      for await (const chunk of replay()) text += chunk.message?.content ?? '';
      return text;
    },
  },
  cases: [
    {
      name: 'streamTurn (all events)',
      bytes: chunkBytes,
      fn: async () => {
        let events = 0;
        const turn = streamTurn(replay(), { firstCallOnly: false, holdText: false });
        for (let next = await turn.next(); next.done !== true; next = await turn.next()) events++;
        return events;
      },
    },
  ],
});

const history: Message[] = [{ role: 'system', content: 'You are a helpful assistant.' }];
for (let i = 0; i < 100; i++) {
  history.push({ role: 'user', content: `Question ${i}: what is the weather in city ${i}?` });
  history.push({ role: 'assistant', content: '', toolCalls: [{ id: `call_${i}`, name: 'get_weather', arguments: { city: `city ${i}` } }] });
  history.push({ role: 'tool', toolCallId: `call_${i}`, content: `{"temp": ${i % 30}, "sky": "clear"}` });
  history.push({ role: 'assistant', content: `It is ${i % 30} degrees and clear in city ${i}.` });
}
const historyBytes = JSON.stringify(history).length;

await compare({
  title: `history to the wire: ${history.length} messages (${(historyBytes / 1024).toFixed(0)} KB)`,
  baseline: { name: 'JSON.stringify(history)', bytes: historyBytes, fn: () => JSON.stringify(history) },
  cases: [{ name: 'toOllamaMessages', bytes: historyBytes, fn: () => toOllamaMessages(history) }],
});
