// The OpenAI provider over the gateway's own fetch (which reads `init[FETCH_SIGNAL]`, so
// the SDK composes no signal per call): a caller's abort before the response, mid-stream
// and during the SDK's wait between retries ends the call and the upstream request, and
// the SDK sends nothing afterwards. A real local server answers in the OpenAI wire format.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '@toolwire/core';
import { createOpenAI } from '@toolwire/provider-openai';
import { closeServed, serve } from '../../test/helpers/serve-handler.ts';
import { createNodeHttpFetch } from './node-http-fetch.ts';

afterEach(closeServed);

const messages = [{ role: 'user' as const, content: 'Hi' }];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** An upstream answering the n-th request with `answers[n]` (the last for the rest); `cut` resolves when a connection closes before its response ended. */
async function upstream(...answers: ((res: ServerResponse) => void)[]) {
  let received = 0;
  let onCut!: () => void;
  const cut = new Promise<void>((resolve) => (onCut = resolve));
  const origin = await serve((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.on('close', () => {
        if (!res.writableFinished) onCut();
      });
      (answers[received - 1] ?? answers.at(-1))?.(res);
    });
  });
  const reached = async (n: number): Promise<void> => {
    while (received < n) await sleep(5);
  };
  return { baseURL: `${origin}/v1`, received: () => received, reached, cut };
}

const hold = (): void => undefined;
const created = {
  type: 'response.created',
  sequence_number: 0,
  response: { id: 'resp_1', object: 'response', created_at: 1_700_000_000, status: 'in_progress', model: 'gpt-4.1-mini', output: [], parallel_tool_calls: true, tool_choice: 'auto', tools: [] },
};
const textDelta = { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Once', logprobs: [] };
const frame = (event: { type: string }): string => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

describe('the OpenAI provider over createNodeHttpFetch', () => {
  it('ends the call at once when aborted during the retry-after wait, and sends no request afterwards', async () => {
    const up = await upstream((res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' });
      res.end('{"error":{"message":"busy","type":"server_error"}}');
    });
    let calls = 0;
    const gatewayFetch = createNodeHttpFetch();
    const counted = Object.assign((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      calls++;
      return gatewayFetch(input, init);
    }, gatewayFetch);
    const model = createOpenAI({ baseURL: up.baseURL, apiKey: 'sk-test', maxRetries: 2, fetch: counted }).chat('gpt-4.1-mini');
    const controller = new AbortController();
    const pending = model.generate({ messages, signal: controller.signal });
    await up.reached(1);
    await sleep(100);
    const started = Date.now();
    controller.abort(new Error('the client left'));
    await expect(pending).rejects.toThrow('the client left');
    expect(Date.now() - started).toBeLessThan(1000);
    await sleep(2500);
    expect(calls).toBe(1);
    expect(up.received()).toBe(1);
  });

  it('cuts a Responses call and a Responses stream aborted before the response, and a stream mid-body', async () => {
    const up = await upstream(hold, hold, (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame(created) + frame(textDelta));
    });
    const model = createOpenAI({ baseURL: up.baseURL, apiKey: 'sk-test', maxRetries: 2, fetch: createNodeHttpFetch() }).responses('gpt-4.1-mini');

    const first = new AbortController();
    const generated = model.generate({ messages, signal: first.signal });
    await up.reached(1);
    first.abort(new Error('left before the answer'));
    await expect(generated).rejects.toThrow('left before the answer');
    await up.cut;

    const second = new AbortController();
    const before = model.stream({ messages, signal: second.signal })[Symbol.asyncIterator]().next();
    await up.reached(2);
    second.abort(new Error('left before the stream'));
    await expect(before).rejects.toThrow('left before the stream');

    const third = new AbortController();
    const during: { type: string; error?: Error }[] = [];
    for await (const event of model.stream({ messages, signal: third.signal })) {
      during.push(event);
      if (event.type === 'text-delta') third.abort(new Error('left mid-stream'));
    }
    expect(during.map((event) => event.type)).toEqual(['text-delta', 'error']);
    expect(during.at(-1)?.error?.message).toBe('left mid-stream');
    // Past the SDK's first retry delay: one request per call, none retried.
    await sleep(700);
    expect(up.received()).toBe(3);
  });

  it('throws the reason of a chat stream aborted before the response, without a retry', async () => {
    const up = await upstream(hold);
    const model = createOpenAI({ baseURL: up.baseURL, apiKey: 'sk-test', maxRetries: 2, fetch: createNodeHttpFetch() }).chat('gpt-4.1-mini');
    const controller = new AbortController();
    const first = model.stream({ messages, signal: controller.signal })[Symbol.asyncIterator]().next();
    await up.reached(1);
    controller.abort(new Error('the client left'));
    await expect(first).rejects.toThrow('the client left');
    await up.cut;
    await sleep(700);
    expect(up.received()).toBe(1);
  });

  it("passes an upstream's own 499 through as a provider error when nothing aborted", async () => {
    const up = await upstream((res) => {
      res.writeHead(499, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"client closed request","type":"invalid_request_error"}}');
    });
    const model = createOpenAI({ baseURL: up.baseURL, apiKey: 'sk-test', fetch: createNodeHttpFetch() }).chat('gpt-4.1-mini');
    const error: unknown = await model.generate({ messages, signal: new AbortController().signal }).catch((caught: unknown) => caught);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('client closed request');
    expect(up.received()).toBe(1);
  });

  it("times out with the SDK's timeout and cuts the upstream request", async () => {
    const up = await upstream(hold);
    const model = createOpenAI({ baseURL: up.baseURL, apiKey: 'sk-test', maxRetries: 0, timeoutMs: 200, fetch: createNodeHttpFetch() }).chat('gpt-4.1-mini');
    const error: unknown = await model.generate({ messages, signal: new AbortController().signal }).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/timed out/iu);
    await up.cut;
  });
});
