// Talks to the real ChatGPT backend with a real sign-in. Runs only with
// TOOLWIRE_LIVE_CHATGPT=1 and a sign-in from `toolwire login chatgpt` (or Codex, read-only).
import { describe, expect, it } from 'vitest';

import { createChatGPT, whoami } from '../src/index.ts';

const enabled = process.env.TOOLWIRE_LIVE_CHATGPT === '1';
const status = enabled ? await whoami() : undefined;
const skipReason = !enabled
  ? 'set TOOLWIRE_LIVE_CHATGPT=1 to run it against the real backend'
  : status?.signedIn !== true
    ? 'no ChatGPT sign-in found: run `toolwire login chatgpt` (or `codex login`) first'
    : undefined;
if (skipReason !== undefined) console.log(`[provider-chatgpt-oauth] live test skipped: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('live ChatGPT backend', () => {
  const model = process.env.TOOLWIRE_LIVE_CHATGPT_MODEL ?? 'gpt-5.4';

  it('answers and calls a passthrough function tool', async () => {
    const chatgpt = createChatGPT();
    const response = await chatgpt.chat(model, { reasoningEffort: 'low' }).generate({
      messages: [{ role: 'user', content: 'Call get_weather for Paris. Do not answer in text.' }],
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Current weather for a city.',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
    });
    expect(response.toolCalls[0]?.name).toBe('get_weather');
    expect(String(response.toolCalls[0]?.arguments.city)).toMatch(/paris/i);
    expect(response.providerMetadata?.chatgpt).toHaveProperty('conversationId');
  }, 60_000);
});
