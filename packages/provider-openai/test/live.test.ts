// Against the real OpenAI API; runs only when OPENAI_API_KEY is set.
import { collectStream } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from '../src/index.ts';
import { weatherTool } from './tools.ts';

const apiKey = process.env['OPENAI_API_KEY'];
const modelId = process.env['OPENAI_LIVE_MODEL'] ?? 'gpt-4.1-mini';
if (!apiKey) console.log('Skipping live OpenAI tests: OPENAI_API_KEY is not set.');


describe.skipIf(!apiKey)('live OpenAI API', () => {
  const openai = createOpenAI({ ...(apiKey ? { apiKey } : {}), baseURL: 'https://api.openai.com/v1' });

  it('chat: streams a forced tool call', async () => {
    const response = await collectStream(
      openai.chat(modelId).stream({ messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool], toolChoice: { type: 'tool', name: 'get_weather' } }),
    );
    expect(response.toolCalls[0]?.name).toBe('get_weather');
    expect(String(response.toolCalls[0]?.arguments['city'])).toMatch(/paris/i);
    expect(response.finishReason).toBe('tool-calls');
  });

  it('responses: answers with a strict tool call', async () => {
    const response = await openai.responses(modelId).generate({
      messages: [{ role: 'user', content: 'Weather in Rome?' }],
      tools: [{ ...weatherTool, strict: true }],
      toolChoice: 'required',
    });
    expect(response.toolCalls[0]?.name).toBe('get_weather');
  });
});
