import { createScriptedModel } from '@toolwire/core/testing';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../wire/gateway-error.ts';
import { createModelRouter } from './model-router.ts';

const router = createModelRouter([
  { name: 'ollama', chat: (id) => createScriptedModel([], { provider: 'ollama', modelId: id }), listModels: () => Promise.resolve(['qwen3:0.6b']) },
  { name: 'openai', chat: (id) => createScriptedModel([], { provider: 'openai', modelId: id }), listModels: () => Promise.reject(new Error('offline')) },
]);

function notFound(model: string): GatewayError {
  try {
    router.resolve(model);
  } catch (error) {
    if (GatewayError.isInstance(error)) return error;
  }
  throw new Error('expected a 404');
}

describe('createModelRouter', () => {
  it('routes by prefix and keeps the rest as the model id, slashes included', () => {
    expect(router.resolve('ollama/qwen3:0.6b').modelId).toBe('qwen3:0.6b');
    expect(router.resolve('openai/ft:org/x').modelId).toBe('ft:org/x');
  });

  it('answers an unknown prefix with a 404 naming the prefixes that exist', () => {
    const error = notFound('anthropic/claude');
    expect(error.status).toBe(404);
    expect(error.code).toBe('model_not_found');
    expect(error.message).toContain('ollama/, openai/');
  });

  it('answers a model without a prefix with a 404', () => {
    expect(notFound('gpt-4o').status).toBe(404);
  });

  it('lists every provider with its prefix and reports the ones that fail', async () => {
    const { models, failures } = await router.list();
    expect(models).toEqual([{ id: 'ollama/qwen3:0.6b', ownedBy: 'ollama' }]);
    expect(failures.map((f) => f.provider)).toEqual(['openai']);
  });

  it("lists only the names of a provider's list and reports entries without one (an object with its own toString key does not throw)", async () => {
    const ids = JSON.parse('["gpt-4o-mini", {"toString": 1}, 7, "", null]') as string[];
    const odd = createModelRouter([{ name: 'openai', chat: (id) => createScriptedModel([], { provider: 'openai', modelId: id }), listModels: () => Promise.resolve(ids) }]);
    const { models, failures } = await odd.list();
    expect(models).toEqual([{ id: 'openai/gpt-4o-mini', ownedBy: 'openai' }]);
    expect(failures.map((f) => [f.provider, (f.error as Error).message])).toEqual([['openai', '4 model entries have no name (an id that is not a string); left out of the list.']]);
  });
});
