import type { Message, ToolCall, ToolMessage } from '@toolwire/core';

/**
 * The server-tool half of a model turn that called server and client tools together.
 * The client sees only its own calls; this is what its next request lacks.
 */
export interface HiddenToolTurn {
  /** The turn's client calls, with the ids the client was given, in order. */
  clientCallIds: readonly string[];
  /** Every call of the turn in the model's order (client calls with the client's ids). */
  toolCalls: readonly ToolCall[];
  /** The server tools' results, one `tool` message per server call. */
  results: readonly ToolMessage[];
}

/**
 * Remembers hidden turns per API key for a while, so that when the client sends the
 * conversation back (with its tool results) the model again sees the whole turn: its
 * server calls and their results as well. Bounded in count and in the results' size (the
 * least recently used go first), and an entry lapses `ttlMs` after its last use. Held in
 * memory, so it is per process.
 */
export interface HiddenToolTurns {
  remember(principal: string, turn: HiddenToolTurn): void;
  /** `messages` with every remembered turn of this principal restored; the same array when none matched. */
  restore(principal: string, messages: Message[]): Message[];
  readonly size: number;
}

/** Options of `createHiddenToolTurns`. */
export interface HiddenToolTurnsOptions {
  /** Default 1000. */
  maxEntries?: number;
  /** Cap on the kept results' text, in UTF-16 code units (default 16 Mi); the oldest turns go first. */
  maxTextLength?: number;
  /** Default one hour. */
  ttlMs?: number;
  /** The clock, for tests (default `Date.now`). */
  now?: () => number;
}

interface Entry {
  turn: HiddenToolTurn;
  expiresAt: number;
  /** The results' text length, for the size cap. */
  size: number;
}

const keyOf = (principal: string, firstClientCallId: string): string => `${principal}\n${firstClientCallId}`;

function sameIds(calls: readonly ToolCall[], ids: readonly string[]): boolean {
  return calls.length === ids.length && calls.every((call, i) => call.id === ids[i]);
}

/** The id a remembered turn would be found by for each assistant message with tool calls (its first call's). */
export function turnLookupIds(messages: readonly Message[]): string[] {
  const ids: string[] = [];
  for (const message of messages) {
    const first = message.role === 'assistant' ? message.toolCalls?.[0] : undefined;
    if (first !== undefined) ids.push(first.id);
  }
  return ids;
}

/**
 * `messages` with the turns `find` knows restored: an assistant message whose calls are
 * exactly a turn's client calls gets the turn's server calls back, followed by their
 * results. `onRestored` hears each first call id used. The same array when none matched.
 */
export function restoreHiddenTurns(messages: Message[], find: (firstCallId: string) => HiddenToolTurn | undefined, onRestored?: (firstCallId: string) => void): Message[] {
  const out: Message[] = [];
  let changed = false;
  for (const message of messages) {
    const first = message.role === 'assistant' ? message.toolCalls?.[0] : undefined;
    const turn = first === undefined ? undefined : find(first.id);
    if (message.role !== 'assistant' || message.toolCalls === undefined || first === undefined || turn === undefined || !sameIds(message.toolCalls, turn.clientCallIds)) {
      out.push(message);
      continue;
    }
    changed = true;
    onRestored?.(first.id);
    // The client's calls as it sent them back; the server's from the turn.
    const sent = new Map(message.toolCalls.map((call) => [call.id, call]));
    out.push({ ...message, toolCalls: turn.toolCalls.map((call) => sent.get(call.id) ?? call) }, ...turn.results);
  }
  return changed ? out : messages;
}

/** A turn's size for the store's cap: its results' text length. */
export function hiddenTurnSize(turn: HiddenToolTurn): number {
  return turn.results.reduce((sum, result) => sum + result.content.length, 0);
}

/** Creates the store one server shares across its requests. */
export function createHiddenToolTurns(options: HiddenToolTurnsOptions = {}): HiddenToolTurns {
  const maxEntries = options.maxEntries ?? 1000;
  const maxTextLength = options.maxTextLength ?? 16 * 1024 * 1024;
  let totalSize = 0;
  const ttlMs = options.ttlMs ?? 60 * 60 * 1000;
  const now = options.now ?? Date.now;
  // Insertion order is use order: a used entry is moved to the end.
  const entries = new Map<string, Entry>();

  const drop = (key: string, entry: Entry): void => {
    entries.delete(key);
    totalSize -= entry.size;
  };
  const dropExpired = (at: number): void => {
    for (const [key, entry] of entries) {
      if (entry.expiresAt > at) break;
      drop(key, entry);
    }
  };

  return {
    get size() {
      return entries.size;
    },
    remember(principal, turn) {
      const first = turn.clientCallIds[0];
      if (first === undefined || turn.results.length === 0) return;
      const at = now();
      dropExpired(at);
      const size = hiddenTurnSize(turn);
      // A turn larger than the whole cap is not kept: the model then sees the client's half only.
      if (size > maxTextLength) return;
      const key = keyOf(principal, first);
      const previous = entries.get(key);
      if (previous !== undefined) drop(key, previous);
      entries.set(key, { turn, expiresAt: at + ttlMs, size });
      totalSize += size;
      for (const [oldestKey, oldest] of entries) {
        if (entries.size <= maxEntries && totalSize <= maxTextLength) break;
        drop(oldestKey, oldest);
      }
    },
    restore(principal, messages) {
      if (entries.size === 0) return messages;
      const at = now();
      dropExpired(at);
      return restoreHiddenTurns(
        messages,
        (firstCallId) => entries.get(keyOf(principal, firstCallId))?.turn,
        (firstCallId) => {
          // Used again: it moves to the end and lives another `ttlMs`.
          const key = keyOf(principal, firstCallId);
          const entry = entries.get(key);
          if (entry === undefined) return;
          entries.delete(key);
          entries.set(key, { ...entry, expiresAt: at + ttlMs });
        },
      );
    },
  };
}
