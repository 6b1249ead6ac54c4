// What defineTool's cached validators and the tool loop cost, each beside a baseline
// measured in the same run: validation against compiling the schema for every call, and
// a two-step runTools against making the same model calls and tool call by hand, and
// runToolsStream's per-event cost against reading the model's stream directly.
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as z from 'zod';
import { collectStream, defineTool, executeToolCall, runTools, runToolsStream, ToolRegistry } from '@toolwire/core';
import type { ChatModel, ChatStreamEvent, JsonSchema, Message } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import { compare } from '../../../bench/harness.ts';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1 },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    sort: { enum: ['relevance', 'date'] },
    filters: { type: 'object', properties: { lang: { type: 'string' } } },
  },
  required: ['query'],
  additionalProperties: false,
};
const args = { query: 'token bucket', limit: 20, sort: 'date', filters: { lang: 'en' } };

const jsonTool = defineTool({ name: 'search', parameters: schema, execute: (a) => a });
const zodTool = defineTool({
  name: 'search_zod',
  parameters: z.strictObject({
    query: z.string().min(1),
    limit: z.number().int().min(1).max(100).optional(),
    sort: z.enum(['relevance', 'date']).optional(),
    filters: z.object({ lang: z.string().optional() }).optional(),
  }),
  execute: (a) => a,
});

await compare({
  title: 'Argument validation (one call)',
  baseline: {
    name: 'Ajv: compile the schema, then validate',
    fn: () => new Ajv2020({ allErrors: true, strict: false }).compile(schema)(args),
  },
  cases: [
    { name: 'defineTool (JSON Schema, compiled once).validate', fn: () => jsonTool.validate(args) },
    { name: 'defineTool (zod).validate', fn: () => zodTool.validate(args) },
  ],
});

const registry = new ToolRegistry({ tools: [jsonTool], rateLimits: { '*': { capacity: 1e12, refillPerSecond: 1e12 } } });
const call = { id: 'c1', name: 'search', arguments: args };
await compare({
  title: 'One tool call',
  baseline: {
    name: 'validate + execute by hand',
    fn: async () => {
      const checked = jsonTool.validate(args);
      if (checked.success) await jsonTool.execute?.(checked.value, { toolCallId: 'c1', signal: AbortSignal.timeout(1000) });
    },
  },
  cases: [{ name: 'executeToolCall (registry, rate limit, timeout)', fn: () => executeToolCall(call, { registry, timeoutMs: 1000 }) }],
});

const messages: Message[] = [{ role: 'user', content: 'find it' }];
const steps = [{ toolCalls: [{ id: 'c1', name: 'search', arguments: args }] }, { text: 'Found it.' }];
await compare({
  title: 'A two-step conversation with one tool call',
  baseline: {
    name: 'two generate() calls and the tool by hand',
    fn: async () => {
      const model = createScriptedModel(steps);
      const first = await model.generate({ messages, tools: [jsonTool] });
      const result = await jsonTool.execute?.(args, { toolCallId: 'c1', signal: new AbortController().signal });
      await model.generate({
        messages: [...messages, first.message, { role: 'tool', toolCallId: 'c1', content: JSON.stringify(result) }],
        tools: [jsonTool],
      });
    },
  },
  cases: [{ name: 'runTools', fn: () => runTools({ model: createScriptedModel(steps), messages, tools: [jsonTool] }) }],
});

// A streamed answer of 200 text deltas: what the loop adds per event when no tool runs.
const deltas: ChatStreamEvent[] = [
  ...Array.from({ length: 200 }, (): ChatStreamEvent => ({ type: 'text-delta', delta: 'word ' })),
  { type: 'finish', finishReason: 'stop' },
];
const streamingModel: ChatModel = {
  provider: 'bench',
  modelId: 'deltas',
  generate: () => collectStream(streamingModel.stream({ messages })),
  async *stream() {
    for (const event of deltas) yield await Promise.resolve(event);
  },
};
await compare({
  title: 'A streamed answer of 200 text deltas, read to the end',
  baseline: {
    name: "the model's stream read directly",
    fn: async () => {
      let count = 0;
      for await (const event of streamingModel.stream({ messages })) if (event.type === 'text-delta') count++;
      return count;
    },
  },
  cases: [
    {
      name: 'runToolsStream (with a tool offered, none called)',
      fn: async () => {
        const run = runToolsStream({ model: streamingModel, messages, tools: [jsonTool], signal: new AbortController().signal });
        let count = 0;
        for await (const event of run) if (event.type === 'text-delta') count++;
        return count;
      },
    },
  ],
});
