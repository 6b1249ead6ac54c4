import { createClient } from './ollama-client.ts';
import type { OllamaConnection } from './ollama-client.ts';
import { mapOllamaError } from './map-ollama-error.ts';

/** What `/api/show` says a model can do (`completion`, `tools`, `thinking`, `vision`, …). */
export interface ModelCapabilities {
  /** `undefined` when the server is too old to report capabilities. */
  capabilities: string[] | undefined;
  /** The digest `/api/tags` listed when this was looked up, if known. */
  digest?: string | undefined;
}

// Shared by every provider instance: the gateway may create one per request. Keyed by
// host and model, since two servers can hold different models under one name.
const cache = new Map<string, Promise<ModelCapabilities>>();

function keyOf(host: string, model: string): string {
  return `${host}\n${model}`;
}

/**
 * The model's capabilities, from the cache or one `/api/show` call (concurrent callers
 * share it; a failed lookup is not cached). `digest` refreshes an entry recorded for an
 * older version of the model.
 */
export function getModelCapabilities(connection: OllamaConnection, model: string, digest?: string): Promise<ModelCapabilities> {
  const key = keyOf(connection.host, model);
  const cached = cache.get(key);
  if (cached !== undefined) {
    if (digest === undefined) return cached;
    return cached.then((entry) =>
      entry.digest === undefined || entry.digest === digest ? entry : refresh(connection, model, digest),
    );
  }
  return refresh(connection, model, digest);
}

function refresh(connection: OllamaConnection, model: string, digest: string | undefined): Promise<ModelCapabilities> {
  const key = keyOf(connection.host, model);
  const lookup = showCapabilities(connection, model, digest);
  cache.set(key, lookup);
  lookup.catch(() => {
    if (cache.get(key) === lookup) cache.delete(key);
  });
  return lookup;
}

async function showCapabilities(connection: OllamaConnection, model: string, digest: string | undefined): Promise<ModelCapabilities> {
  try {
    const shown = await createClient(connection).show({ model });
    const capabilities = Array.isArray(shown.capabilities)
      ? shown.capabilities.filter((c): c is string => typeof c === 'string')
      : undefined;
    return { capabilities, digest };
  } catch (error) {
    throw mapOllamaError(error, { host: connection.host, modelId: model, headers: connection.headers });
  }
}

/** Records that the server rejected native tools for this model (a 400 "does not support tools"). */
export function markToolsUnsupported(connection: OllamaConnection, model: string): void {
  const key = keyOf(connection.host, model);
  const previous = cache.get(key);
  const next = (previous ?? Promise.resolve<ModelCapabilities>({ capabilities: ['completion'] })).then(
    (entry) => ({ ...entry, capabilities: (entry.capabilities ?? ['completion']).filter((c) => c !== 'tools') }),
    (): ModelCapabilities => ({ capabilities: ['completion'] }),
  );
  cache.set(key, next);
}

/** Whether native tools should be used: `tools` is listed, or the server does not say. */
export function hasNativeTools(entry: ModelCapabilities): boolean {
  return entry.capabilities === undefined || entry.capabilities.includes('tools');
}
