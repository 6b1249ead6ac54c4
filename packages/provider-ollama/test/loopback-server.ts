import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `server` on a free port of 127.0.0.1; resolves with its origin (`http://127.0.0.1:PORT`), for `createOllama({ host })`. */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server` and the connections it still holds (a stand-in may leave answers open on purpose). */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
