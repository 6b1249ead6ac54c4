import { once } from 'node:events';
import type { Server as HttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { Server as NetServer } from 'node:net';

/**
 * Whether this Node binds with `reusePort` (22.12 and 23.1 on). Older ones ignore the
 * option: their first socket binds the port exclusively and a second one fails.
 */
export function supportsReusePort(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

/**
 * Default `limits.listenSockets`: on Linux, where the kernel spreads a port's connections
 * over every socket bound to it with `SO_REUSEPORT` (and Node can bind them); elsewhere one.
 */
export const DEFAULT_LISTEN_SOCKETS = process.platform === 'linux' && supportsReusePort() ? 8 : 1;

/**
 * Fails (`EADDRINUSE`) when something already listens on `host:port`, by binding it
 * exclusively for a moment. Why: sockets bound with `SO_REUSEPORT` share a port with any
 * other such socket of the same user, so a gateway started twice on one port would not
 * fail as before but silently split the connections with the first one. (A process that
 * binds the port between this check and the gateway's own bind can still share it: the
 * check is for the common mistake, not a lock.)
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  // Port 0: the kernel picks a port nothing is bound to.
  if (port === 0) return;
  const probe = createNetServer();
  probe.listen({ host, port });
  try {
    await once(probe, 'listening');
  } finally {
    if (probe.listening) await new Promise((resolve) => probe.close(resolve));
  }
}

/** Options of `openExtraListeners`. */
export interface ExtraListenersOptions {
  /** The HTTP server that serves every connection (already listening, with `reusePort`). */
  server: HttpServer;
  host: string;
  port: number;
  /** How many listeners to add beside the server's own. */
  count: number;
  backlog: number;
  /** Told about an error of a listening socket after it bound (an accept that failed); without a listener Node would throw it. */
  onError?: (error: Error) => void;
}

/** The added listeners; `close` stops them accepting (their connections stay the server's to end). */
export interface ExtraListeners {
  readonly count: number;
  /** The added listening sockets. */
  readonly sockets: readonly NetServer[];
  close(): void;
}

/**
 * Binds more listening sockets to the server's port (`SO_REUSEPORT`) and hands each
 * connection they accept to the HTTP server, as if it had accepted it itself.
 *
 * Why: Node (libuv ≥ 1.45) accepts one connection per listening socket per turn of the
 * event loop. While thousands of streams keep the loop busy, a turn lasts tens of
 * milliseconds, so a burst of 500 new clients waited 500 turns, seconds, in the kernel's
 * queue, with the gateway far from busy per turn. The kernel spreads new connections over
 * the sockets of a port, so N sockets take a burst in about N times fewer turns.
 */
export async function openExtraListeners(options: ExtraListenersOptions): Promise<ExtraListeners> {
  const { server, host, port, count, backlog } = options;
  const listeners: NetServer[] = [];
  try {
    for (let i = 0; i < count; i++) {
      // `noDelay` as Node's HTTP server sets it on the sockets it accepts itself.
      const listener = createNetServer({ noDelay: true }, (socket) => server.emit('connection', socket));
      listeners.push(listener);
      listener.listen({ host, port, backlog, reusePort: true });
      await once(listener, 'listening');
      // `once` let go of its 'error' listener: a later error must still find one.
      listener.on('error', (error) => options.onError?.(error));
    }
  } catch (error) {
    closeAll(listeners);
    throw error;
  }
  return { count: listeners.length, sockets: listeners, close: () => closeAll(listeners) };
}

// Stopping to listen is synchronous; the 'close' event would wait for the connections, which the HTTP server ends.
function closeAll(listeners: readonly NetServer[]): void {
  for (const listener of listeners) if (listener.listening) listener.close();
}
