import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolMessage } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import { createJsSandbox } from '@toolwire/sandbox';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, loadCustomTool } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

const customToolsPath = fileURLToPath(new URL('./__fixtures__/custom-tools', import.meta.url));

let server: ToolwireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(call: { name: string; arguments: Record<string, unknown> }): Promise<ToolMessage> {
  const model = createScriptedModel([{ toolCalls: [call] }, { text: 'done' }]);
  const started = await startGateway(model, { tools: { customToolsPath, timeoutMs: 5000 } });
  server = started.server;
  const openai = new OpenAI({ apiKey: 'unused', baseURL: started.baseURL, maxRetries: 0 });
  const completion = await openai.chat.completions.create({
    model: 'test/scripted',
    messages: [{ role: 'user', content: 'go' }],
    tools: [{ type: 'function', function: { name: call.name } }],
  });
  expect(completion.choices[0]?.message.content).toBe('done');
  const answer = model.requests[1]?.messages.at(-1);
  if (answer?.role !== 'tool') throw new Error('expected a tool message');
  return answer;
}

describe('custom tools from customToolsPath', () => {
  it('runs the handler in the sandbox, without host objects', async () => {
    const answer = await run({ name: 'greet', arguments: { name: 'Ada' } });
    expect(JSON.parse(answer.content)).toEqual({ greeting: 'Hello, Ada!', hasRequire: false, hasProcess: false });
  });

  it('validates arguments against the definition before running: bad ones reach the model as a validation_error', async () => {
    const answer = await run({ name: 'greet', arguments: { name: 42 } });
    expect(answer.result).toMatchObject({ success: false, error: { type: 'validation_error' } });
    expect(answer.content).toMatch(/Invalid arguments for "greet"/);
  });

  it('answers require("child_process") with an error result, not a shell', async () => {
    const answer = await run({ name: 'escape', arguments: {} });
    expect(answer.result?.success).toBe(false);
    expect(answer.content).toMatch(/require/);
  });
});

describe('loadCustomTool', () => {
  it('loads one tool file as a core Tool that runs in the sandbox', async () => {
    const sandbox = createJsSandbox({ timeoutMs: 5000, poolSize: 1 });
    try {
      const tool = await loadCustomTool(join(customToolsPath, 'greet.js'), { sandbox });
      expect(tool.name).toBe('greet');
      expect(tool.inputSchema).toMatchObject({ required: ['name'] });
      await expect(tool.execute?.({ name: 'Bo' }, { toolCallId: 'c', signal: new AbortController().signal })).resolves.toMatchObject({ greeting: 'Hello, Bo!' });
    } finally {
      await sandbox.dispose();
    }
  });

  it('stops a running handler when the request is aborted (a client that disconnects), instead of letting it run to its timeout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolwire-tools-'));
    await writeFile(join(dir, 'spin.js'), "export const definition = { name: 'spin', description: 'Never ends', parameters: { type: 'object' } };\nexport function handler() { for (;;) {} }\n");
    const outcomes: string[] = [];
    const sandbox = createJsSandbox({ timeoutMs: 60_000, poolSize: 1, onAudit: (event) => outcomes.push(event.outcome) });
    try {
      const tool = await loadCustomTool(join(dir, 'spin.js'), { sandbox });
      const controller = new AbortController();
      const running = Promise.resolve(tool.execute?.({}, { toolCallId: 'c', signal: controller.signal }));
      setTimeout(() => controller.abort(new Error('The client disconnected.')), 100);
      await expect(running).rejects.toMatchObject({ kind: 'aborted' });
      // Reading the definition, then the aborted run.
      expect(outcomes).toEqual(['ok', 'aborted']);
      // The worker that ran it was replaced: the sandbox serves the next call.
      expect(await sandbox.run('1 + 1')).toMatchObject({ ok: true, value: 2 });
    } finally {
      await sandbox.dispose();
    }
  });

  it('stops the server from starting on a tool file without a definition, naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolwire-tools-'));
    await writeFile(join(dir, 'broken.js'), 'export function handler() { return 1; }');
    const broken = createServer({ tools: { customToolsPath: dir }, modelProviders: [] });
    await expect(broken.listen({ port: 0 })).rejects.toThrow(/broken\.js/);
  });
});
