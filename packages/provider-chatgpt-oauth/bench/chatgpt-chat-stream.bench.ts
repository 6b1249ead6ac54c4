// This package's own cost per streamed answer: the SSE text of a typical turn (a
// reasoning summary, ~600 text deltas, two tool calls) through eventsource-parser and the
// ChatGPT stream decoder (the shared Responses decoder) to core events, beside a baseline that runs the same SSE text
// through eventsource-parser and JSON.parse only.
import { createParser } from 'eventsource-parser';

import { compare } from '../../../bench/harness.ts';
import { createChatGPTStreamDecoder } from '../src/chatgpt-chat-stream.ts';
import type { ToolMapping } from '../src/tools/wire-tool.ts';

const events: Record<string, unknown>[] = [{ type: 'response.created', response: { id: 'resp_1', model: 'gpt-5.4' } }];
for (let i = 0; i < 50; i++) events.push({ type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', summary_index: 0, delta: ` thought ${i}` });
events.push({ type: 'response.output_item.done', item: { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'x'.repeat(2000) } });
for (let i = 0; i < 600; i++) events.push({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: ` word${i}` });
for (const [index, city] of ['Paris', 'Rome'].entries()) {
  const id = `fc_${index}`;
  const args = JSON.stringify({ city, days: 3 });
  events.push({ type: 'response.output_item.added', item: { id, type: 'function_call', call_id: `call_${index}`, name: 'get_weather', arguments: '' } });
  for (let start = 0; start < args.length; start += 4) events.push({ type: 'response.function_call_arguments.delta', item_id: id, delta: args.slice(start, start + 4) });
  events.push({ type: 'response.output_item.done', item: { id, type: 'function_call', call_id: `call_${index}`, name: 'get_weather', arguments: args } });
}
events.push({ type: 'response.completed', response: { id: 'resp_1', usage: { input_tokens: 900, output_tokens: 700, total_tokens: 1600 } } });
const sse = events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');
// Network-sized chunks.
const chunks: string[] = [];
for (let i = 0; i < sse.length; i += 1400) chunks.push(sse.slice(i, i + 1400));
const mapping: ToolMapping = { mode: 'passthrough', toUser: new Map([['get_weather', 'get_weather']]), toWire: new Map(), cliTools: new Set() };

await compare({
  title: `streamed turn: ${events.length} SSE events (${(sse.length / 1024).toFixed(0)} KB) to core events`,
  baseline: {
    name: 'eventsource-parser + JSON.parse',
    bytes: sse.length,
    fn: () => {
      let count = 0;
      const parser = createParser({ onEvent: (message) => void (count += JSON.parse(message.data) === null ? 0 : 1) });
      for (const chunk of chunks) parser.feed(chunk);
      return count;
    },
  },
  cases: [
    {
      name: 'eventsource-parser + decoder (all events)',
      bytes: sse.length,
      fn: () => {
        let count = 0;
        const decoder = createChatGPTStreamDecoder({ mapping, modelId: 'gpt-5.4', metadata: { conversationId: 'c' } });
        const parser = createParser({ onEvent: (message) => void (count += decoder.push(JSON.parse(message.data) as Record<string, unknown>).length) });
        for (const chunk of chunks) parser.feed(chunk);
        return count;
      },
    },
  ],
});
