import type { ChatModel } from '@toolwire/core';
import { raceAbort } from '@toolwire/core/provider';
import { GatewayError } from '../wire/gateway-error.ts';
import type { ModelProvider } from './model-provider.ts';

/** Resolves `prefix/id` model names to `ChatModel`s and lists what exists. */
export interface ModelRouter {
  /** The model for a client's model name; a 404 `GatewayError` naming the prefixes when unknown. */
  resolve(model: string): ChatModel;
  /** Every provider's models as `prefix/id`; a provider that fails to list is skipped and reported. */
  list(signal?: AbortSignal): Promise<{ models: { id: string; ownedBy: string }[]; failures: { provider: string; error: unknown }[] }>;
  readonly prefixes: readonly string[];
}

/** Creates the router over the configured providers. */
export function createModelRouter(providers: readonly ModelProvider[]): ModelRouter {
  const byName = new Map(providers.map((p) => [p.name, p]));
  const prefixes = providers.map((p) => p.name);
  const cache = new Map<string, ChatModel>();
  const notFound = (model: string, why: string): GatewayError =>
    new GatewayError({
      status: 404,
      type: 'invalid_request_error',
      message: `The model '${model}' does not exist: ${why} Use 'provider/model' with a provider among: ${prefixes.map((p) => `${p}/`).join(', ') || '(none configured)'}; GET /v1/models lists the models.`,
      param: 'model',
      code: 'model_not_found',
    });
  return {
    prefixes,
    resolve(model) {
      const cached = cache.get(model);
      if (cached) return cached;
      const slash = model.indexOf('/');
      if (slash <= 0 || slash === model.length - 1) throw notFound(model, 'it has no provider prefix.');
      const provider = byName.get(model.slice(0, slash));
      if (!provider) throw notFound(model, `no provider is named '${model.slice(0, slash)}'.`);
      const chat = provider.chat(model.slice(slash + 1));
      if (cache.size > 1000) cache.clear();
      cache.set(model, chat);
      return chat;
    },
    async list(signal) {
      // A provider that does not stop on the signal is no longer waited for once it aborts.
      const settled = await Promise.allSettled(providers.map((p) => (signal === undefined ? p.listModels() : raceAbort(p.listModels(signal), signal))));
      const models: { id: string; ownedBy: string }[] = [];
      const failures: { provider: string; error: unknown }[] = [];
      settled.forEach((outcome, i) => {
        const provider = providers[i];
        if (provider === undefined) return;
        if (outcome.status === 'rejected') {
          failures.push({ provider: provider.name, error: outcome.reason });
          return;
        }
        // The list is the upstream's JSON: an id may be anything, and an object with its own
        // `toString` key (`{"toString": 1}`) throws when put in a string. Only names are listed.
        let skipped = 0;
        for (const id of outcome.value as readonly unknown[]) {
          if (typeof id === 'string' && id !== '') models.push({ id: `${provider.name}/${id}`, ownedBy: provider.name });
          else skipped++;
        }
        if (skipped > 0) failures.push({ provider: provider.name, error: new Error(`${skipped} model ${skipped === 1 ? 'entry has' : 'entries have'} no name (an id that is not a string); left out of the list.`) });
      });
      return { models, failures };
    },
  };
}

