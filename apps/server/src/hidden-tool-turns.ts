import type { Message, ToolCall, ToolErrorType, ToolMessage } from '@toolwire/core';

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
 * What a store keeps of one server result: what the model reads, and how the tool failed
 * when it did. The rest of the `ToolResult` (its `value`: an MCP tool's image or audio data,
 * its uncut text) is for the caller of the loop, never read by the model, so it is not kept.
 */
export interface StoredToolResult {
  role: 'tool';
  toolCallId: string;
  toolName?: string;
  content: string;
  /**
   * Set when the tool failed: the error type, and the error text when it differs from
   * `content`. Text tools render a failure from these ("Error from … (call …, type)").
   */
  error?: { type: ToolErrorType; message?: string };
}

/** A hidden turn as the stores keep it: JSON text of this shape, in memory and in Redis alike. */
export interface StoredHiddenTurn {
  clientCallIds: readonly string[];
  /**
   * Every call of the turn in the model's order. The client's calls only by id and name
   * (with empty arguments): the client sends them back, and restoring uses the client's.
   */
  toolCalls: readonly ToolCall[];
  results: readonly StoredToolResult[];
}

/**
 * Remembers hidden turns per API key for a while, so that when the client sends the
 * conversation back (with its tool results) the model again sees the whole turn: its
 * server calls and their results as well. Each turn is kept as its stored JSON text
 * (`hiddenTurnText`), so the cap on that text bounds the memory the store holds; bounded in
 * count too (the least recently used go first), and an entry lapses `ttlMs` after its last
 * use. Held in memory, so it is per process.
 */
export interface HiddenToolTurns {
  remember(principal: string, turn: HiddenToolTurn): void;
  /** `messages` with every remembered turn of this principal restored; the same array when none matched. */
  restore(principal: string, messages: Message[]): Message[];
  readonly size: number;
  /** The kept turns' text length, in UTF-16 code units: what `maxTextLength` caps. */
  readonly textLength: number;
}

/** Options of `createHiddenToolTurns`. */
export interface HiddenToolTurnsOptions {
  /** Default 1000. */
  maxEntries?: number;
  /**
   * Cap on the kept turns' JSON text (results, calls with their arguments, ids), in UTF-16
   * code units (default 16 Mi); the oldest turns go first.
   */
  maxTextLength?: number;
  /** Default one hour. */
  ttlMs?: number;
  /** The clock, for tests (default `Date.now`). */
  now?: () => number;
}

interface Entry {
  /** The turn as `hiddenTurnText` wrote it. */
  text: string;
  expiresAt: number;
}

const keyOf = (principal: string, firstClientCallId: string): string => `${principal}\n${firstClientCallId}`;

function sameIds(calls: readonly ToolCall[], ids: readonly string[]): boolean {
  return calls.length === ids.length && calls.every((call, i) => call.id === ids[i]);
}

/**
 * The id a remembered turn would be found by for each assistant message with tool calls (its
 * first call's), each once, the latest first. Ids longer than `maxIdLength` are skipped: no
 * stored turn has one.
 */
export function turnLookupIds(messages: readonly Message[], bounds: { maxIdLength?: number } = {}): string[] {
  const maxIdLength = bounds.maxIdLength ?? Infinity;
  const ids: string[] = [];
  const seen = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    const first = message?.role === 'assistant' ? message.toolCalls?.[0] : undefined;
    if (first === undefined || typeof first.id !== 'string' || first.id.length > maxIdLength || seen.has(first.id)) continue;
    seen.add(first.id);
    ids.push(first.id);
  }
  return ids;
}

function storedCall(call: ToolCall): ToolCall {
  const stored: ToolCall = { id: call.id, name: call.name, arguments: call.arguments };
  // Unreadable argument text goes back to the model as it wrote it (the Responses input does so).
  if (call.invalid !== undefined) stored.invalid = { rawArguments: call.invalid.rawArguments, message: call.invalid.message };
  return stored;
}

function storedResult(message: ToolMessage): StoredToolResult {
  const stored: StoredToolResult = { role: 'tool', toolCallId: message.toolCallId, content: message.content };
  const toolName = message.toolName ?? message.result?.name;
  if (toolName !== undefined) stored.toolName = toolName;
  const result = message.result;
  if (result !== undefined && !result.success) {
    const type = result.error?.type ?? 'execution_error';
    const text = result.error?.message ?? result.message;
    stored.error = text === message.content ? { type } : { type, message: text };
  }
  return stored;
}

/**
 * The JSON text a store keeps for `turn`: the server calls, their results as the model reads
 * them (`StoredToolResult`) and the client's call ids. Its length is what counts toward the
 * store's cap. Undefined when the turn cannot be written as JSON (it is then not kept).
 */
export function hiddenTurnText(turn: HiddenToolTurn): string | undefined {
  const clientIds = new Set(turn.clientCallIds);
  const stored: StoredHiddenTurn = {
    clientCallIds: turn.clientCallIds,
    toolCalls: turn.toolCalls.map((call) => (clientIds.has(call.id) ? { id: call.id, name: call.name, arguments: {} } : storedCall(call))),
    results: turn.results.map(storedResult),
  };
  try {
    return JSON.stringify(stored);
  } catch {
    // A value JSON cannot write (a BigInt in arguments an embedder's model made) or nested too deep.
    return undefined;
  }
}

/** A stored result as the model's history holds it: a failure gets its `result` back, for text tools. */
function restoredResult(stored: StoredToolResult): ToolMessage {
  const message: ToolMessage = { role: 'tool', toolCallId: stored.toolCallId, content: stored.content };
  if (stored.toolName !== undefined) message.toolName = stored.toolName;
  if (stored.error !== undefined) {
    message.result = {
      toolCallId: stored.toolCallId,
      name: stored.toolName ?? 'tool',
      success: false,
      message: stored.content,
      error: { type: stored.error.type, message: stored.error.message ?? stored.content },
    };
  }
  return message;
}

/**
 * `messages` with the turns `find` knows restored: an assistant message whose calls are
 * exactly a turn's client calls gets the turn's server calls back, followed by their
 * results. `onRestored` hears each first call id used. The same array when none matched.
 */
export function restoreHiddenTurns(messages: Message[], find: (firstCallId: string) => StoredHiddenTurn | undefined, onRestored?: (firstCallId: string) => void): Message[] {
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
    out.push({ ...message, toolCalls: turn.toolCalls.map((call) => sent.get(call.id) ?? call) }, ...turn.results.map(restoredResult));
  }
  return changed ? out : messages;
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
    totalSize -= entry.text.length;
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
    get textLength() {
      return totalSize;
    },
    remember(principal, turn) {
      const first = turn.clientCallIds[0];
      if (first === undefined || turn.results.length === 0) return;
      const at = now();
      dropExpired(at);
      const text = hiddenTurnText(turn);
      // A turn larger than the whole cap is not kept: the model then sees the client's half only.
      if (text === undefined || text.length > maxTextLength) return;
      const key = keyOf(principal, first);
      const previous = entries.get(key);
      if (previous !== undefined) drop(key, previous);
      entries.set(key, { text, expiresAt: at + ttlMs });
      totalSize += text.length;
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
        (firstCallId) => {
          const entry = entries.get(keyOf(principal, firstCallId));
          // Written by `hiddenTurnText` in this process.
          return entry === undefined ? undefined : (JSON.parse(entry.text) as StoredHiddenTurn);
        },
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
