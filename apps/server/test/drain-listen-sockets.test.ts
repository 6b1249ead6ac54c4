import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { Server as HttpServer, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { ChatModel, ChatRequest, ChatStreamEvent } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { supportsReusePort } from '../src/extra-listeners.ts';
import type { ToolAuditEvent, ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

/**
 * Streams that each wait for their own gate (`stream-<n>` in the user message), then call the
 * server tool `calculate` and answer with its result: a stream that outlived `close()` would
 * run its tool after the tools were disposed.
 */
function gatedModel(gates: Map<string, Promise<void>>): ChatModel {
  return {
    provider: 'test',
    modelId: 'gated',
    generate: () => Promise.reject(new Error('unused')),
    async *stream(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
      const first = request.messages[0];
      const last = request.messages.at(-1);
      if (last?.role === 'tool') {
        yield { type: 'text-delta', delta: `tool said ${last.content}` };
        yield { type: 'finish', finishReason: 'stop' };
        return;
      }
      const name = first?.role === 'user' && typeof first.content === 'string' ? first.content : '';
      yield { type: 'text-delta', delta: 'started ' };
      await gates.get(name);
      yield { type: 'tool-call', toolCall: { id: `c_${name}`, name: 'calculate', arguments: { expression: '6*7' } } };
      yield { type: 'finish', finishReason: 'tool-calls' };
    },
  };
}

/** Which listening socket accepted each connection, by the client's port: Node publishes every accepted socket on `net.server.socket`. */
function watchAccepts(): { byClientPort: Map<number, { primary: boolean; socket: Socket }>; stop: () => void } {
  const byClientPort = new Map<number, { primary: boolean; socket: Socket }>();
  const onSocket = (message: unknown): void => {
    // (`server` is the HTTP server by now for every socket, since its 'connection' listener ran;
    // `_server`, which Node's `net` sets to the listener that accepted, is not touched by it.)
    const socket = (message as { socket: Socket & { _server?: unknown } }).socket;
    // The gateway's own socket is its HTTP server; the extra ones are plain `net` servers.
    if (socket.remotePort !== undefined) byClientPort.set(socket.remotePort, { primary: socket._server instanceof HttpServer, socket });
  };
  subscribe('net.server.socket', onSocket);
  return { byClientPort, stop: () => unsubscribe('net.server.socket', onSocket) };
}

interface OpenStream {
  name: string;
  clientPort: number;
  /** The whole body, once the response ended. */
  body: Promise<string>;
}

/** A streamed chat completion on a connection of its own; resolves once its first chunk arrived. */
async function openStream(origin: string, name: string): Promise<OpenStream> {
  const req = httpRequest(`${origin}/v1/chat/completions`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } });
  req.end(JSON.stringify({ model: 'test/gated', stream: true, messages: [{ role: 'user', content: name }], tools: [{ type: 'function', function: { name: 'calculate' } }] }));
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  const clientPort = req.socket?.localPort ?? -1;
  res.setEncoding('utf8');
  let text = '';
  const firstChunk = new Promise<void>((resolve) => res.once('data', () => resolve()));
  const body = new Promise<string>((resolve, reject) => {
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => resolve(text));
    res.on('error', reject);
  });
  await firstChunk;
  return { name, clientPort, body };
}

const running: ToolwireServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

describe.runIf(process.platform === 'linux' && supportsReusePort())('close() with several listening sockets (SO_REUSEPORT)', () => {
  it('waits for the streams on every listening socket, and closes the tools only after them', async () => {
    const gates = new Map<string, Promise<void>>();
    const release = new Map<string, () => void>();
    const audits: ToolAuditEvent[] = [];
    const accepts = watchAccepts();
    try {
      const { server, origin } = await startGateway(gatedModel(gates), {
        limits: { listenSockets: 8, shutdownGraceMs: 60_000 },
        onToolAudit: (event) => audits.push(event),
      });
      running.push(server);
      // Connections until the kernel has put some on the gateway's own socket and some on
      // the others (16 do, but nothing here relies on chance: it keeps opening).
      const streams: OpenStream[] = [];
      const isPrimary = (stream: OpenStream): boolean | undefined => accepts.byClientPort.get(stream.clientPort)?.primary;
      for (let i = 0; i < 200; i++) {
        const name = `stream-${i}`;
        gates.set(name, new Promise((resolve) => release.set(name, resolve)));
        streams.push(await openStream(origin, name));
        if (streams.length >= 16 && streams.some((s) => isPrimary(s) === true) && streams.some((s) => isPrimary(s) === false)) break;
      }
      const onPrimary = streams.filter((s) => isPrimary(s) === true);
      const onExtra = streams.filter((s) => isPrimary(s) === false);
      expect(onPrimary.length + onExtra.length).toBe(streams.length);
      expect(onPrimary.length).toBeGreaterThan(0);
      expect(onExtra.length).toBeGreaterThan(0);

      let closeResolved = false;
      let toolRunsAtClose = -1;
      const closed = server.close().then(() => {
        closeResolved = true;
        toolRunsAtClose = audits.filter((a) => a.tool === 'calculate' && a.outcome === 'success').length;
      });
      // Every stream on the gateway's own socket ends, and its connection with it: `server.close()`
      // on its own would call back now.
      for (const stream of onPrimary) release.get(stream.name)?.();
      await Promise.all(onPrimary.map((s) => s.body));
      await Promise.all(onPrimary.map((s) => closedSocket(accepts.byClientPort.get(s.clientPort)?.socket)));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(closeResolved, 'close() resolved while streams on the other sockets were open').toBe(false);

      for (const stream of onExtra) release.get(stream.name)?.();
      const bodies = await Promise.all(streams.map((s) => s.body));
      await closed;
      for (const body of bodies) {
        expect(body).toContain('tool said');
        expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
      }
      // Every stream's server tool ran before close() resolved (and closed the tools).
      expect(toolRunsAtClose).toBe(streams.length);
    } finally {
      accepts.stop();
    }
  }, 60_000);
});

/** Resolves once a server-side socket has closed. */
function closedSocket(socket: Socket | undefined): Promise<void> {
  if (socket === undefined || socket.destroyed) return Promise.resolve();
  return once(socket, 'close').then(() => undefined);
}
