// A model that never stops, against the provider used as a library: text without end, a
// native call whose arguments never close, new calls without end, a text-format call never
// closed (text tools, and a call written as text with native tools), and the Responses API's
// text and argument deltas without end, each streamed as a model writes (a small event per
// turn of the event loop). Every message is small, so `maxMessageBytes` never applies: the
// answer's bound does. The stream ends with an `AnswerTooLargeError` naming the option, the
// upstream's connection is closed soon after the bound, the heap stays bounded, and an answer
// under the bound still comes whole.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnswerTooLargeError, collectStream, defineTool } from '@toolwire/core';
import type { ChatModel } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import type { OpenAIProviderOptions } from '../src/index.ts';
import { chatArguments, chatCalls, chatText, heapAfterGc, pourAnswer, responsesArguments, responsesText } from '../../../test/endless-answer.ts';
import type { AnswerShape, Poured } from '../../../test/endless-answer.ts';

const KIB = 1024;
const MIB = 1024 * KIB;
/** How far an answer without end would go if nobody stopped it. */
const ENDLESS_CHARS = 64 * MIB;
const LIMIT = 256 * KIB;
const lookup = defineTool({ name: 'lookup', description: 'Looks a word up.', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } });
const request = { messages: [{ role: 'user' as const, content: 'go' }], tools: [lookup] };

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
  server = undefined;
});

interface Upstream {
  baseURL: string;
  /** Each answer as poured, once it ended. */
  poured: Promise<Poured>;
  /** The highest heap (after GC) seen while it poured, over the heap at the start. */
  heapGrowth: () => number;
}

/** An upstream that answers every request with `chars` characters of `shape`. */
async function upstream(shape: AnswerShape, chars: number, options: { body?: string } = {}): Promise<Upstream> {
  const before = heapAfterGc();
  let highest = before;
  let settle: (poured: Poured) => void = () => undefined;
  const poured = new Promise<Poured>((resolve) => (settle = resolve));
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (options.body !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(options.body);
        return;
      }
      void pourAnswer(res, shape, chars, () => (highest = Math.max(highest, heapAfterGc())), 256 * KIB).then(settle);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, poured, heapGrowth: () => highest - before };
}

function provider(baseURL: string, options: OpenAIProviderOptions = {}): ReturnType<typeof createOpenAI> {
  return createOpenAI({ baseURL, apiKey: 'k', maxRetries: 0, maxAnswerChars: LIMIT, maxToolCallsPerAnswer: 64, ...options });
}

/** The stream's error: its `error` event, or (nothing streamed before it) what its first read throws. */
async function drain(model: ChatModel): Promise<{ error: unknown }> {
  try {
    for await (const event of model.stream(request)) if (event.type === 'error') return { error: event.error };
  } catch (error) {
    return { error };
  }
  return { error: undefined };
}

const cases: { what: string; shape: AnswerShape; model: (p: ReturnType<typeof createOpenAI>) => ChatModel; limit: 'chars' | 'tool-calls' }[] = [
  { what: 'text without end', shape: chatText(), model: (p) => p.chat('m'), limit: 'chars' },
  { what: "one native call's arguments without end", shape: chatArguments('lookup'), model: (p) => p.chat('m'), limit: 'chars' },
  { what: 'new native calls without end', shape: chatCalls('lookup'), model: (p) => p.chat('m'), limit: 'tool-calls' },
  { what: 'a call written as text (native tools), never closed', shape: chatText('{"name": "lookup", "arguments": {"q": "'), model: (p) => p.chat('m'), limit: 'chars' },
  { what: 'text tools: a <tool_call> never closed', shape: chatText('<tool_call>\n{"name": "lookup", "arguments": {"q": "'), model: (p) => p.chat('m', { textTools: true }), limit: 'chars' },
  { what: 'text tools: f(a="… never closed', shape: chatText('lookup(q="'), model: (p) => p.chat('m', { textTools: true }), limit: 'chars' },
  { what: 'text tools: <think> never closed', shape: chatText('<think>'), model: (p) => p.chat('m', { textTools: true }), limit: 'chars' },
  { what: 'Responses: output_text.delta without end', shape: responsesText(), model: (p) => p.responses('m'), limit: 'chars' },
  { what: 'Responses: function_call_arguments.delta without end', shape: responsesArguments('lookup'), model: (p) => p.responses('m'), limit: 'chars' },
];

