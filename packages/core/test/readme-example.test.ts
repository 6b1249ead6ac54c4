// The README's example, kept here so it cannot rot.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runTools } from '@toolwire/core';
import { createReplayModel, createScriptedModel } from '@toolwire/core/testing';

describe('README examples', () => {
  it('defineTool + runTools answers with the tool result', async () => {
    const weather = defineTool({
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: z.object({ city: z.string(), units: z.enum(['metric', 'imperial']).default('metric') }),
      execute: async ({ city, units }) => ({ city, temperature: units === 'metric' ? 21 : 70 }),
    });
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: 'It is 21 °C in Paris.' },
    ]);
    const result = await runTools({ model, tools: [weather], messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    expect([result.text, result.stoppedBy]).toEqual(['It is 21 °C in Paris.', 'answer']);
    expect(result.steps[0]?.toolResults[0]?.value).toEqual({ city: 'Paris', temperature: 21 });
  });

  it('the transcript in the README replays', async () => {
    const transcript = {
      name: 'weather',
      turns: [
        { lastRole: 'user', response: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] } },
        { lastRole: 'tool', response: { text: 'It is 21 °C in Paris.' } },
      ],
    } as const;
    const weather = defineTool({ name: 'get_weather', parameters: z.object({ city: z.string() }), execute: () => 21 });
    const model = createReplayModel(JSON.parse(JSON.stringify(transcript)));
    const result = await runTools({ model, tools: [weather], messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    expect(result.text).toBe('It is 21 °C in Paris.');
  });
});
