import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/**
 * What answers on the port where the gateway expects Redis:
 * - `garbage`: bytes that are no protocol at all, on connect and after every command;
 * - `silent`: accepts and never writes;
 * - `trickle`: a valid-looking reply (`+OK`) to every command, one byte per second;
 * - `reset`: resets every connection at once;
 * - `endless-bulk`: a bulk-string header for ~1 GB (`$999999999`), then one byte every 100 ms;
 * - `flood-bulk`: the same header, then bytes as fast as the socket takes them;
 * - `scripted`: a Redis handshake (HELLO, CLIENT, INFO answered as Redis does), then
 *   `replies(command)` for every other command (raw RESP), e.g. a script reply of the wrong shape.
 */
export type ImpostorMode = 'garbage' | 'silent' | 'trickle' | 'reset' | 'endless-bulk' | 'flood-bulk' | 'scripted';

/** A TCP server on 127.0.0.1 that is not Redis, with a behaviour that can be switched. */
export interface ImpostorRedis {
  url: string;
  port: number;
  /** Switches the behaviour; open connections are closed so that the next one meets the new mode. */
  setMode(mode: ImpostorMode, replies?: (command: string[]) => string): void;
  /** Connections accepted so far. */
  readonly connections: number;
  /** The most bytes written to one connection before it closed (or so far). */
  readonly maxBytesWrittenToOne: number;
  /** Commands received in `scripted` mode, upper-cased names first. */
  readonly commands: string[][];
  close(): Promise<void>;
}

/** Reads RESP commands (arrays of bulk strings) from a byte stream; returns those complete and keeps the rest. */
function takeCommands(buffer: Buffer): { commands: string[][]; rest: Buffer } {
  const commands: string[][] = [];
  let at = 0;
  const line = (from: number): { text: string; next: number } | undefined => {
    for (let i = from; i + 1 < buffer.length; i++) {
      if (buffer[i] === 13 && buffer[i + 1] === 10) return { text: buffer.toString('latin1', from, i), next: i + 2 };
    }
    return undefined;
  };
  outer: while (at < buffer.length) {
    const header = line(at);
    if (header === undefined || !header.text.startsWith('*')) break;
    const count = Number(header.text.slice(1));
    let next = header.next;
    const args: string[] = [];
    for (let i = 0; i < count; i++) {
      const size = line(next);
      if (size === undefined) break outer;
      const length = Number(size.text.slice(1));
      if (size.next + length + 2 > buffer.length) break outer;
      args.push(buffer.toString('utf8', size.next, size.next + length));
      next = size.next + length + 2;
    }
    commands.push(args);
    at = next;
  }
  return { commands, rest: buffer.subarray(at) };
}

const bulk = (text: string): string => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;

/** The handshake a Redis 7 gives ioredis: HELLO's map, CLIENT's OK, INFO's text. */
function handshakeReply(args: string[]): string | undefined {
  const name = (args[0] ?? '').toUpperCase();
  if (name === 'HELLO') return '%2\r\n+server\r\n+redis\r\n+proto\r\n:3\r\n';
  if (name === 'CLIENT') return '+OK\r\n';
  if (name === 'INFO') return bulk('# Server\r\nredis_version:7.0.15\r\nloading:0\r\n');
  return undefined;
}

/** Starts the impostor in `mode`. */
export async function startImpostorRedis(initial: ImpostorMode): Promise<ImpostorRedis> {
  let mode = initial;
  let replies: (command: string[]) => string = () => '-ERR unknown command\r\n';
  let connections = 0;
  let maxBytes = 0;
  const commands: string[][] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const serve = (socket: Socket): void => {
    connections++;
    sockets.add(socket);
    let written = 0;
    const write = (data: string | Buffer): boolean => {
      if (socket.destroyed) return false;
      written += data.length;
      maxBytes = Math.max(maxBytes, written);
      return socket.write(data);
    };
    const every = (ms: number, tick: () => void): void => {
      const timer = setInterval(tick, ms);
      timers.add(timer);
      socket.once('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
    };
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
    let pending: Buffer = Buffer.alloc(0);
    let started = false;
    switch (mode) {
      case 'reset':
        socket.resetAndDestroy();
        return;
      case 'garbage':
        write(Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0a, 0x0d, 0x7f, 0x80]));
        socket.on('data', () => write('\x00\x01 not a protocol \xff\r\n'));
        return;
      case 'silent':
        socket.resume();
        return;
      case 'trickle':
        socket.on('data', () => {
          if (started) return;
          started = true;
          const reply = Buffer.from('+OK\r\n'.repeat(64));
          let i = 0;
          every(1000, () => write(reply.subarray(i, ++i)));
        });
        return;
      case 'endless-bulk':
      case 'flood-bulk': {
        const flood = mode === 'flood-bulk';
        socket.on('data', () => {
          if (started) return;
          started = true;
          write('$999999999\r\n');
          if (!flood) {
            every(100, () => write('x'));
            return;
          }
          const chunk = Buffer.alloc(64 * 1024, 0x78);
          const pump = (): void => {
            while (!socket.destroyed && written < 1_000_000_000) {
              if (!write(chunk)) {
                socket.once('drain', pump);
                return;
              }
            }
          };
          pump();
        });
        return;
      }
      case 'scripted':
        socket.on('data', (chunk: Buffer) => {
          const taken = takeCommands(Buffer.concat([pending, chunk]));
          pending = taken.rest;
          for (const args of taken.commands) {
            commands.push([(args[0] ?? '').toUpperCase(), ...args.slice(1)]);
            write(handshakeReply(args) ?? replies(args));
          }
        });
        return;
    }
  };

  const server: Server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    setMode(next, scripted) {
      mode = next;
      if (scripted !== undefined) replies = scripted;
      for (const socket of sockets) socket.destroy();
    },
    get connections() {
      return connections;
    },
    get maxBytesWrittenToOne() {
      return maxBytes;
    },
    commands,
    async close() {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
