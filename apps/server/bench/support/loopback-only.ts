// Preloaded (`--import`) into a third-party server that binds every interface (Portkey's
// Node entry point calls `listen(port, undefined, cb)`): the bench stays on loopback.
import { Server } from 'node:net';

// eslint-disable-next-line @typescript-eslint/unbound-method -- called with the server as `this` below.
const listen = Server.prototype.listen;
Server.prototype.listen = function (this: Server, ...args: unknown[]) {
  if (typeof args[0] === 'number') {
    if (args[1] === undefined || typeof args[1] === 'function') args.splice(1, args[1] === undefined ? 1 : 0, '127.0.0.1');
  } else if (typeof args[0] === 'object' && args[0] !== null && !('host' in args[0]) && !('path' in args[0])) {
    args[0] = { ...args[0], host: '127.0.0.1' };
  }
  return (listen as (...a: unknown[]) => Server).apply(this, args);
} as typeof Server.prototype.listen;
