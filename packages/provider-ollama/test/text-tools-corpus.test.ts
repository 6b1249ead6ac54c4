// End to end through the real `withTextToolCalling` of @toolwire/extract: a text-only
// model on a fake Ollama answers with real outputs of a 0.8B model (BFCL corpus, see
// src/__fixtures__/SOURCE.md), and the calls come back as core tool calls.
import { readFileSync } from 'node:fs';
import { collectStream } from '@toolwire/core';
import type { ChatStreamEvent, FunctionToolSpec, JsonSchema, Message } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOllama } from '../src/index.ts';
import { startFakeOllama } from './fake-ollama.ts';
import type { FakeOllama } from './fake-ollama.ts';

interface CorpusLine {
  id: string;
  functions: { name: string; description: string; parameters: Record<string, unknown> }[];
  text: string;
  reference: { name: string; arguments: Record<string, unknown> }[] | null;
}

const corpus = new Map(
  readFileSync(new URL('../src/__fixtures__/bfcl-airev-agent-0.8b.sample.jsonl', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as CorpusLine)
    .map((line) => [line.id, line]),
);

function line(id: string): CorpusLine {
  const found = corpus.get(id);
  if (found === undefined) throw new Error(`fixture ${id} missing`);
  return found;
}

/** BFCL's schema dialect (`dict`, `float`, `tuple`, `any`) as JSON Schema. */
function toJsonSchema(schema: unknown): JsonSchema {
  if (typeof schema !== 'object' || schema === null) return {};
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type') {
      const mapped = ({ dict: 'object', float: 'number', tuple: 'array', any: undefined } as Record<string, string | undefined>)[String(value)] ?? value;
      if (mapped !== undefined) out.type = mapped as JsonSchema['type'];
    } else if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, toJsonSchema(inner)]));
    } else if (key === 'items') {
      out.items = toJsonSchema(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function toolsOf(entry: CorpusLine): FunctionToolSpec[] {
  return entry.functions.map((fn) => ({ type: 'function', name: fn.name, description: fn.description, inputSchema: toJsonSchema(fn.parameters) }));
}

let server: FakeOllama;
let answers: string[] = [];

beforeAll(async () => {
  server = await startFakeOllama({
    // A small model without native tools, as /api/show reports it.
    'airev-agent:0.8b': {
      capabilities: ['completion'],
      reply: () => {
        const index = server.chatBodies().length - 1;
        return { content: answers[index] ?? answers.at(-1) ?? '' };
      },
    },
  });
});
afterAll(() => server.close());

/** Adds a model to the fake server that answers with `text` (and `thinking`). */
function addModel(name: string, model: { capabilities: string[]; hideCapabilities?: boolean; text: string; thinking?: string }): void {
  server.models.set(name, {
    capabilities: model.capabilities,
    ...(model.hideCapabilities === true ? { hideCapabilities: true } : {}),
    reply: () => ({ content: model.text, ...(model.thinking !== undefined ? { thinking: model.thinking } : {}) }),
  });
}

function answer(...texts: string[]): void {
  answers = texts;
  server.requests.length = 0;
}

const model = () => createOllama({ host: server.host }).chat('airev-agent:0.8b');
const user = (content: string): Message[] => [{ role: 'user', content }];
const CALL_IDS = /^call_[A-Za-z0-9]+$/;

describe('a text-only model gets tool calls from its text (corpus outputs)', () => {
  for (const id of ['simple_python_0', 'parallel_0', 'multiple_2', 'live_simple_2-2-0']) {
    it(`${id}: generate returns the reference calls`, async () => {
      const entry = line(id);
      answer(entry.text);
      const response = await model().generate({ messages: user('Please help.'), tools: toolsOf(entry) });
      expect(response.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(entry.reference);
      expect(response.toolCalls.every((c) => CALL_IDS.test(c.id))).toBe(true);
      expect(response.finishReason).toBe('tool-calls');
      const [body] = server.chatBodies();
      expect(body?.tools).toBeUndefined();
      expect(body?.messages[0]?.role).toBe('system');
      for (const fn of entry.functions) expect(body?.messages[0]?.content).toContain(fn.name);
    });
  }

  it('parallel_0 streamed: the same calls, delivered as tool-call events', async () => {
    const entry = line('parallel_0');
    answer(entry.text);
    const response = await collectStream(model().stream({ messages: user('Play both.'), tools: toolsOf(entry) }));
    expect(response.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(entry.reference);
    expect(server.chatBodies()[0]?.stream).toBe(true);
  });

  it('prose before a call keeps the prose as text (live_irrelevance_191-32-4)', async () => {
    const entry = line('live_irrelevance_191-32-4');
    answer(entry.text);
    const response = await model().generate({ messages: user('I cannot log in.'), tools: toolsOf(entry) });
    expect(response.toolCalls).toMatchObject([
      { name: 'user_authentication.login', arguments: { username: 'user', password: 'password', remember_me: true, login_attempts: 3 } },
    ]);
    expect(response.text).toContain("I'll help you with your login issue.");
  });

  it('an answer without a call stays text (irrelevance_0, live_irrelevance_21-2-9)', async () => {
    for (const id of ['irrelevance_0', 'live_irrelevance_21-2-9']) {
      const entry = line(id);
      answer(entry.text);
      const response = await model().generate({ messages: user('Hello?'), tools: toolsOf(entry) });
      expect(response.toolCalls).toEqual([]);
      expect(response.text).toBe(entry.text);
      expect(response.finishReason).toBe('stop');
    }
  });
});

describe('toolChoice in text mode (enforced by the extract wrapper)', () => {
  it("'required' turns a prose answer into a call with one corrective retry", async () => {
    const prose = line('irrelevance_0');
    const call = line('simple_python_0');
    answer(prose.text, call.text);
    const response = await model().generate({ messages: user('Area of a 10 by 5 triangle?'), tools: toolsOf(call), toolChoice: 'required' });
    expect(server.chatBodies()).toHaveLength(2);
    expect(response.toolCalls.map((c) => c.name)).toEqual(['calculate_triangle_area']);
  });

  it("'none' offers no tools to the model at all", async () => {
    answer('The area is 25.');
    const entry = line('simple_python_0');
    const response = await model().generate({ messages: user('Area?'), tools: toolsOf(entry), toolChoice: 'none' });
    expect(response.toolCalls).toEqual([]);
    expect(JSON.stringify(server.chatBodies()[0]?.messages)).not.toContain('calculate_triangle_area');
  });

  it('parallelToolCalls: false keeps the first of parallel_0’s two calls', async () => {
    const entry = line('parallel_0');
    answer(entry.text);
    const response = await model().generate({ messages: user('Play both.'), tools: toolsOf(entry), parallelToolCalls: false });
    expect(response.toolCalls.map((c) => c.arguments)).toEqual([entry.reference![0]!.arguments]);
  });
});

describe('history round trip in text mode', () => {
  it('renders the earlier call and its result as text Ollama can show a model without tools', async () => {
    const entry = line('simple_python_0');
    answer(entry.text, 'The area is 25 units.');
    const m = model();
    const messages = user('Area of a triangle with base 10 and height 5?');
    const first = await m.generate({ messages, tools: toolsOf(entry) });
    messages.push(first.message, { role: 'tool', toolCallId: first.toolCalls[0]!.id, content: '25' });
    const second = await m.generate({ messages, tools: toolsOf(entry) });
    expect(second.text).toBe('The area is 25 units.');
    const sent = server.chatBodies()[1]!.messages;
    expect(sent.every((message) => message.role !== 'tool' && message.tool_calls === undefined)).toBe(true);
    expect(sent.some((message) => message.role === 'assistant' && message.content.includes('calculate_triangle_area('))).toBe(true);
    expect(sent.some((message) => message.content.includes('25'))).toBe(true);
  });
});

describe('switching and thinking, end to end', () => {
  it('an old server without capabilities: the 400 switches to text tools and the corpus call comes back', async () => {
    const entry = line('multiple_2');
    addModel('old-server-model:1b', { capabilities: ['completion'], hideCapabilities: true, text: entry.text });
    server.requests.length = 0;
    const response = await createOllama({ host: server.host }).chat('old-server-model:1b').generate({ messages: user('Capital of Brazil?'), tools: toolsOf(entry) });
    expect(response.warnings[0]?.message).toContain('does not support tools; using text tool calling instead');
    expect(response.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(entry.reference);
    expect(server.chatBodies().map((b) => b.tools?.length ?? 0)).toEqual([entry.functions.length, 0]);
  });

  it('a thinking model without tools streams its thinking as reasoning and its calls from the text', async () => {
    const entry = line('live_simple_2-2-0');
    addModel('thinker:0.8b', { capabilities: ['completion', 'thinking'], text: entry.text, thinking: 'The user wants a comfort ride.' });
    const events: ChatStreamEvent[] = [];
    for await (const event of createOllama({ host: server.host }).chat('thinker:0.8b', { think: true }).stream({ messages: user('Get me a ride.'), tools: toolsOf(entry) })) {
      events.push(event);
    }
    expect(events.filter((e) => e.type === 'reasoning-delta').map((e) => e.delta).join('')).toBe('The user wants a comfort ride.');
    const calls = events.flatMap((e) => (e.type === 'tool-call' ? [{ name: e.toolCall.name, arguments: e.toolCall.arguments }] : []));
    expect(calls).toEqual(entry.reference);
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
  });
});
