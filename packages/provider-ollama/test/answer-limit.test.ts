// A model that never stops, against the provider used as a library: `message.content` and
// `message.thinking` without end, a new whole call on every line, and (a model without native
// tools, so text tools) a `<tool_call>` never closed, each line small and paced as Ollama
// writes them. The stream ends with an `AnswerTooLargeError` naming the option, the server's
// connection is closed soon after the bound, and an answer under the bound comes whole.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnswerTooLargeError, collectStream, defineTool } from '@toolwire/core';
import type { ChatModel } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createOllama } from '../src/index.ts';
import { answerPiece, heapAfterGc, ollamaCalls, ollamaText, pourAnswer } from '../../../test/endless-answer.ts';
import type { AnswerShape, Poured } from '../../../test/endless-answer.ts';

const KIB = 1024;
const MIB = 1024 * KIB;
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

/** `message.thinking` without end. */
function ollamaThinking(): AnswerShape {
  const line = (thinking: string): string => `${JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: '', thinking }, done: false })}\n`;
  return {
    contentType: 'application/x-ndjson',
    head: '',
    next: (i) => {
      const piece = answerPiece(i);
      return { event: line(piece), chars: piece.length };
    },
    end: ollamaText().end,
  };
}

/** A server whose models `native` (tools) and `plain` (no tools) answer every chat with `chars` characters of `shape`. */
async function ollama(shape: AnswerShape, chars: number): Promise<{ host: string; poured: Promise<Poured>; heapGrowth: () => number }> {
  const before = heapAfterGc();
  let highest = before;
  let settle: (poured: Poured) => void = () => undefined;
  const poured = new Promise<Poured>((resolve) => (settle = resolve));
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/api/show') {
        const native = !body.includes('plain');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: native ? ['completion', 'tools'] : ['completion'] }));
        return;
      }
      void pourAnswer(res, shape, chars, () => (highest = Math.max(highest, heapAfterGc())), 256 * KIB).then(settle);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { host: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, poured, heapGrowth: () => highest - before };
}

/** The stream's error: its `error` event, or (nothing streamed before it) what its first read throws. */
async function streamError(model: ChatModel): Promise<unknown> {
  try {
    for await (const event of model.stream(request)) if (event.type === 'error') return event.error;
  } catch (error) {
    return error;
  }
  return undefined;
}

const cases: { what: string; shape: AnswerShape; model: string; limit: 'chars' | 'tool-calls' }[] = [
  { what: 'content without end', shape: ollamaText(), model: 'native', limit: 'chars' },
  { what: 'thinking without end', shape: ollamaThinking(), model: 'native', limit: 'chars' },
  { what: 'a new call on every line', shape: ollamaCalls('lookup'), model: 'native', limit: 'tool-calls' },
  { what: 'a call written as text (native tools), never closed', shape: ollamaText('{"name": "lookup", "arguments": {"q": "'), model: 'native', limit: 'chars' },
  { what: 'text tools: a <tool_call> never closed', shape: ollamaText('<tool_call>\n{"name": "lookup", "arguments": {"q": "'), model: 'plain', limit: 'chars' },
];

describe('an answer past maxAnswerChars / maxToolCallsPerAnswer', () => {
  for (const { what, shape, model, limit } of cases) {
    it(`ends the stream with an AnswerTooLargeError and closes the connection: ${what}`, async () => {
      const server = await ollama(shape, ENDLESS_CHARS);
      const error = await streamError(createOllama({ host: server.host, maxAnswerChars: LIMIT, maxToolCallsPerAnswer: 64 }).chat(model));
      expect(AnswerTooLargeError.isInstance(error)).toBe(true);
      expect((error as AnswerTooLargeError).limit).toBe(limit);
      expect((error as AnswerTooLargeError).setting).toBe(limit === 'chars' ? 'the maxAnswerChars option of createOllama' : 'the maxToolCallsPerAnswer option of createOllama');
      const poured = await server.poured;
      expect(poured.cut).toBe(true);
      expect(poured.chars).toBeLessThan(LIMIT + 4 * MIB);
      expect(server.heapGrowth()).toBeLessThan(64 * MIB);
    });
  }

  it('passes a long answer under the bound whole', async () => {
    const server = await ollama(ollamaText(), LIMIT - 4 * KIB);
    const response = await collectStream(createOllama({ host: server.host, maxAnswerChars: LIMIT }).chat('native').stream(request));
    expect(response.finishReason).toBe('stop');
    expect(response.text.length).toBe((await server.poured).chars);
  });

  it('refuses a bound that is not a whole number', () => {
    expect(() => createOllama({ maxAnswerChars: Number.NaN })).toThrow(/maxAnswerChars must be a whole number/u);
  });
});
