import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { Agent } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createExporterAgents, EXPORT_ABANDONED } from './exporter-agent.ts';

const hanging = createServer(() => {
  // Never answers.
});
afterEach(() => {
  hanging.closeAllConnections();
  hanging.close();
});

function post(agent: Agent, port: number): Promise<Error> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/traces', method: 'POST', agent }, () => reject(new Error('answered')));
    req.on('error', resolve);
    req.end('{}');
  });
}

describe('createExporterAgents', () => {
  it('cuts a request a hanging collector holds when closed, and refuses new ones, with an error the exporter does not retry', async () => {
    hanging.listen(0, '127.0.0.1');
    await once(hanging, 'listening');
    const { port } = hanging.address() as { port: number };
    const agents = createExporterAgents({});
    const agent = await agents.factory('TRACES')('http:');
    const held = post(agent, port);
    await once(hanging, 'request');
    agents.close();
    expect(await held).toMatchObject({ code: EXPORT_ABANDONED });
    expect(await post(agent, port)).toMatchObject({ code: EXPORT_ABANDONED });
  });
});
