import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { localCodeInterpreter } from '../src/index.ts';
import type { CodeInterpreterValue } from '../src/index.ts';

// One interpreter (one isolate worker) for the file keeps the suite light on 2 cores.
const js = localCodeInterpreter({ language: 'javascript', timeoutMs: 1000 });
afterAll(() => js.dispose());

function valueOf(result: { value?: unknown }): CodeInterpreterValue {
  return result.value as CodeInterpreterValue;
}

describe('localCodeInterpreter (javascript)', () => {
  it('returns console output and the completion value in the OpenAI result shape', async () => {
    const result = await js.run('console.log("summing"); [1, 2, 3].reduce((a, b) => a + b, 0) * 7');
    expect(result).toMatchObject({ success: true, name: 'run_javascript', message: 'summing\n42' });
    expect(valueOf(result)).toMatchObject({
      stdout: 'summing\n42',
      stderr: '',
      exitCode: 0,
      files: [],
      outputs: [{ type: 'logs', logs: 'summing\n42' }],
    });
    expect(valueOf(result).containerId).toMatch(/^local:/);
  });

  it('reports a thrown error as a failure with the error in stderr', async () => {
    const result = await js.run('console.log("start"); null.property');
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe('execution_error');
    expect(valueOf(result).stdout).toBe('start');
    expect(valueOf(result).stderr).toMatch(/^Error: .*null/);
  });

  it('stops an endless loop at the timeout', async () => {
    const result = await js.run('for (;;) {}');
    expect(result.success).toBe(false);
    expect(result.error?.type).toBe('timeout');
  });

  it('has no host APIs, and a network attempt is refused', async () => {
    let connections = 0;
    const server = createServer((_req, res) => res.end('reached'));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const code = `
        const attempt = typeof fetch === 'function'
          ? fetch('http://127.0.0.1:${port}/').then(() => 'reached', (e) => 'refused')
          : 'no fetch';
        Promise.resolve(attempt).then((net) => [typeof process, typeof require, net]);`;
      const result = await js.run(code);
      expect(result.success).toBe(true);
      expect(valueOf(result).stdout).toMatch(/^\["undefined","undefined","(refused|no fetch)"\]$/);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });
});
