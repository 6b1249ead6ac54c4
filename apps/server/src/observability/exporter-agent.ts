import { readFileSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import type { ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import type { OtelEnv } from './otel-settings.ts';

/** The error of an export cut off by `ExporterAgents.close()`. Its code is not one the exporter retries. */
export const EXPORT_ABANDONED = 'TOOLWIRE_OTLP_EXPORT_ABANDONED';

function abandoned(): Error {
  return Object.assign(new Error('OTLP export abandoned: the process is stopping'), { code: EXPORT_ABANDONED });
}

/** HTTP agents for the OTLP exporters that can be shut, cutting every request they carry. */
export interface ExporterAgents {
  /** For the exporter's `httpAgentOptions`: an agent per signal and protocol. */
  factory(signal: 'TRACES' | 'METRICS'): (protocol: string) => Promise<HttpAgent>;
  /**
   * Destroys every connection (a request on one fails with `EXPORT_ABANDONED`, which the
   * exporter does not retry) and refuses new ones, so that an export to a collector that
   * hangs or trickles holds neither a promise nor the event loop.
   */
  close(): void;
}

/** The certificate and key files the exporter would read itself (`OTEL_EXPORTER_OTLP[_SIGNAL]_CERTIFICATE`, …). */
function tlsFiles(env: OtelEnv, signal: string): { ca?: Buffer; cert?: Buffer; key?: Buffer } {
  const read = (suffix: string): Buffer | undefined => {
    const path = env[`OTEL_EXPORTER_OTLP_${signal}_${suffix}`] ?? env[`OTEL_EXPORTER_OTLP_${suffix}`];
    if (path === undefined || path.trim() === '') return undefined;
    // As the exporter does: a file that cannot be read is left out, and TLS goes on without it.
    try {
      return readFileSync(resolve(process.cwd(), path));
    } catch {
      return undefined;
    }
  };
  const files: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {};
  const ca = read('CERTIFICATE');
  const cert = read('CLIENT_CERTIFICATE');
  const key = read('CLIENT_KEY');
  if (ca !== undefined) files.ca = ca;
  if (cert !== undefined) files.cert = cert;
  if (key !== undefined) files.key = key;
  return files;
}

type CreateConnection = (options: ClientRequestArgs, callback?: (error: Error | null, socket: Duplex) => void) => Duplex | null | undefined;

/**
 * Agents like the exporter's own (keep-alive; TLS files from the environment), whose sockets
 * are tracked so that `close()` can end them.
 */
export function createExporterAgents(env: OtelEnv): ExporterAgents {
  const sockets = new Set<Duplex>();
  const agents: HttpAgent[] = [];
  let closed = false;

  const track = (agent: HttpAgent): HttpAgent => {
    // `createConnection` is how an agent opens a socket (Node's documented override point).
    const create = agent.createConnection.bind(agent);
    const createConnection: CreateConnection = (options, callback) => {
      if (closed) {
        callback?.(abandoned(), undefined as unknown as Duplex);
        return undefined;
      }
      const socket = create(options, callback);
      if (socket) {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
      }
      return socket;
    };
    agent.createConnection = createConnection;
    agents.push(agent);
    return agent;
  };

  return {
    factory: (signal) => (protocol) => {
      const agent = protocol === 'http:' ? new HttpAgent({ keepAlive: true }) : new HttpsAgent({ keepAlive: true, ...tlsFiles(env, signal) });
      return Promise.resolve(track(agent));
    },
    close() {
      closed = true;
      for (const socket of sockets) socket.destroy(abandoned());
      sockets.clear();
      for (const agent of agents) agent.destroy();
    },
  };
}
