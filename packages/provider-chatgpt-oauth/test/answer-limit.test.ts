// A Codex backend whose model never stops, against the provider used as a library: text
// deltas and argument deltas without end, each event small and paced as the backend writes
// them. The stream fails once with an `AnswerTooLargeError` naming the option (not a dropped
// stream sent again), the backend's connection is closed soon after the bound, and an answer
// under the bound comes whole.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnswerTooLargeError, collectStream, defineTool } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatGPT } from '../src/index.ts';
import { makeJwt } from './helpers/jwt.ts';
import { recordingLogger } from './helpers/temp-dir.ts';
import { heapAfterGc, pourAnswer, responsesArguments, responsesText } from '../../../test/endless-answer.ts';
import type { AnswerShape, Poured } from '../../../test/endless-answer.ts';

const KIB = 1024;
const MIB = 1024 * KIB;
const LIMIT = 256 * KIB;
const lookup = defineTool({ name: 'lookup', description: 'Looks a word up.', parameters: { type: 'object', properties: { q: { type: 'string' } } } });
const request = { messages: [{ role: 'user' as const, content: 'go' }], tools: [lookup] };

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
  server = undefined;
});

/** A backend whose `/codex/responses` streams `chars` characters of `shape`. */
async function backend(shape: AnswerShape, chars: number): Promise<{ baseURL: string; posts: () => number; poured: Promise<Poured>; heapGrowth: () => number }> {
  const before = heapAfterGc();
  let highest = before;
  let posts = 0;
  let settle: (poured: Poured) => void = () => undefined;
  const poured = new Promise<Poured>((resolve) => (settle = resolve));
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/codex/models') === true) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ models: [{ slug: 'gpt-5.4', base_instructions: 'base' }] }));
        return;
      }
      posts++;
      void pourAnswer(res, shape, chars, () => (highest = Math.max(highest, heapAfterGc())), 256 * KIB).then(settle);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, posts: () => posts, poured, heapGrowth: () => highest - before };
}

function provider(baseURL: string): ReturnType<typeof createChatGPT> {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const auth = { chatgpt_account_id: 'acct-1234', chatgpt_plan_type: 'plus' };
  const tokens = { accessToken: makeJwt({ 'https://api.openai.com/auth': auth, exp }), idToken: makeJwt({ email: 'ada@example.com', 'https://api.openai.com/auth': auth, exp }), refreshToken: 'rt_test' };
  return createChatGPT({ auth: { tokens, issuer: 'http://127.0.0.1:9' }, baseURL, logger: recordingLogger().logger, maxRetries: 0, maxAnswerChars: LIMIT });
}

describe('a Codex answer past maxAnswerChars', () => {
  const cases = [
    { what: 'output_text.delta without end', shape: responsesText() },
    { what: 'function_call_arguments.delta without end', shape: responsesArguments('lookup') },
  ];
  for (const { what, shape } of cases) {
    it(`fails once with an AnswerTooLargeError and closes the backend: ${what}`, async () => {
      const up = await backend(shape, 64 * MIB);
      const error = await collectStream(provider(up.baseURL).chat('gpt-5.4').stream(request)).catch((e: unknown) => e);
      expect(AnswerTooLargeError.isInstance(error), String(error)).toBe(true);
      expect((error as AnswerTooLargeError).setting).toBe('the maxAnswerChars option of createChatGPT');
      const poured = await up.poured;
      expect(poured.cut).toBe(true);
      expect(poured.chars).toBeLessThan(LIMIT + 4 * MIB);
      // Not sent again: the same request may loop the same way.
      expect(up.posts()).toBe(1);
      expect(up.heapGrowth()).toBeLessThan(64 * MIB);
    });
  }

  it('passes a long answer under the bound whole', async () => {
    const up = await backend(responsesText(), LIMIT - 4 * KIB);
    const response = await collectStream(provider(up.baseURL).chat('gpt-5.4').stream(request));
    expect(response.text.length).toBe((await up.poured).chars);
  });
});
