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

/** One lookup of a model's capabilities, shared by everyone who asks while it runs. */
interface Lookup {
  readonly key: string;
  readonly promise: Promise<ModelCapabilities>;
  /** Stops the `/api/show` request; absent for an entry made without one. */
  readonly controller: AbortController | undefined;
  /** Callers waiting on it; when every one of them has given up (aborted), the request is stopped. */
  waiters: number;
  settled: boolean;
}

// Shared by every provider instance: the gateway may create one per request. Keyed by
// host and model, since two servers can hold different models under one name.
const cache = new Map<string, Lookup>();

function keyOf(host: string, model: string): string {
  return `${host}\n${model}`;
}

function track(key: string, promise: Promise<ModelCapabilities>, controller: AbortController | undefined): Lookup {
  const lookup: Lookup = { key, promise, controller, waiters: 0, settled: false };
  cache.set(key, lookup);
  promise.then(
    () => {
      lookup.settled = true;
    },
    () => {
      lookup.settled = true;
      // A failed lookup is not cached.
      if (cache.get(key) === lookup) cache.delete(key);
    },
  );
  return lookup;
}

/**
 * The model's capabilities, from the cache or one `/api/show` call (concurrent callers
 * share it; a failed lookup is not cached). `digest` refreshes an entry recorded for an
 * older version of the model. An abort of `signal` rejects this caller's wait with its
 * reason; a lookup every waiting caller gave up on is stopped and not kept, so that a server
 * that never finishes its answer holds neither a socket nor every later request.
 */
export function getModelCapabilities(connection: OllamaConnection, model: string, digest?: string, signal?: AbortSignal): Promise<ModelCapabilities> {
  const cached = cache.get(keyOf(connection.host, model));
  if (cached === undefined) return waitFor(refresh(connection, model, digest), signal);
  if (digest === undefined) return waitFor(cached, signal);
  return waitFor(cached, signal).then((entry) => (entry.digest === undefined || entry.digest === digest ? entry : waitFor(refresh(connection, model, digest), signal)));
}

function waitFor(lookup: Lookup, signal: AbortSignal | undefined): Promise<ModelCapabilities> {
  if (lookup.settled || signal === undefined) {
    // A caller who cannot give up keeps the lookup wanted until it settles.
    if (!lookup.settled) lookup.waiters++;
    return lookup.promise;
  }
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  lookup.waiters++;
  return new Promise<ModelCapabilities>((resolve, reject) => {
    const onAbort = (): void => {
      lookup.waiters--;
      if (lookup.waiters === 0 && !lookup.settled) {
        if (cache.get(lookup.key) === lookup) cache.delete(lookup.key);
        lookup.controller?.abort();
      }
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    lookup.promise.then(
      (entry) => {
        signal.removeEventListener('abort', onAbort);
        resolve(entry);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        // What the lookup failed with, passed on as it is (a core error, or an abort).
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(error);
      },
    );
  });
}

function refresh(connection: OllamaConnection, model: string, digest: string | undefined): Lookup {
  const controller = new AbortController();
  return track(keyOf(connection.host, model), showCapabilities(connection, model, digest, controller.signal), controller);
}

/** A whole JSON object: an `/api/show` answer whose end does not come is taken after the grace. */
function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function showCapabilities(connection: OllamaConnection, model: string, digest: string | undefined, signal: AbortSignal): Promise<ModelCapabilities> {
  try {
    const shown: unknown = await createClient(connection, { signal }, { wholeJson: true, isComplete: isJsonObject }).show({ model });
    // An answer that is not an object (`null`, a list) says as little as a server too old to list capabilities.
    const listed = isJsonObject(shown) ? (shown as { capabilities?: unknown }).capabilities : undefined;
    const capabilities = Array.isArray(listed) ? listed.filter((c): c is string => typeof c === 'string') : undefined;
    return { capabilities, digest };
  } catch (error) {
    throw mapOllamaError(error, { host: connection.host, modelId: model, headers: connection.headers });
  }
}

/** Records that the server rejected native tools for this model (a 400 "does not support tools"). */
export function markToolsUnsupported(connection: OllamaConnection, model: string): void {
  const key = keyOf(connection.host, model);
  const previous = cache.get(key)?.promise;
  const next = (previous ?? Promise.resolve<ModelCapabilities>({ capabilities: ['completion'] })).then(
    (entry) => ({ ...entry, capabilities: (entry.capabilities ?? ['completion']).filter((c) => c !== 'tools') }),
    (): ModelCapabilities => ({ capabilities: ['completion'] }),
  );
  track(key, next, undefined);
}

/** Whether native tools should be used: `tools` is listed, or the server does not say. */
export function hasNativeTools(entry: ModelCapabilities): boolean {
  return entry.capabilities === undefined || entry.capabilities.includes('tools');
}