describe('an answer past maxAnswerChars / maxToolCallsPerAnswer', () => {
  for (const { what, shape, model, limit } of cases) {
    it(`ends the stream with an AnswerTooLargeError and closes the upstream: ${what}`, async () => {
      const up = await upstream(shape, ENDLESS_CHARS);
      const { error } = await drain(model(provider(up.baseURL)));
      expect(AnswerTooLargeError.isInstance(error)).toBe(true);
      const tooLarge = error as AnswerTooLargeError;
      expect(tooLarge.limit).toBe(limit);
      expect(tooLarge.setting).toBe(limit === 'chars' ? 'the maxAnswerChars option of createOpenAI' : 'the maxToolCallsPerAnswer option of createOpenAI');
      expect(tooLarge.message).toMatch(limit === 'chars' ? /more than 262144 characters in one answer.*raise the maxAnswerChars option/su : /more than 64 tool calls in one answer/u);
      const poured = await up.poured;
      expect(poured.cut).toBe(true);
      // Cut soon after the bound: what the sockets held in between, not the rest of the answer.
      expect(poured.chars).toBeLessThan(LIMIT + 4 * MIB);
    });
  }

  it('keeps the heap bounded while a text-format call grows without end (the parser holds it whole)', async () => {
    const up = await upstream(chatText('<tool_call>\n{"name": "lookup", "arguments": {"q": "'), ENDLESS_CHARS);
    const { error } = await drain(provider(up.baseURL, { maxAnswerChars: MIB }).chat('m', { textTools: true }));
    expect(AnswerTooLargeError.isInstance(error)).toBe(true);
    expect((await up.poured).cut).toBe(true);
    // Held at about 10 bytes per character until the bound (~10 MiB); without it, 64 Mi characters would be several GB.
    expect(up.heapGrowth()).toBeLessThan(64 * MIB);
  });

  it('fails generate with an AnswerTooLargeError when the whole answer is past the bound', async () => {
    const content = 'x'.repeat(LIMIT + 1);
    const body = JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
    const up = await upstream(chatText(), 0, { body });
    const error = await provider(up.baseURL).chat('m').generate(request).catch((e: unknown) => e);
    expect(AnswerTooLargeError.isInstance(error)).toBe(true);
  });

  it('passes a long answer under the bound whole, streamed and not', async () => {
    const up = await upstream(chatText(), LIMIT - 4 * KIB);
    const response = await collectStream(provider(up.baseURL).chat('m').stream(request));
    expect(response.finishReason).toBe('stop');
    expect(response.text.length).toBe((await up.poured).chars);
  });

  it('passes a long text-format call under the bound as a call (text tools)', async () => {
    const up = await upstream(chatText('<tool_call>\n{"name": "lookup", "arguments": {"q": "', '"}}\n</tool_call>'), LIMIT - 4 * KIB);
    const response = await collectStream(provider(up.baseURL).chat('m', { textTools: true }).stream(request));
    expect(response.toolCalls.map((call) => call.name)).toEqual(['lookup']);
    expect(String(response.toolCalls[0]?.arguments['q']).length).toBeGreaterThan(LIMIT - 8 * KIB);
  });

  it('lets 0 turn the bounds off', async () => {
    const up = await upstream(chatCalls('lookup'), 4 * KIB);
    const response = await collectStream(provider(up.baseURL, { maxAnswerChars: 0, maxToolCallsPerAnswer: 0 }).chat('m').stream(request));
    expect(response.toolCalls.length).toBeGreaterThan(64);
  });

  it('refuses a bound that is not a whole number', () => {
    expect(() => createOpenAI({ maxAnswerChars: -1 })).toThrow(/maxAnswerChars must be a whole number/u);
    expect(() => createOpenAI({ maxToolCallsPerAnswer: 1.5 })).toThrow(/maxToolCallsPerAnswer must be a whole number/u);
  });
});
