import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/index.ts';
import type { ScriptedCall } from '../helpers/paced-upstream.ts';
import { callsThenAnswer, MODEL_PATHS, offeredToolNames, useClientSuite } from './client-suite.ts';
import { startGatewayProcess } from './gateway-process.ts';
import type { GatewayProcess } from './gateway-process.ts';

// A client's own function is the client's, whatever its name: named like a built-in server
// tool (the gateway here has all three enabled), or with a hyphen (valid in OpenAI's API).
const suite = useClientSuite();
const client = (): OpenAI => new OpenAI({ apiKey: 'unused', baseURL: suite.gateway.baseURL, maxRetries: 0 });

interface ClientTool {
  tool: ChatCompletionTool & { type: 'function' };
  call: ScriptedCall;
}

/** Functions as tutorials write them: same names as the built-ins, their own schemas. */
const CLIENT_TOOLS: ClientTool[] = [
  {
    tool: {
      type: 'function',
      function: {
        name: 'calculate',
        description: 'Apply an arithmetic operation to two numbers (client-side calculator).',
        parameters: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' }, operation: { type: 'string', enum: ['add', 'subtract', 'multiply', 'divide'] } },
          required: ['a', 'b', 'operation'],
          additionalProperties: false,
        },
        strict: true,
      },
    },
    call: { name: 'calculate', arguments: { a: 6, b: 7, operation: 'multiply' } },
  },
  {
    tool: {
      type: 'function',
      function: {
        name: 'get_current_time',
        description: "The user's local time from their device clock.",
        parameters: { type: 'object', properties: { location: { type: 'string', description: 'Where the user is' } }, required: ['location'] },
      },
    },
    call: { name: 'get_current_time', arguments: { location: 'Tokyo' } },
  },
  {
    tool: {
      type: 'function',
      function: {
        name: 'fetch_url',
        description: "Fetch a page through the user's browser session.",
        parameters: { type: 'object', properties: { url: { type: 'string' }, max_chars: { type: 'integer' } }, required: ['url'] },
      },
    },
    // Not an allowed domain: the built-in would refuse it without touching the network.
    call: { name: 'fetch_url', arguments: { url: 'https://docs.python.org/3/', max_chars: 2000 } },
  },
  {
    tool: {
      type: 'function',
      function: {
        name: 'weather-now',
        description: 'Weather right now in a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    },
    call: { name: 'weather-now', arguments: { city: 'Paris' } },
  },
];

describe.each(MODEL_PATHS)('client tools on $model', ({ kind, model }) => {
  it.each(CLIENT_TOOLS)('a client function named $call.name comes back to the client as a call (create)', async ({ tool, call }) => {
    suite.upstream.script = callsThenAnswer([call], 'Done');
    const completion = await client().chat.completions.create({ model, messages: [{ role: 'user', content: 'go' }], tools: [tool] });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls).toEqual([expect.objectContaining({ type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })]);
    // The upstream saw the client's definition, not a server tool's.
    const seen = suite.chatRequests();
    expect(seen).toHaveLength(1);
    expect(offeredToolNames(seen[0]!)).toEqual([call.name]);
    if (kind === 'ollama-text') {
      expect(seen[0]!.system).toContain(tool.function.description);
    } else {
      const sent = (seen[0]!.body.tools as { function: Record<string, unknown> }[])[0]!.function;
      expect(sent).toMatchObject({ name: call.name, description: tool.function.description, parameters: tool.function.parameters });
      if (kind === 'openai' && tool.function.strict === true) expect(sent.strict).toBe(true);
    }
  });

  it.each(CLIENT_TOOLS)('a client function named $call.name comes back to the client as a call (stream)', async ({ tool, call }) => {
    suite.upstream.script = callsThenAnswer([call], 'Done');
    const final = await client().chat.completions.stream({ model, messages: [{ role: 'user', content: 'go' }], tools: [tool] }).finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.choices[0]!.message.tool_calls?.map((c) => (c.type === 'function' ? [c.function.name, JSON.parse(c.function.arguments) as unknown] : []))).toEqual([[call.name, call.arguments]]);
  });

  it('a name-only entry asks for the server tool: the gateway runs it and returns the answer', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'calculate', arguments: { expression: '6 * 7' } }], 'It is 42');
    const completion = await client().chat.completions.create({ model, messages: [{ role: 'user', content: '6*7?' }], tools: [{ type: 'function', function: { name: 'calculate' } }] });
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(completion.choices[0]!.message.content).toContain('It is 42');
    expect(completion.choices[0]!.message.content).toContain('42');
    expect(suite.chatRequests()).toHaveLength(2);
    expect(suite.chatRequests()[1]!.toolResults[0]).toContain('"result":"42"');
  });
});

describe('a key whose alwaysTools forces a server tool', () => {
  let gateway: GatewayProcess;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolwire-keys-'));
    const config = join(dir, 'gateway.json');
    await writeFile(config, JSON.stringify({ keys: [{ id: 'team', keyHash: hashApiKey('sk-team'), alwaysTools: ['calculate'] }] }));
    gateway = await startGatewayProcess(suite.upstream, { args: ['--config', config] });
  }, 30_000);
  afterAll(async () => {
    await gateway.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const team = (): OpenAI => new OpenAI({ apiKey: 'sk-team', baseURL: gateway.baseURL, maxRetries: 0 });

  it('runs it for a request that does not name it', async () => {
    suite.upstream.script = callsThenAnswer([{ name: 'calculate', arguments: { expression: '2^10' } }], 'It is 1024');
    const completion = await team().chat.completions.create({ model: MODEL_PATHS[0]!.model, messages: [{ role: 'user', content: '2^10?' }] });
    expect(completion.choices[0]!.message.content).toContain('It is 1024');
    expect(suite.chatRequests()[1]!.toolResults[0]).toContain('1024');
  });

  it('answers 400 naming the tool when the client defines its own function of that name', async () => {
    suite.upstream.script = callsThenAnswer([CLIENT_TOOLS[0]!.call], 'Done');
    const error = await team()
      .chat.completions.create({ model: MODEL_PATHS[0]!.model, messages: [{ role: 'user', content: 'go' }], tools: [CLIENT_TOOLS[0]!.tool] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('calculate');
    expect(suite.chatRequests()).toHaveLength(0);
  });
});
