// `toolwire chat` when the model's stream fails after its first words (a real server on
// 127.0.0.1 that sends one chunk and then drops the connection): the error is printed once,
// where it happened, and the command exits 1.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../../test/run-cli.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server !== undefined) await new Promise<void>((resolve) => server?.close(() => resolve()));
  server = undefined;
});

/** An OpenAI-compatible server whose stream breaks off after "Hello". */
async function breakingServer(): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: null }] };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`, () => setImmediate(() => res.socket?.destroy()));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** Runs the CLI in this process; what it printed and its exit code. */
const run = (argv: string[], env: Record<string, string>) => runMain(argv, { env });

describe('toolwire chat, a stream that fails midway', () => {
  it('prints the error once and exits 1', async () => {
    const baseURL = await breakingServer();
    const result = await run(['chat', 'hi', '--model', 'openai/m'], { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'sk-test' });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Hello');
    expect(result.stderr.match(/error:/gu)?.length, result.stderr).toBe(1);
  });

  it('prints it once as a JSON event with --json, and nothing more on stderr', async () => {
    const baseURL = await breakingServer();
    const result = await run(['chat', 'hi', '--model', 'openai/m', '--json'], { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'sk-test' });
    expect(result.code).toBe(1);
    const errors = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string })
      .filter((event) => event.type === 'error');
    expect(errors).toHaveLength(1);
    expect(result.stderr).not.toContain('error:');
  });
});
