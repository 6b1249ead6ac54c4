// A model that never stops, behind the gateway: every event is small (so the message limit
// never applies), the answer has no end, written at a model's pace. Through the gateway, with
// the official `openai` client: the request fails with `upstream_answer_too_large` naming
// `limits.upstreamAnswerLimitChars` (or `upstreamAnswerToolCallLimit`), a 502 when nothing
// was sent yet, the gateway's error frame mid-stream; the upstream's connection is closed
// soon after the bound; the gateway's heap stays bounded; an answer under the bound passes;
// and the gateway serves the next request.
import type { ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { closeServed, serve } from './helpers/serve-handler.ts';
import { chatArguments, chatCalls, chatText, heapAfterGc, ollamaText, pourAnswer } from '../../../test/endless-answer.ts';
import type { AnswerShape, Poured } from '../../../test/endless-answer.ts';

const KIB = 1024;
const MIB = 1024 * KIB;
const ENDLESS_CHARS = 64 * MIB;
const LIMIT = 256 * KIB;

let gateway: ToolwireServer | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await closeServed();
});

interface Started {
  client: OpenAI;
  baseURL: string;
  /** Each chat answer the upstream poured, once it ended. */
  poured: Poured[];
  heapGrowth: () => number;
}

/** A gateway with answer bounds in front of an upstream whose chats answer with `shape` (`chars` characters; a non-streamed one as one JSON body). */
async function start(shape: AnswerShape, chars: number): Promise<Started> {
  const before = heapAfterGc();
  let highest = before;
  const poured: Poured[] = [];
  const answer = (res: ServerResponse, stream: boolean, ollama: boolean): void => {
    if (!stream) {
      const content = 'x'.repeat(chars);
      const body = ollama
        ? { model: 'm', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content }, done: true, done_reason: 'stop' }
        : { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    void pourAnswer(res, shape, chars, () => (highest = Math.max(highest, heapAfterGc())), 256 * KIB).then((p) => poured.push(p));
  };
  const origin = await serve((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/api/show') {
        // The Ollama model writes text only: the gateway gives it text tools.
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion'] }));
        return;
      }
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.url?.startsWith('/api/') === true ? { models: [{ name: 'm' }] } : { object: 'list', data: [{ id: 'm', object: 'model', created: 1, owned_by: 'x' }] }));
        return;
      }
      const body = JSON.parse(text) as { stream?: boolean };
      answer(res, body.stream !== false, req.url?.startsWith('/api/') === true);
    });
  });
  gateway = createServer({
    logger: pino({ level: 'silent' }),
    providers: { openai: { baseURL: `${origin}/v1`, apiKey: 'sk-upstream' }, ollama: { host: origin } },
    tools: { builtins: ['calculate'] },
    limits: { upstreamAnswerLimitChars: LIMIT, upstreamAnswerToolCallLimit: 64 },
  });
  const baseURL = await gateway.listen({ port: 0, host: '127.0.0.1' });
  return { client: new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0, timeout: 30_000 }), baseURL, poured, heapGrowth: () => highest - before };
}

const clientTool = { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } };
const serverTool = { type: 'function' as const, function: { name: 'calculate' } };

/** What a streamed chat ended with: the SDK's error, or undefined. */
async function streamedChat(client: OpenAI, model: string, tools: (typeof clientTool | typeof serverTool)[]): Promise<unknown> {
  try {
    const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'go' }], tools, stream: true });
    for await (const chunk of stream) expect(chunk.object).toBe('chat.completion.chunk');
  } catch (error) {
    return error;
  }
  return undefined;
}

function expectAnswerTooLarge(error: unknown, setting: string): void {
  expect(error).toBeInstanceOf(OpenAI.APIError);
  expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_answer_too_large');
  expect((error as Error).message).toContain(setting);
}

async function expectCutAndServing(started: Started): Promise<void> {
  await expect.poll(() => started.poured.length, { timeout: 10_000 }).toBeGreaterThan(0);
  for (const poured of started.poured) {
    expect(poured.cut).toBe(true);
    expect(poured.chars).toBeLessThan(LIMIT + 4 * MIB);
  }
  expect(started.heapGrowth()).toBeLessThan(64 * MIB);
  // The gateway serves the next request (a non-streamed one, under the bound).
  const models = await started.client.models.list();
  expect(models.data.length).toBeGreaterThan(0);
}

describe('an answer past limits.upstreamAnswerLimitChars / upstreamAnswerToolCallLimit', () => {
  const streamed = [
    { what: 'text without end, client tools', shape: chatText(), model: 'openai/m', tools: [clientTool], setting: 'limits.upstreamAnswerLimitChars' },
    { what: "a call's arguments without end, client tools", shape: chatArguments('lookup'), model: 'openai/m', tools: [clientTool], setting: 'limits.upstreamAnswerLimitChars' },
    { what: "a call's arguments without end, server tools (the tool loop)", shape: chatArguments('calculate'), model: 'openai/m', tools: [serverTool], setting: 'limits.upstreamAnswerLimitChars' },
    { what: 'new calls without end', shape: chatCalls('lookup'), model: 'openai/m', tools: [clientTool], setting: 'limits.upstreamAnswerToolCallLimit' },
    { what: 'a text-format call never closed (Ollama, text tools)', shape: ollamaText('<tool_call>\n{"name": "lookup", "arguments": {"q": "'), model: 'ollama/m', tools: [clientTool], setting: 'limits.upstreamAnswerLimitChars' },
  ];
  for (const { what, shape, model, tools, setting } of streamed) {
    it(`fails a streamed chat with upstream_answer_too_large and cuts the upstream: ${what}`, async () => {
      const started = await start(shape, ENDLESS_CHARS);
      expectAnswerTooLarge(await streamedChat(started.client, model, tools), setting);
      await expectCutAndServing(started);
    });
  }

  it('fails a streamed Responses call with the same code in its error event, and cuts the upstream', async () => {
    const started = await start(chatText(), ENDLESS_CHARS);
    const response = await fetch(`${started.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/m', input: 'go', stream: true }),
    });
    const body = await response.text();
    expect(body).toContain('"code":"upstream_answer_too_large"');
    await expectCutAndServing(started);
  });

  it('fails a non-streamed chat and Responses call with a 502 upstream_answer_too_large', async () => {
    const started = await start(chatText(), LIMIT + 1);
    const chat = await started.client.chat.completions.create({ model: 'openai/m', messages: [{ role: 'user', content: 'go' }] }).catch((e: unknown) => e);
    expectAnswerTooLarge(chat, 'limits.upstreamAnswerLimitChars');
    expect((chat as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    const responses = await started.client.responses.create({ model: 'openai/m', input: 'go' }).catch((e: unknown) => e);
    expectAnswerTooLarge(responses, 'limits.upstreamAnswerLimitChars');
    expect((responses as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
  });

  it('lets a long answer under the bound through whole, streamed and not', async () => {
    const started = await start(chatText(), LIMIT - 4 * KIB);
    const stream = await started.client.chat.completions.create({ model: 'openai/m', messages: [{ role: 'user', content: 'go' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBe(started.poured[0]?.chars);
    const whole = await started.client.chat.completions.create({ model: 'openai/m', messages: [{ role: 'user', content: 'go' }] });
    expect(whole.choices[0]?.message.content).toHaveLength(LIMIT - 4 * KIB);
  });
});
