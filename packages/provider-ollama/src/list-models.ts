import { createClient } from './ollama-client.ts';
import type { OllamaConnection } from './ollama-client.ts';
import { mapOllamaError } from './map-ollama-error.ts';
import { getModelCapabilities, hasNativeTools } from './model-capabilities.ts';

/** One installed model, marked with how it gets tools. */
export interface OllamaModelInfo {
  /** The name to pass to `chat()`, e.g. `qwen3:0.6b`. */
  name: string;
  /** `true`: native tools; `false`: text tool calling (what `textTools: 'auto'` picks). */
  nativeTools: boolean;
  /** The model can think (`think` setting, `reasoning-delta` events). */
  thinking: boolean;
  /** The model accepts images. */
  vision: boolean;
  /** Everything `/api/show` lists (`completion`, `tools`, `thinking`, `vision`, `embedding`, …). */
  capabilities: string[];
  size?: number;
  digest?: string;
  family?: string;
  parameterSize?: string;
  quantization?: string;
  modifiedAt?: string;
}

const LOOKUPS_AT_ONCE = 4;

/**
 * The server's models from `/api/tags`, each with its capabilities from `/api/show`
 * (cached per host and model, refreshed when the model's digest changes). `signal`
 * stops waiting; a lookup other callers share still completes and is cached.
 */
export async function listModels(connection: OllamaConnection, options: { signal?: AbortSignal } = {}): Promise<OllamaModelInfo[]> {
  const { signal } = options;
  let listed;
  try {
    listed = await createClient(connection, { signal }).list();
  } catch (error) {
    throw mapOllamaError(error, { host: connection.host, modelId: '(model list)', headers: connection.headers });
  }
  const models = Array.isArray(listed.models) ? listed.models : [];
  const infos: OllamaModelInfo[] = new Array<OllamaModelInfo>(models.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < models.length) {
      const index = next++;
      const model = models[index];
      if (model === undefined) continue;
      const name = model.name || model.model;
      const entry = await abortable(getModelCapabilities(connection, name, model.digest || undefined, signal), signal);
      const capabilities = entry.capabilities ?? [];
      const info: OllamaModelInfo = {
        name,
        nativeTools: hasNativeTools(entry),
        thinking: capabilities.includes('thinking'),
        vision: capabilities.includes('vision'),
        capabilities,
      };
      if (typeof model.size === 'number') info.size = model.size;
      if (model.digest) info.digest = model.digest;
      const details = model.details as Partial<typeof model.details> | undefined;
      if (details?.family) info.family = details.family;
      if (details?.parameter_size) info.parameterSize = details.parameter_size;
      if (details?.quantization_level) info.quantization = details.quantization_level;
      // A string or nothing: `String()` of a parsed object with its own `toString` key throws.
      if (typeof model.modified_at === 'string' && model.modified_at !== '') info.modifiedAt = model.modified_at;
      infos[index] = info;
    }
  }
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, models.length) }, () => worker()));
  return infos;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', onAbort);
    });
  });
}
