// End to end through provider-openai's Responses model and the real `openai` client,
// against a 127.0.0.1 server that answers with recorded OpenAI responses.
import { readFileSync } from 'node:fs';
import { collectStream, runTools } from '@toolwire/core';
import type { ChatStreamEvent, JsonSchema, Message } from '@toolwire/core';
import { createOpenAI } from '@toolwire/provider-openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ContainerExpiredError, openAICodeInterpreter, withContainerRecovery } from '../src/index.ts';
import type { CodeInterpreterEvent, CodeInterpreterValue } from '../src/index.ts';
import { jsonBody, openAIError, startLocalOpenAIServer } from './helpers/local-openai-server.ts';
import type { LocalOpenAIServer, Reply } from './helpers/local-openai-server.ts';

function fixture(name: string): string {
  return readFileSync(new URL(`../src/__fixtures__/${name}`, import.meta.url), 'utf8');
}

const nonStreaming = JSON.parse(fixture('openai-code-interpreter-tool.1.json'));
const imageTurns = JSON.parse(fixture('pydantic-ai-return-image.interactions.json'));
// vercel/ai keeps only the `data:` payloads, one per line; put the SSE framing back.
const chunksSse = fixture('openai-code-interpreter-tool.1.chunks.txt')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => `event: ${JSON.parse(line).type}\ndata: ${line}\n\n`)
  .join('');
const imageSse = fixture('pydantic-ai-return-image-stream.sse');
const CONTAINER = 'cntr_6903bf2c0470819090b2b1e63e0b66800c139a5d654a42ec';

let server: LocalOpenAIServer;
let replies: Reply[];

beforeAll(async () => {
  server = await startLocalOpenAIServer((request) => (request.path === '/responses' ? replies.shift() : undefined));
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  replies = [];
});

function deltasOf(events: ChatStreamEvent[], id: string): string {
  return events.map((e) => (e.type === 'tool-call-delta' && e.id === id ? e.argumentsDelta : '')).join('');
}

function model(modelId = 'gpt-5-nano') {
  return createOpenAI({ apiKey: 'sk-test', baseURL: server.baseURL }).responses(modelId);
}

const ask: Message[] = [{ role: 'user', content: 'Roll two dice 10000 times, sum them, and save the sums to a file.' }];

