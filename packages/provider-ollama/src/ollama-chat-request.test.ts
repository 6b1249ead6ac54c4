import { InvalidRequestError } from '@toolwire/core';
import { describe, expect, it } from 'vitest';
import { buildChatBody } from './ollama-chat-request.ts';

const build = (providerOptions: Record<string, unknown>) =>
  buildChatBody({ modelId: 'qwen3', request: { messages: [{ role: 'user', content: 'hi' }], providerOptions: { ollama: providerOptions } }, settings: {} });

describe('buildChatBody provider options', () => {
  it('takes think, keepAlive, options and format per request', () => {
    expect(build({ think: 'high', keepAlive: '5m', options: { num_ctx: 8192 }, format: 'json' })).toMatchObject({
      think: 'high',
      keep_alive: '5m',
      options: { num_ctx: 8192 },
      format: 'json',
    });
  });

  it('cannot replace the model or the messages, and refuses mistyped values', () => {
    const body = build({ model: 'other', messages: [] });
    expect(body.model).toBe('qwen3');
    expect(body.messages).toHaveLength(1);
    expect(() => build({ options: 'fast' })).toThrow(InvalidRequestError);
    expect(() => build({ think: 'maximum' })).toThrow(/providerOptions.ollama.think/);
  });
});
