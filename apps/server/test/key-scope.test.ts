import { ModelNotFoundError } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import OpenAI from 'openai';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createServer, hashApiKey } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';

// What a key limited by `models` and `tools` can learn and get.
let server: ToolwireServer;
let limited: OpenAI;
let admin: OpenAI;

beforeAll(async () => {
  server = createServer({
    logger: pino({ level: 'silent' }),
    keys: [
      { id: 'team', keyHash: hashApiKey('sk-team'), models: ['test/public*'] },
      { id: 'admin', keyHash: hashApiKey('sk-admin') },
    ],
    modelProviders: [
      {
        name: 'test',
        chat: (id) => {
          if (id !== 'public' && id !== 'private-model') {
            throw new ModelNotFoundError({ provider: 'test', modelId: id, message: `No model '${id}'. Configured: test/public, test/private-model.` });
          }
          return createScriptedModel([{ text: 'hi' }]);
        },
        listModels: () => Promise.resolve(['public', 'private-model']),
      },
      { name: 'hidden-provider', chat: () => createScriptedModel([{ text: 'x' }]), listModels: () => Promise.resolve(['secret']) },
    ],
  });
  const baseURL = await server.listen({ port: 0 });
  limited = new OpenAI({ apiKey: 'sk-team', baseURL, maxRetries: 0 });
  admin = new OpenAI({ apiKey: 'sk-admin', baseURL, maxRetries: 0 });
});
afterAll(() => server.close());

const ask = (client: OpenAI, model: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error);

describe('a key limited by models', () => {
  for (const model of ['test/private-model', 'hidden-provider/secret', 'test/public-unknown', 'nowhere/x', 'no-prefix']) {
    it(`gets a 404 naming only its own models for ${model}`, async () => {
      const error = await ask(limited, model);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      // The name the client sent is echoed; nothing else is named but the key's own patterns.
      const message = (error as InstanceType<typeof OpenAI.NotFoundError>).message.replaceAll(`'${model}'`, "'…'");
      expect(message).toBe("404 The model '…' does not exist or the API key 'team' may not use it. This key may use: test/public*.");
    });
  }

  it('lists only its own models', async () => {
    const ids: string[] = [];
    for await (const model of limited.models.list()) ids.push(model.id);
    expect(ids).toEqual(['test/public']);
  });

  it('still uses what it may', async () => {
    const completion = await limited.chat.completions.create({ model: 'test/public', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.choices[0]?.message.content).toBe('hi');
  });
});

describe('an unlimited key', () => {
  it('keeps the full explanation of an unknown model', async () => {
    const error = await ask(admin, 'nowhere/x');
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as Error).message).toContain('hidden-provider/');
  });
});

describe('alwaysTools', () => {
  it("outside the key's own tools is a configuration error at creation", () => {
    expect(() => createServer({ logger: pino({ level: 'silent' }), keys: [{ id: 'k', keyHash: hashApiKey('sk-k'), tools: ['get_current_time'], alwaysTools: ['calculate'] }] })).toThrow(ConfigError);
  });
});
