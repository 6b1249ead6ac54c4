// The provider under core's real tool loop: the CLI-tool dispatch in codex mode hands
// `runTools` an ordinary call of the user's tool, and its result goes back as the
// `function_call_output` of the model's shell call.
import { defineTool, runTools } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';

import { createChatGPT } from '../src/index.ts';
import { startBackend, textEvents, toolCallEvents } from './helpers/backend-server.ts';
import { makeTokenSet } from './helpers/jwt.ts';
import { recordingLogger } from './helpers/temp-dir.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup() {
  const backend = await startBackend({ models: [{ slug: 'gpt-5.4', base_instructions: 'base' }] });
  closers.push(backend.close);
  const tokens = makeTokenSet();
  const { logger, lines } = recordingLogger();
  const chatgpt = createChatGPT({ auth: { tokens: { accessToken: tokens.access_token, idToken: tokens.id_token } }, baseURL: backend.url, logger, maxRetries: 0 });
  return { backend, chatgpt, lines };
}

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  execute: ({ city }: Record<string, unknown>) => ({ city, sky: 'clear' }),
});

describe('with core runTools', () => {
  it('executes a toolwire-tool shell command through the normal loop in codex mode', async () => {
    const { backend, chatgpt } = await setup();
    const argv = JSON.stringify({ command: ['toolwire-tool', 'get_weather', '{"city":"Bergen"}'] });
    backend.reply(
      { sse: toolCallEvents([{ callId: 'call_1', name: 'shell', arguments: argv }]) },
      // The model gets a validation error back for a bad call and corrects itself.
      { sse: toolCallEvents([{ callId: 'call_2', name: 'shell', arguments: JSON.stringify({ command: ['toolwire-tool', 'get_weather', '{"town":1}'] }) }]) },
      { sse: textEvents('Clear skies in Bergen.') },
    );
    const result = await runTools({
      model: chatgpt.chat('gpt-5.4', { toolMode: 'codex', cliTools: true }),
      messages: [{ role: 'user', content: 'Weather in Bergen?' }],
      tools: [weather],
    });
    expect(result.stoppedBy).toBe('answer');
    expect(result.text).toBe('Clear skies in Bergen.');
    expect(result.steps[0]!.toolResults[0]).toMatchObject({ toolCallId: 'call_1', name: 'get_weather', success: true, value: { city: 'Bergen', sky: 'clear' } });
    expect(result.steps[1]!.toolResults[0]).toMatchObject({ toolCallId: 'call_2', success: false, error: { type: 'validation_error' } });

    const last = backend.requests[2]!.body.input as Record<string, unknown>[];
    const pairs = last.filter((item) => item.type === 'function_call' || item.type === 'function_call_output');
    expect(pairs.map((item) => [item.type, item.call_id, item.name ?? null])).toEqual([
      ['function_call', 'call_1', 'shell'],
      ['function_call_output', 'call_1', null],
      ['function_call', 'call_2', 'shell'],
      ['function_call_output', 'call_2', null],
    ]);
    expect(pairs[0]!.arguments).toBe(argv);
    expect(JSON.parse(pairs[1]!.output as string)).toEqual({ city: 'Bergen', sky: 'clear' });
  });

  it('runs passthrough function tools the same way', async () => {
    const { backend, chatgpt } = await setup();
    backend.reply({ sse: toolCallEvents([{ callId: 'call_p', name: 'get_weather', arguments: '{"city":"Turku"}' }]) }, { sse: textEvents('Clear in Turku.') });
    const result = await runTools({ model: chatgpt.chat('gpt-5.4'), messages: [{ role: 'user', content: 'Turku?' }], tools: [weather] });
    expect(result.text).toBe('Clear in Turku.');
    expect(backend.requests[1]!.body.input.at(-1)).toMatchObject({ type: 'function_call_output', call_id: 'call_p' });
  });
});
