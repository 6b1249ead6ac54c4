import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';

let current: Server | undefined;

/**
 * Serves `handler` on 127.0.0.1 (one server per test; `configure` may set its options) and
 * returns its origin. `closeServed` in `afterEach` closes it and its connections.
 */
export async function serve(handler: RequestListener, configure?: (server: Server) => void): Promise<string> {
  const server = createServer(handler);
  current = server;
  configure?.(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

/** Closes the server `serve` started last, cutting its open connections. */
export async function closeServed(): Promise<void> {
  const server = current;
  current = undefined;
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
