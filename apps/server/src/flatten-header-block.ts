import type { OutgoingMessage } from 'node:http';

/**
 * Flattens the header block Node built for `message` (its `_header`), in place.
 *
 * Why: Node builds the block by appending every header line to one string, which V8 keeps as
 * a rope (a tree of string pieces, one node of 32 bytes per piece), and the message holds it
 * for its whole life: for a streamed call, as long as the stream is open. A request the
 * `openai` SDK sends has a dozen headers, so its block is about 2 KB of rope for a few hundred
 * bytes of text. Searching the string makes V8 flatten it where it lies (the same string,
 * one flat copy of its text), and the pieces become garbage. Nothing changes for Node or the
 * peer: the value is the same; a message without a built block (none yet, or a Node that
 * keeps it elsewhere) is left alone.
 */
export function flattenHeaderBlock(message: OutgoingMessage): void {
  const header = (message as unknown as { _header?: unknown })._header;
  // `indexOf` flattens its receiver whole (`charCodeAt` may flatten only part of it). Its
  // result is stored: V8's optimizing compiler drops a call to it whose result goes unused.
  if (typeof header === 'string') lastBlockEnd = header.indexOf('\r\n\r\n');
}

/** Where the last header block flattened ends; written only so that the search stays. */
let lastBlockEnd = -1;

/** Where the last header block `flattenHeaderBlock` flattened ends (-1 before any). For tests. */
export function lastFlattenedBlockEnd(): number {
  return lastBlockEnd;
}
