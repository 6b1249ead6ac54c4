import { createOllama } from '@toolwire/provider-ollama';
import type { ProvidersConfig } from '../config/server-config.ts';
import type { ModelProvider } from './model-provider.ts';

/** The routing prefixes the config file asks for, built on the provider packages. */
export function createConfiguredProviders(config: ProvidersConfig): ModelProvider[] {
  const providers: ModelProvider[] = [];
  if (config.ollama !== undefined) {
    const ollama = createOllama(config.ollama.host === undefined ? {} : { host: config.ollama.host });
    providers.push({
      name: 'ollama',
      chat: (id) => ollama.chat(id),
      listModels: async () => (await ollama.listModels()).map((m) => m.name),
    });
  }
  return providers;
}
