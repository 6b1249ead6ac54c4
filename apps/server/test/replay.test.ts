import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolAuditEvent, ToolwireServer } from '../src/index.ts';

const transcript = fileURLToPath(new URL('./__fixtures__/calculator-demo.json', import.meta.url));

let server: ToolwireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function replayGateway(onToolAudit?: (event: ToolAuditEvent) => void): Promise<OpenAI> {
  server = createServer({
    logger: pino({ level: 'silent' }),
    providers: { replay: { transcripts: { demo: transcript } } },
    ...(onToolAudit ? { onToolAudit } : {}),
  });
  const baseURL = await server.listen({ port: 0 });
  return new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0 });
}

describe('replay/<name>', () => {
  it('replays a recorded conversation offline: the text tool call runs on the server and the final answer comes back', async () => {
    const openai = await replayGateway();
    const completion = await openai.chat.completions.create({
      model: 'replay/demo',
      messages: [{ role: 'user', content: 'What is 6 times 7?' }],
      tools: [{ type: 'function', function: { name: 'calculate' } }],
    });
    expect(completion.choices[0]?.message.content).toBe('6 times 7 is 42.');
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
  });

  it('reports each server-tool execution to onToolAudit', async () => {
    const events: ToolAuditEvent[] = [];
    const openai = await replayGateway((event) => events.push(event));
    await openai.chat.completions.create({
      model: 'replay/demo',
      messages: [{ role: 'user', content: 'What is 6 times 7?' }],
      tools: [{ type: 'function', function: { name: 'calculate' } }],
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'tool-execution', tool: 'calculate', outcome: 'success', principal: 'anonymous' });
  });

  it('streams the same conversation', async () => {
    const openai = await replayGateway();
    const stream = openai.chat.completions.stream({
      model: 'replay/demo',
      messages: [{ role: 'user', content: 'What is 6 times 7?' }],
      tools: [{ type: 'function', function: { name: 'calculate' } }],
    });
    expect((await stream.finalChatCompletion()).choices[0]?.message.content).toBe('6 times 7 is 42.');
  });

  it('lists the transcripts as models and answers an unknown one with a 404', async () => {
    const openai = await replayGateway();
    const ids = [];
    for await (const model of openai.models.list()) ids.push(model.id);
    expect(ids).toEqual(['replay/demo']);
    await expect(openai.chat.completions.create({ model: 'replay/other', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('answers a conversation that leaves the transcript with a 400', async () => {
    const openai = await replayGateway();
    const error = await openai.chat.completions.create({ model: 'replay/demo', messages: [{ role: 'user', content: 'something else' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  });
});