describe('openAICodeInterpreter through openai.responses()', () => {
  it('sends the tool, the outputs include and the forced choice on the wire', async () => {
    replies.push({ json: nonStreaming });
    await model().generate({ messages: ask, tools: [openAICodeInterpreter({ container: { memoryLimit: '4g', fileIds: ['file-abc'] } })], toolChoice: 'required' });
    const body = jsonBody(server.requests[0]!);
    expect(body.tools).toEqual([{ type: 'code_interpreter', container: { type: 'auto', memory_limit: '4g', file_ids: ['file-abc'] } }]);
    expect(body.include).toContain('code_interpreter_call.outputs');
    expect(body.tool_choice).toBe('required');
    expect(body.input).toBeDefined();
    expect(body.messages).toBeUndefined();
  });

  it('sends an existing container as its id, leaves the include out when asked, and forces the tool by name', async () => {
    replies.push({ json: nonStreaming });
    await model().generate({
      messages: ask,
      tools: [openAICodeInterpreter({ container: CONTAINER, includeOutputs: false })],
      toolChoice: { type: 'tool', name: 'code_interpreter' },
    });
    const body = jsonBody(server.requests[0]!);
    expect(body.tools).toEqual([{ type: 'code_interpreter', container: CONTAINER }]);
    expect(body.include ?? []).not.toContain('code_interpreter_call.outputs');
    expect(body.tool_choice).toEqual({ type: 'code_interpreter' });
  });

  it('lets a structured-output text.format stand beside the tool', async () => {
    replies.push({ json: nonStreaming });
    const schema: JsonSchema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'], additionalProperties: false };
    await model().generate({ messages: ask, tools: [openAICodeInterpreter()], responseFormat: { type: 'json', name: 'dice', schema } });
    const body = jsonBody(server.requests[0]!);
    expect(body.tools[0].type).toBe('code_interpreter');
    expect(body.text.format).toMatchObject({ type: 'json_schema', name: 'dice' });
  });

  it('turns each code_interpreter_call into a provider-executed call and a mapped result', async () => {
    replies.push({ json: nonStreaming });
    const events: CodeInterpreterEvent[] = [];
    const response = await model().generate({ messages: ask, tools: [openAICodeInterpreter({ onEvent: (e) => events.push(e) })] });

    const calls = nonStreaming.output.filter((item: any) => item.type === 'code_interpreter_call');
    expect(response.toolCalls).toHaveLength(3);
    expect(response.toolCalls[0]).toMatchObject({
      id: calls[0].id,
      name: 'code_interpreter',
      providerExecuted: true,
      arguments: { code: calls[0].code, containerId: CONTAINER },
    });
    expect(response.toolResults).toHaveLength(3);
    const [first, silent, third] = response.toolResults;
    expect(first).toMatchObject({ toolCallId: calls[0].id, success: true, providerExecuted: true });
    expect(first!.message).toContain('(10000, 70024)');
    expect(silent!.message).toContain('does not report Python errors');
    const value = third!.value as CodeInterpreterValue;
    expect(value.outputs).toEqual([{ type: 'logs', logs: "(21680, '/mnt/data/two_dice_sums_10000.txt')" }]);
    expect(value.files).toEqual([{ containerId: CONTAINER, fileId: 'cfile_6903bf45e3288191af3d56e6d23c3a4d', filename: 'two_dice_sums_10000.txt' }]);
    // The citation also stays with the assistant message.
    expect(JSON.stringify(response.message.providerMetadata)).toContain('cfile_6903bf45e3288191af3d56e6d23c3a4d');
    expect(response.text).toContain('sandbox:/mnt/data/two_dice_sums_10000.txt');
    expect(events.filter((e) => e.type === 'container-used')).toHaveLength(3);
    expect(events[0]).toMatchObject({ containerId: CONTAINER, memoryLimit: '1g' });
  });

  it('runs a user handler first with the annotations in its context', async () => {
    replies.push({ json: nonStreaming });
    const seen: unknown[] = [];
    const tool = openAICodeInterpreter({
      handleProviderOutput: (output, context) => {
        seen.push(context.annotations?.length);
        return (output as { outputs: unknown[] }).outputs.length === 0
          ? { toolCallId: context.toolCallId, name: context.toolName, success: false, message: 'no output: treat as failed' }
          : undefined;
      },
    });
    const response = await model().generate({ messages: ask, tools: [tool] });
    expect(seen).toEqual([1, 1, 1]);
    expect(response.toolResults.map((r) => r.success)).toEqual([true, false, true]);
    expect(response.toolResults[1]!.message).toBe('no output: treat as failed');
  });

  it('streams the code as it is written, then the mapped result', async () => {
    replies.push({ sse: chunksSse });
    const events: ChatStreamEvent[] = [];
    for await (const event of model().stream({ messages: ask, tools: [openAICodeInterpreter()] })) events.push(event);

    const starts = events.filter((e) => e.type === 'tool-call-start');
    expect(starts).toHaveLength(3);
    expect(starts[0]).toMatchObject({ name: 'code_interpreter', providerExecuted: true });
    const firstId = (starts[0] as { id: string }).id;
    const deltas = events.filter((e): e is Extract<ChatStreamEvent, { type: 'tool-call-delta' }> => e.type === 'tool-call-delta' && e.id === firstId);
    expect(deltas.length).toBeGreaterThan(10);
    const call = events.find((e): e is Extract<ChatStreamEvent, { type: 'tool-call' }> => e.type === 'tool-call' && e.toolCall.id === firstId);
    expect(call!.toolCall.arguments.code).toEqual(expect.stringContaining('random'));
    const results = events.filter((e): e is Extract<ChatStreamEvent, { type: 'tool-result' }> => e.type === 'tool-result');
    expect(results).toHaveLength(3);
    const value = results[2]!.result.value as CodeInterpreterValue;
    expect(value.files.map((f) => f.filename)).toEqual(['roll2dice_sums_10000.csv']);
    const thirdCall = events.find((e): e is Extract<ChatStreamEvent, { type: 'tool-call' }> => e.type === 'tool-call' && e.toolCall.id === results[2]!.result.toolCallId);
    expect(value.code).toBe(thirdCall!.toolCall.arguments.code);
    // The deltas spell the arguments JSON, the code streamed inside it as it was written.
    expect(JSON.parse(deltasOf(events, results[2]!.result.toolCallId))).toEqual({ code: value.code, containerId: value.containerId });
    // Results come once the response is complete, after the last text.
    const lastText = events.map((e) => e.type).lastIndexOf('text-delta');
    expect(events.findIndex((e) => e.type === 'tool-result')).toBeGreaterThan(lastText);
  });

  it('streams image outputs and two citations from the pydantic-ai recording', async () => {
    replies.push({ sse: imageSse });
    const response = await collectStream(model('gpt-5').stream({ messages: [{ role: 'user', content: 'Create a chart of y=x^2 for x=-5 to 5' }], tools: [openAICodeInterpreter()], toolChoice: 'required' }));
    expect(response.toolResults).toHaveLength(1);
    const value = response.toolResults[0]!.value as CodeInterpreterValue;
    expect(value.outputs.some((o) => o.type === 'image' && o.url.startsWith('data:image/png;base64,'))).toBe(true);
    expect(value.files).toHaveLength(2);
    expect(response.toolResults[0]!.message).toContain('[1 image]');
  });

  it('replays a code interpreter turn in a multi-turn conversation', async () => {
    replies.push({ json: imageTurns[0].response }, { json: imageTurns[1].response });
    const tools = [openAICodeInterpreter()];
    const first = await model('gpt-5').generate({ messages: [{ role: 'user', content: imageTurns[0].request.input[0].content }], tools });
    const history: Message[] = [
      { role: 'user', content: imageTurns[0].request.input[0].content },
      first.message,
      { role: 'user', content: 'Now do y=x^3' },
    ];
    const second = await model('gpt-5').generate({ messages: history, tools });
    const input = jsonBody(server.requests[1]!).input as any[];
    const firstCallId = first.toolCalls[0]!.id;
    expect(JSON.stringify(input)).toContain(firstCallId);
    expect(second.toolResults[0]!.success).toBe(true);
    expect((second.toolResults[0]!.value as CodeInterpreterValue).files.length).toBeGreaterThan(0);
  });

  it('recreates an expired auto container transparently when allowed', async () => {
    replies.push({ json: imageTurns[0].response }, openAIError(400, 'Container is expired.'), { json: imageTurns[1].response });
    const events: CodeInterpreterEvent[] = [];
    const tools = [openAICodeInterpreter()];
    const wrapped = withContainerRecovery(model('gpt-5'), { onEvent: (e) => events.push(e) });
    const first = await wrapped.generate({ messages: [{ role: 'user', content: 'chart' }], tools });
    const second = await wrapped.generate({ messages: [{ role: 'user', content: 'chart' }, first.message, { role: 'user', content: 'again' }], tools });
    expect(second.toolResults).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
    const retried = JSON.stringify(jsonBody(server.requests[2]!).input);
    expect(retried).not.toContain(first.toolCalls[0]!.id);
    expect(events.map((e) => e.type)).toEqual(['container-expired', 'container-recreated']);
  });

  it('raises ContainerExpiredError for an expired named container', async () => {
    replies.push(openAIError(400, 'Container is expired.'));
    const error = await withContainerRecovery(model())
      .generate({ messages: ask, tools: [openAICodeInterpreter({ container: CONTAINER })] })
      .catch((e: unknown) => e);
    expect(ContainerExpiredError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('containers.create');
  });

  it('runs inside runTools without executing provider calls locally', async () => {
    replies.push({ json: nonStreaming });
    const result = await runTools({ model: model(), messages: ask, tools: [openAICodeInterpreter()] });
    expect(result.stoppedBy).toBe('answer');
    expect(server.requests).toHaveLength(1);
    expect(result.steps[0]!.toolResults.map((r) => r.providerExecuted)).toEqual([true, true, true]);
    expect(result.newMessages.filter((m) => m.role === 'tool')).toEqual([]);
    expect((result.steps[0]!.toolResults[2]!.value as CodeInterpreterValue).files[0]!.fileId).toBe('cfile_6903bf45e3288191af3d56e6d23c3a4d');
  });
});
