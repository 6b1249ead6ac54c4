import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/auth/hash-key.ts';
import { startFakeOpenAI } from './helpers/fake-upstreams.ts';
import type { FakeUpstream } from './helpers/fake-upstreams.ts';
import { startRedis } from './helpers/redis-server.ts';
import type { RedisProcess } from './helpers/redis-server.ts';

const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
const started = await startRedis();
if ('skip' in started) console.warn(`[multi-instance.test] skipped: ${started.skip}`);
const redis = 'skip' in started ? undefined : started;

interface Instance {
  child: ChildProcess;
  baseURL: string;
  origin: string;
  /** The `msg` of every log line so far. */
  logs: string[];
}

async function startInstance(options: { configPath: string; upstream: string; redisUrl: string }): Promise<Instance> {
  const child = spawn(process.execPath, ['--conditions=@toolwire/source', bin, '--port', '0', '--config', options.configPath], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: `${options.upstream}/v1`, HOST: '127.0.0.1', TOOLWIRE_REDIS_URL: options.redisUrl },
  });
  const logs: string[] = [];
  const lines = createInterface({ input: child.stdout });
  const address = new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the gateway exited with ${String(code)} before listening`)));
    lines.on('line', (line) => {
      let msg: string;
      try {
        msg = (JSON.parse(line) as { msg?: string }).msg ?? '';
      } catch {
        msg = line;
      }
      logs.push(msg);
      if (msg.startsWith('Toolwire gateway at ')) resolve(msg.slice('Toolwire gateway at '.length));
    });
  });
  const baseURL = await address;
  return { child, baseURL, origin: baseURL.slice(0, -'/v1'.length), logs };
}

async function stopInstance(instance: Instance): Promise<void> {
  if (instance.child.exitCode !== null) return;
  const exited = once(instance.child, 'exit');
  instance.child.kill('SIGTERM');
  const timer = setTimeout(() => instance.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

const until = async (check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
};

describe.runIf(redis !== undefined)('three gateway processes on one Redis, behind a round-robin', () => {
  const server = redis as RedisProcess;
  let upstream: FakeUpstream;
  let dir: string;
  let instances: Instance[] = [];
  let next = 0;
  /** The round-robin: each request goes to the next instance. */
  const post = (key: string, body: Record<string, unknown>) => {
    const instance = instances[next++ % instances.length]!;
    return fetch(`${instance.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  };

  beforeAll(async () => {
    upstream = await startFakeOpenAI((body) => {
      const messages = body.messages as { role: string }[];
      // A mixed turn first (a server tool and a client function together), then the answer.
      if (messages.some((m) => m.role === 'tool')) return { text: 'all done' };
      if (body.tools === undefined) return { text: 'hello' };
      return { toolCalls: [{ name: 'get_current_time', arguments: {} }, { name: 'client_fn', arguments: { x: 1 } }] };
    });
    dir = await mkdtemp(join(tmpdir(), 'toolwire-multi-'));
    const configPath = join(dir, 'config.json');
    await writeFile(
      configPath,
      JSON.stringify({
        keys: [
          // One token per 20 s: no refill during the burst below.
          { id: 'limited', keyHash: hashApiKey('sk-limited'), requestsPerMinute: 3 },
          { id: 'metered', keyHash: hashApiKey('sk-metered'), requestsPerMinute: 10_000 },
          { id: 'open', keyHash: hashApiKey('sk-open') },
        ],
        tools: { builtins: ['get_current_time'] },
        limits: { shutdownGraceMs: 2000 },
      }),
    );
    instances = await Promise.all([0, 1, 2].map(() => startInstance({ configPath, upstream: upstream.url, redisUrl: server.url })));
    for (const instance of instances) {
      expect(await until(async () => (await fetch(`${instance.origin}/readyz`)).status === 200, 20_000)).toBe(true);
    }
  }, 90_000);

  afterAll(async () => {
    await Promise.all(instances.map(stopInstance));
    await upstream?.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("holds a key's rate limit across all three", async () => {
    const responses = await Promise.all(Array.from({ length: 9 }, () => post('sk-limited', { model: 'openai/gpt-fake', messages: [{ role: 'user', content: 'hi' }] })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429]);
    const refused = responses.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
  }, 60_000);

  it('completes a mixed turn started on one instance on another, with the whole turn restored', async () => {
    const tools = [
      { type: 'function', function: { name: 'get_current_time' } },
      { type: 'function', function: { name: 'client_fn', description: 'the client answers', parameters: { type: 'object', properties: { x: { type: 'number' } } } } },
    ];
    const question = { role: 'user', content: 'time and x?' };
    const first = await post('sk-open', { model: 'openai/gpt-fake', messages: [question], tools });
    expect(first.status).toBe(200);
    const body = (await first.json()) as { choices: { message: { tool_calls: { id: string; function: { name: string; arguments: string } }[] } }[] };
    const calls = body.choices[0]!.message.tool_calls;
    // The client sees only its own call.
    expect(calls.map((c) => c.function.name)).toEqual(['client_fn']);

    const second = await post('sk-open', {
      model: 'openai/gpt-fake',
      tools,
      messages: [question, { role: 'assistant', content: null, tool_calls: calls.map((c) => ({ ...c, type: 'function' })) }, { role: 'tool', tool_call_id: calls[0]!.id, content: 'x is done' }],
    });
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ choices: [{ message: { content: 'all done' } }] });
    // The model saw its whole turn: both calls, and the server tool's result from the other instance.
    const seen = upstream.requests.at(-1)!.messages as { role: string; tool_calls?: { function: { name: string } }[]; tool_call_id?: string; content?: string }[];
    expect(seen.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(seen[1]!.tool_calls!.map((c) => c.function.name)).toEqual(['get_current_time', 'client_fn']);
    expect(seen.filter((m) => m.role === 'tool').map((m) => m.content)).toContain('x is done');
    expect(seen.filter((m) => m.role === 'tool')).toHaveLength(2);
  }, 60_000);

  it('answers 503 while Redis is down, says so in the logs and readiness, and recovers when it is back', async () => {
    await server.stop();
    for (const instance of instances) {
      expect(await until(async () => (await fetch(`${instance.origin}/readyz`)).status === 503, 20_000)).toBe(true);
    }
    const ready = (await (await fetch(`${instances[0]!.origin}/readyz`)).json()) as { reasons: string[] };
    expect(ready.reasons).toContain('redis_unavailable');
    // Liveness stays: the process is fine.
    expect((await fetch(`${instances[0]!.origin}/livez`)).status).toBe(200);

    for (let i = 0; i < 3; i++) {
      const startedAt = performance.now();
      const res = await post('sk-metered', { model: 'openai/gpt-fake', messages: [{ role: 'user', content: 'hi' }] });
      expect(res.status).toBe(503);
      // "At once" means without waiting for Redis (no hang, no queue behind a dead connection),
      // not a speed: a loaded 2-core CI machine can take seconds to schedule both processes.
      expect(performance.now() - startedAt).toBeLessThan(15_000);
      expect(res.headers.get('x-should-retry')).toBe('true');
      expect(await res.json()).toMatchObject({ error: { type: 'server_error', code: 'state_unavailable', param: null } });
    }
    // A key without limits, in a conversation without tool calls, needs nothing from Redis.
    expect((await post('sk-open', { model: 'openai/gpt-fake', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    // The log line travels through the child's stdout pipe, the answers through a socket: read the pipe until it comes.
    for (const instance of instances) expect(await until(() => Promise.resolve(instance.logs.some((msg) => msg.startsWith('Redis is unreachable'))), 10_000)).toBe(true);

    await server.start();
    for (const instance of instances) {
      expect(await until(async () => (await fetch(`${instance.origin}/readyz`)).status === 200, 30_000)).toBe(true);
    }
    for (let i = 0; i < 3; i++) {
      expect((await post('sk-metered', { model: 'openai/gpt-fake', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    }
    for (const instance of instances) {
      expect(await until(() => Promise.resolve(instance.logs.some((msg) => msg.startsWith('Redis is reachable again'))), 10_000)).toBe(true);
      expect(instance.child.exitCode).toBeNull();
    }
  }, 120_000);
});
