// The whole loop: core's runTools over openai.chat against the local server, with a
// strict tool whose optional parameter the model sends as null (strict mode makes it).
import { defineTool, runTools } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { completion } from './chat-wire.ts';
import { useOpenAITestServer } from './openai-test-server.ts';

const server = useOpenAITestServer();

describe('runTools over openai.chat', () => {
  it('executes a strict tool call and sends the result back for the answer', async () => {
    const seen: unknown[] = [];
    const weather = defineTool({
      name: 'get_weather',
      description: 'Current weather for a city',
      strict: true,
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
        required: ['city'],
        additionalProperties: false,
      },
      execute: (args: Record<string, unknown>) => {
        seen.push(args);
        return { tempC: 18 };
      },
    });
    server().reply(
      {
        kind: 'json',
        body: completion({ tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":null}' } }] }, 'tool_calls'),
      },
      { kind: 'json', body: completion({ content: 'It is 18°C in Paris.' }) },
    );
    const result = await runTools({
      model: createOpenAI({ baseURL: server().baseURL, apiKey: 'sk-test', maxRetries: 0 }).chat('gpt-4.1-mini'),
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weather],
    });
    expect(result.text).toBe('It is 18°C in Paris.');
    expect(result.stoppedBy).toBe('answer');
    // The null the strict schema forced is gone, so the original schema's validation passes.
    expect(seen).toEqual([{ city: 'Paris' }]);
    const first = server().requests[0]?.body;
    expect(first.tools[0].function).toMatchObject({
      strict: true,
      parameters: { required: ['city', 'unit'], properties: { unit: { type: ['string', 'null'], enum: ['c', 'f', null] } } },
    });
    const second = server().requests[1]?.body;
    expect(second.messages.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_w1', content: expect.stringContaining('18') },
    ]);
  });

  it('answers malformed arguments with a validation_error the model can read, and goes on', async () => {
    server().requests.length = 0;
    let ran = false;
    const lookup = defineTool({
      name: 'lookup',
      parameters: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      execute: () => {
        ran = true;
        return 'found';
      },
    });
    server().reply(
      { kind: 'json', body: completion({ tool_calls: [{ id: 'call_l1', type: 'function', function: { name: 'lookup', arguments: '{"id": 4' } }] }, 'tool_calls') },
      { kind: 'json', body: completion({ content: 'Sorry, let me fix that.' }) },
    );
    const result = await runTools({
      model: createOpenAI({ baseURL: server().baseURL, apiKey: 'sk-test', maxRetries: 0 }).chat('gpt-4.1-mini'),
      messages: [{ role: 'user', content: 'Look up 42' }],
      tools: [lookup],
    });
    expect(ran).toBe(false);
    expect(result.steps[0]?.toolResults[0]).toMatchObject({ success: false, error: { type: 'validation_error' } });
    const toolMessage = server().requests[1]?.body.messages.at(-1);
    expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: 'call_l1' });
    expect(result.text).toBe('Sorry, let me fix that.');
  });
});
