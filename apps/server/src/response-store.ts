import type { Message } from '@toolwire/core';
import type { ResponsesHistory } from './wire/parse-responses-request.ts';
import type { WireResponse } from './wire/responses-wire-types.ts';

/** One stored response: what `previous_response_id` continues and what `item_reference` finds. */
export interface StoredResponse {
  /** `resp_…` */
  id: string;
  /** The conversation it ended: its input (without `instructions`) and its output as messages. */
  conversation: readonly Message[];
  /** The Response object as sent (`GET /v1/responses/{id}`); `item_reference`s find its output items. */
  response: WireResponse;
}

/**
 * The responses a client asked the gateway to keep (`store` not `false`), per API key, so
 * that a later request can continue one (`previous_response_id`) or point at its items
 * (`item_reference`). Bounded in count and in size (the least recently used go first); an
 * entry lapses `ttlMs` after its last use. Held in memory, so it is per process.
 */
export interface ResponseStore {
  save(principal: string, response: StoredResponse): void;
  /** What one API key may read: its own stored responses only. */
  historyOf(principal: string): ResponsesHistory;
  /** A stored Response object of this key, or undefined. */
  get(principal: string, id: string): WireResponse | undefined;
  readonly size: number;
}

/** Options of `createResponseStore`. */
export interface ResponseStoreOptions {
  /** Default 1000. */
  maxEntries?: number;
  /** Cap on the kept responses' JSON size, in UTF-16 code units (default 64 Mi); the oldest go first. */
  maxTextLength?: number;
  /** Default one hour. */
  ttlMs?: number;
  /** The clock, for tests (default `Date.now`). */
  now?: () => number;
}

interface Entry {
  response: StoredResponse;
  expiresAt: number;
  size: number;
}

const keyOf = (principal: string, id: string): string => `${principal}\n${id}`;

/** Creates the store one server shares across its requests. */
export function createResponseStore(options: ResponseStoreOptions = {}): ResponseStore {
  const maxEntries = options.maxEntries ?? 1000;
  const maxTextLength = options.maxTextLength ?? 64 * 1024 * 1024;
  const ttlMs = options.ttlMs ?? 60 * 60 * 1000;
  const now = options.now ?? Date.now;
  // Insertion order is use order: a used entry is moved to the end.
  const entries = new Map<string, Entry>();
  // Item key → the key of the response that holds it.
  const items = new Map<string, string>();
  let totalSize = 0;

  const drop = (key: string, entry: Entry, principal: string): void => {
    entries.delete(key);
    totalSize -= entry.size;
    for (const item of entry.response.response.output) {
      const itemKey = keyOf(principal, item.id);
      if (items.get(itemKey) === key) items.delete(itemKey);
    }
  };
  const principalOf = (key: string): string => key.slice(0, key.indexOf('\n'));
  const dropExpired = (at: number): void => {
    for (const [key, entry] of entries) {
      if (entry.expiresAt > at) break;
      drop(key, entry, principalOf(key));
    }
  };
  const use = (key: string): Entry | undefined => {
    const at = now();
    dropExpired(at);
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    entries.delete(key);
    entries.set(key, { ...entry, expiresAt: at + ttlMs });
    return entry;
  };

  return {
    get size() {
      return entries.size;
    },
    save(principal, response) {
      const at = now();
      dropExpired(at);
      const size = JSON.stringify(response).length;
      // A response larger than the whole cap is not kept: continuing it is then a clear 400.
      if (size > maxTextLength) return;
      const key = keyOf(principal, response.id);
      const previous = entries.get(key);
      if (previous !== undefined) drop(key, previous, principal);
      entries.set(key, { response, expiresAt: at + ttlMs, size });
      totalSize += size;
      for (const item of response.response.output) items.set(keyOf(principal, item.id), key);
      for (const [oldestKey, oldest] of entries) {
        if (entries.size <= maxEntries && totalSize <= maxTextLength) break;
        drop(oldestKey, oldest, principalOf(oldestKey));
      }
    },
    get(principal, id) {
      return use(keyOf(principal, id))?.response.response;
    },
    historyOf(principal) {
      return {
        conversation: (id) => use(keyOf(principal, id))?.response.conversation,
        item: (id) => {
          const responseKey = items.get(keyOf(principal, id));
          const entry = responseKey === undefined ? undefined : use(responseKey);
          return entry?.response.response.output.find((item) => item.id === id);
        },
      };
    },
  };
}
