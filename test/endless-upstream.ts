// Shared by the providers' message-limit tests: an upstream that sends one message without end,
// paced as a real server writes (a piece per turn of the event loop, waiting on back-pressure).
import type { ServerResponse } from 'node:http';

/** How much an endless upstream writes at most before it gives up (far past every limit tested). */
export const ENDLESS_BYTES = 64 * 1024 * 1024;

const PIECE = 'y'.repeat(64 * 1024);

/**
 * Writes `head`, then 64 KiB pieces of `y` one per turn of the event loop, until
 * `ENDLESS_BYTES` or the client closes the connection. Resolves with the bytes written, so a
 * test can tell how far the client read before it cut the upstream.
 */
export async function pourEndless(res: ServerResponse, head: string): Promise<number> {
  let written = Buffer.byteLength(head);
  res.write(head);
  while (written < ENDLESS_BYTES && !res.destroyed) {
    written += PIECE.length;
    if (!res.write(PIECE)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    else await new Promise((resolve) => setImmediate(resolve));
  }
  res.end();
  return written;
}
