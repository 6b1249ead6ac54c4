// An upstream whose error response carries a huge body (a 4 MB message in OpenAI's error
// JSON, a 4 MB page from something in front of Ollama). Its SDK makes the whole body the
// error's message; the gateway passes on and logs a bounded part of it, so that one failing
// upstream cannot make every client's error and every log line megabytes long.
import { Writable } from 'node:stream';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { MAX_ERROR_MESSAGE_LENGTH } from '../src/wire/bound-error-text.ts';
import { closeServed, serve } from './helpers/serve-handler.ts';

const HUGE = 4_000_000;

let gateway: ToolwireServer | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await closeServed();
});

describe('an upstream error with a huge body', () => {
  for (const model of ['openai/m', 'ollama/m'] as const) {
    it(`reaches the client and the log cut to a bounded length (${model})`, async () => {
      const origin = await serve((req, res) => {
        req.resume();
        req.on('end', () => {
          if (req.url === '/api/show') {
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion'] }));
          } else if (req.url?.startsWith('/api/')) {
            res.writeHead(500, { 'content-type': 'text/html' }).end(`<html>${'x'.repeat(HUGE)}</html>`);
          } else {
            res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'm'.repeat(HUGE), type: 'invalid_request_error' } }));
          }
        });
      });
      let logged = 0;
      const sink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          logged += chunk.length;
          callback();
        },
      });
      gateway = createServer({ logger: pino({ level: 'info' }, sink), providers: { openai: { baseURL: `${origin}/v1`, apiKey: 'sk-upstream' }, ollama: { host: origin } }, tools: { builtins: [] } });
      const client = new OpenAI({ apiKey: 'unused', baseURL: await gateway.listen({ port: 0, host: '127.0.0.1' }), maxRetries: 0 });
      const error = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      const message = (error as InstanceType<typeof OpenAI.APIError>).message;
      expect(message.length).toBeLessThan(MAX_ERROR_MESSAGE_LENGTH + 200);
      // Counted from the upstream's text, not from the 64 Ki characters of it openai's error keeps.
      const leftOut = Number(/… \((\d+) more characters\)/u.exec(message)?.[1]);
      if (model.startsWith('openai/')) expect(leftOut).toBeGreaterThan(HUGE - MAX_ERROR_MESSAGE_LENGTH);
      // The request's log lines together: a few cut messages and stacks, not megabytes.
      await gateway.close();
      gateway = undefined;
      expect(logged).toBeLessThan(MAX_ERROR_MESSAGE_LENGTH * 8);
    });
  }
});
