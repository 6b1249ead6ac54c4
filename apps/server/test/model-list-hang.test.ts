// GET /v1/models while one upstream's model list never answers (an OpenAI-compatible server
// that hangs on GET /v1/models) and the other (Ollama) answers at once. The gateway lists what
// it has within `limits.modelListTimeoutMs` instead of holding the answer for the upstream
// idle timeout, and a client that leaves stops the hung upstream request.
import type { ServerResponse } from 'node:http';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { ToolwireServer } from '../src/index.ts';
import { closeServed, serve } from './helpers/serve-handler.ts';

let gateway: ToolwireServer | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await closeServed();
});

/** The upstream (both wire formats) and a gateway in front of it; `hung` holds the open GET /v1/models responses. */
async function start(modelListTimeoutMs: number): Promise<{ baseURL: string; hung: Set<ServerResponse> }> {
  const hung = new Set<ServerResponse>();
  const origin = await serve((req, res) => {
    if (req.url === '/api/tags') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ models: [{ name: 'llama3:8b', model: 'llama3:8b' }] }));
      return;
    }
    if (req.url === '/api/show') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ capabilities: ['completion', 'tools'] }));
      return;
    }
    if (req.url !== '/v1/models') {
      res.writeHead(404).end();
      return;
    }
    // GET /v1/models: never answered; counted while the connection is open.
    hung.add(res);
    res.on('close', () => hung.delete(res));
  });
  gateway = createServer({
    logger: pino({ level: 'silent' }),
    providers: { openai: { baseURL: `${origin}/v1`, apiKey: 'sk-upstream' }, ollama: { host: origin } },
    tools: { builtins: [] },
    limits: { modelListTimeoutMs },
  });
  return { baseURL: await gateway.listen({ port: 0, host: '127.0.0.1' }), hung };
}

describe('GET /v1/models with an upstream whose list never answers', () => {
  it("answers with the other providers' models once limits.modelListTimeoutMs has passed, and stops the hung request", async () => {
    const { baseURL, hung } = await start(300);
    const response = await fetch(`${baseURL}/models`, { signal: AbortSignal.timeout(10_000) });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { id: string }[] }).data.map((model) => model.id)).toEqual(['ollama/llama3:8b']);
    await expect.poll(() => hung.size, { timeout: 5000 }).toBe(0);
  });

  it('stops the hung upstream request when the client leaves', async () => {
    const { baseURL, hung } = await start(60_000);
    const leaving = new AbortController();
    const listed = fetch(`${baseURL}/models`, { signal: leaving.signal }).catch((e: unknown) => e);
    await expect.poll(() => hung.size, { timeout: 5000 }).toBe(1);
    leaving.abort();
    expect(await listed).toBeInstanceOf(Error);
    await expect.poll(() => hung.size, { timeout: 5000 }).toBe(0);
  });
});
