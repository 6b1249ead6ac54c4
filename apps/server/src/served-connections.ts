import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

// Node's `http` module keeps the response a server socket is writing on it (an internal
// field, stable since Node's early days); undefined or null between requests.
type ServedSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Every connection the HTTP server serves, whichever listening socket accepted it, so that a
 * shutdown waits for all of them. Why: `server.close()` waits only for the connections its
 * own listening socket accepted; those the extra `SO_REUSEPORT` listeners hand over
 * (`server.emit('connection')`, see `openExtraListeners`) are counted by the listener that
 * accepted them, so with 8 sockets the close resolved once about an eighth of them had ended.
 */
export class ServedConnections {
  readonly #server: HttpServer;
  readonly #open = new Set<ServedSocket>();
  #draining = false;
  /** Responses already set to end their connection. */
  readonly #endingAfter = new WeakSet<ServerResponse>();
  #whenEmpty: (() => void) | undefined;
  // Shared listeners, not closures per connection.
  readonly #track = (socket: ServedSocket): void => {
    this.#open.add(socket);
    // (`on`, not `once`: a socket closes once, and `once` wraps the listener per connection.)
    socket.on('close', this.#untrack);
  };
  readonly #untrack: (this: ServedSocket) => void;
  readonly #closeAfterResponse = (_req: IncomingMessage, res: ServerResponse): void => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };

  constructor(server: HttpServer) {
    this.#server = server;
    const open = this.#open;
    const untrack = (socket: ServedSocket): void => {
      open.delete(socket);
      if (open.size > 0) return;
      const whenEmpty = this.#whenEmpty;
      this.#whenEmpty = undefined;
      whenEmpty?.();
    };
    // A socket's 'close' listener is called with the socket as `this`.
    this.#untrack = function (this: ServedSocket) {
      untrack(this);
    };
    server.on('connection', this.#track);
  }

  /**
   * From now on every response says `Connection: close` (when its headers are not sent yet)
   * and its connection ends with it; connections idle between requests end now. Clients
   * then reconnect (elsewhere, through their load balancer) instead of reusing a socket
   * that would only get 503s, and the drain waits for no keep-alive timeout.
   */
  drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    // First, before Fastify's handler writes anything.
    this.#server.prependListener('request', this.#closeAfterResponse);
    // A connection that has not sent anything yet keeps its chance: its request is on its way
    // (and gets `Connection: close`) while the gateway still accepts.
    for (const socket of this.#open) this.#endAfterResponse(socket, (idle) => idle.bytesRead > 0);
  }

  /**
   * Ends the connections with no request under way, those that never sent one included (an
   * HTTP client's spare connection): once the gateway stops accepting, nothing is coming
   * that it would serve. (Node's `closeIdleConnections` does not count a connection that
   * never sent anything as idle, and a drain would wait for its timeout.)
   */
  closeIdle(): void {
    for (const socket of this.#open) this.#endAfterResponse(socket, () => true);
  }

  /** Resolves once every connection has ended. */
  ended(): Promise<void> {
    if (this.#open.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.#whenEmpty;
      this.#whenEmpty = () => {
        previous?.();
        resolve();
      };
    });
  }

  /** Cuts every connection still open (the end of the shutdown grace). */
  destroyAll(): void {
    for (const socket of this.#open) socket.destroy();
  }

  /** Ends `socket` after its response, or now when it has none and `endIdle` says so. */
  #endAfterResponse(socket: ServedSocket, endIdle: (socket: ServedSocket) => boolean): void {
    const res = socket._httpMessage;
    if (res === undefined || res === null) {
      // Between requests. (A request head that is arriving right now is cut with it: the client sees a reset, as from any closing server.)
      if (endIdle(socket)) socket.destroy();
      return;
    }
    if (!res.headersSent) {
      res.setHeader('connection', 'close');
      return;
    }
    // Headers already said keep-alive (an open stream): end the connection after the response.
    if (this.#endingAfter.has(res)) return;
    this.#endingAfter.add(res);
    res.on('finish', () => {
      const next = socket._httpMessage;
      if (next === undefined || next === null) socket.end();
      else this.#endAfterResponse(socket, endIdle);
    });
  }
}
