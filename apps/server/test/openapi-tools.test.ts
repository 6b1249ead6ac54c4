import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChatModel, ToolMessage } from '@toolwire/core';
import { createScriptedModel } from '@toolwire/core/testing';
import type { ScriptedModel } from '@toolwire/core/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServerConfig } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { startGateway } from './helpers/start-gateway.ts';

const SECRET = 'sk-pets-0123456789';
const documentFixture = fileURLToPath(new URL('./__fixtures__/openapi/pets.openapi.json', import.meta.url));

// A small pets API on 127.0.0.1 that wants its key in x-api-key, and echoes what it got.
const seen: { method: string; url: string; apiKey: string | undefined; body: string }[] = [];
let api: Server;
let apiBase: string;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

beforeAll(async () => {
  api = createHttpServer((req, res) => {
    void readBody(req).then((body) => {
      const apiKey = typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined;
      seen.push({ method: req.method ?? '', url: req.url ?? '', apiKey, body });
      const json = (status: number, value: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (apiKey !== SECRET) return json(401, { error: 'missing or wrong x-api-key' });
      if (req.method === 'GET' && req.url === '/v1/pets/1') return json(200, { id: 1, name: 'Rex', tag: 'dog' });
      if (req.method === 'GET' && req.url?.startsWith('/v1/pets/') === true) return json(404, { error: `no pet ${req.url.slice('/v1/pets/'.length)}` });
      if (req.method === 'POST' && req.url === '/v1/pets') return json(201, { id: 3, ...(JSON.parse(body) as object) });
      return json(500, { error: 'unexpected request' });
    });
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiBase = `http://127.0.0.1:${(api.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  api.closeAllConnections();
  await new Promise<void>((resolve) => api.close(() => resolve()));
});

describe('an OpenAPI document from the config file as server tools', () => {
  let server: ToolwireServer;
  let baseURL: string;
  let current: ChatModel = createScriptedModel([]);

  beforeAll(async () => {
    // The config file names the document relative to itself and the key's environment variable.
    const dir = await mkdtemp(join(tmpdir(), 'toolwire-openapi-'));
    await copyFile(documentFixture, join(dir, 'pets.json'));
    const configFile = join(dir, 'toolwire.json');
    await writeFile(
      configFile,
      JSON.stringify({
        openApi: {
          pets: {
            document: './pets.json',
            baseURL: apiBase,
            allowPrivateNetwork: true,
            operations: ['getPet', 'createPet'],
            auth: { type: 'header', name: 'x-api-key', valueEnv: 'PETS_API_KEY' },
          },
        },
      }),
    );
    const command = await loadServerConfig({ argv: ['--config', configFile], env: { PETS_API_KEY: SECRET } });
    if (command.kind !== 'serve') throw new Error('expected a serve command');
    const model: ChatModel = { provider: 'scripted', modelId: 'scripted', generate: (r) => current.generate(r), stream: (r) => current.stream(r) };
    const started = await startGateway(model, { mcpServers: command.config.mcpServers, openApi: command.config.openApi });
    server = started.server;
    baseURL = started.baseURL;
  });
  afterAll(() => server.close());

  async function call(tool: string, args: Record<string, unknown>): Promise<{ answer: ToolMessage; model: ScriptedModel }> {
    const model = createScriptedModel([{ toolCalls: [{ name: tool, arguments: args }] }, { text: 'done' }]);
    current = model;
    const openai = new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: 'test/scripted',
      messages: [{ role: 'user', content: 'go' }],
      tools: [{ type: 'function', function: { name: tool } }],
    });
    expect(completion.choices[0]?.message.content).toBe('done');
    const answer = model.requests[1]?.messages.at(-1);
    if (answer?.role !== 'tool') throw new Error('expected a tool result');
    return { answer, model };
  }

  it('offers an operation as <name>_<operationId>, sends it with the key from the environment, and the response reaches the model', async () => {
    const { answer, model } = await call('pets_getPet', { petId: 1 });
    expect(model.requests[0]?.tools?.[0]).toMatchObject({ name: 'pets_getPet', inputSchema: { properties: { petId: { type: 'integer' } } } });
    expect(JSON.parse(answer.content)).toEqual({ id: 1, name: 'Rex', tag: 'dog' });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v1/pets/1', apiKey: SECRET });
  });

  it('sends a JSON body built from the arguments', async () => {
    const { answer } = await call('pets_createPet', { body: { name: 'Tom', tag: 'cat' } });
    expect(JSON.parse(answer.content)).toEqual({ id: 3, name: 'Tom', tag: 'cat' });
    expect(JSON.parse(seen.at(-1)?.body ?? '')).toEqual({ name: 'Tom', tag: 'cat' });
  });

  it("turns a 404 into a tool error the model can act on, without the API key in anything the model reads", async () => {
    const { answer, model } = await call('pets_getPet', { petId: 2 });
    expect(answer.result?.success).toBe(false);
    expect(answer.content).toContain('no pet 2');
    expect(JSON.stringify(model.requests)).not.toContain(SECRET);
  });
});
