import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from './helpers/fake-upstreams.ts';
import type { FakeUpstream } from './helpers/fake-upstreams.ts';

const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

/** Starts the bin against `upstream` on a free port and reads its address from its log. */
async function startBin(target: FakeUpstream) {
  const child = spawn(process.execPath, ['--conditions=@toolwire/source', bin, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: `${target.url}/v1`, HOST: '127.0.0.1' },
  });
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  let baseURL: string | undefined;
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const msg = (JSON.parse(line) as { msg?: string }).msg ?? '';
    if (msg.startsWith('Toolwire gateway at ')) {
      baseURL = msg.slice('Toolwire gateway at '.length);
      break;
    }
  }
  return { child, baseURL, lines, exited };
}

describe('the toolwire-server bin', () => {
  it('prints its help', async () => {
    const child = spawn(process.execPath, ['--conditions=@toolwire/source', bin, '--help'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(out).toContain('Usage: toolwire-server');
  });

  it('logs an exception that escaped every request and keeps serving (the last-resort net)', async () => {
    // Thrown from a timer, outside any request (what a bug in a socket listener would look
    // like), once the bin has installed its net.
    const inject =
      "data:text/javascript,process.on('newListener', (name) => { if (name === 'uncaughtException') setTimeout(() => { throw new Error('injected failure'); }, 50); });";
    const child = spawn(process.execPath, ['--conditions=@toolwire/source', `--import=${inject}`, bin, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, HOST: '127.0.0.1' },
    });
    const entries: { msg?: string; err?: { message?: string } }[] = [];
    let baseURL: string | undefined;
    const lines = createInterface({ input: child.stdout });
    const injected = new Promise<void>((resolve) => {
      lines.on('line', (line) => {
        const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
        entries.push(entry);
        if (entry.msg?.startsWith('Toolwire gateway at ') === true) baseURL = entry.msg.slice('Toolwire gateway at '.length);
        if (entry.err?.message === 'injected failure') resolve();
      });
    });
    await injected;
    expect(entries.find((e) => e.err?.message === 'injected failure')?.msg).toContain('uncaught exception');
    expect(child.exitCode).toBeNull();
    const res = await fetch((baseURL ?? '').replace(/\/v1$/, '/healthz'));
    expect(res.status).toBe(200);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
  });

  it('drains an open stream on SIGTERM, then exits 0', async () => {
    upstream = await startFakeOpenAI(() => ({ slowText: 'abcdefghij', delayMs: 30 }));
    const { child, baseURL, exited } = await startBin(upstream);
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const res = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'openai/gpt-fake', messages: [{ role: 'user', content: 'x' }], stream: true }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    child.kill('SIGTERM');
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const [code] = await exited;
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text).toContain('"j"');
    expect(code).toBe(0);
  });

  it('lets every open stream finish on SIGTERM, on every listening socket, before it exits', async () => {
    // 16 connections (`connection: close`, so each is new) spread over the default
    // `listenSockets` by the kernel; one outlasts the rest by seconds. The bin may exit only
    // after that one ended, whichever socket accepted it (not 1 s after the first socket drained).
    upstream = await startFakeOpenAI((body) =>
      JSON.stringify(body.messages).includes('long') ? { slowText: 'abcdefghijklmnop', delayMs: 200 } : { slowText: 'ab', delayMs: 50 },
    );
    const { child, baseURL, lines, exited } = await startBin(upstream);
    lines.on('line', () => undefined);
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const readers = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const res = await fetch(`${baseURL ?? ''}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ model: 'openai/gpt-fake', messages: [{ role: 'user', content: i === 5 ? 'long' : 'short' }], stream: true }),
        });
        expect(res.status).toBe(200);
        const reader = res.body!.getReader();
        const first = await reader.read();
        return { reader, text: new TextDecoder().decode(first.value) };
      }),
    );
    // Every stream has started; now the deploy's SIGTERM.
    child.kill('SIGTERM');
    const outcomes = await Promise.all(
      readers.map(async ({ reader, text }) => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            text += new TextDecoder().decode(value);
          }
          return text.endsWith('data: [DONE]\n\n') ? 'complete' : 'cut (no [DONE])';
        } catch (error) {
          return `failed: ${String((error as Error).cause ?? error)}`;
        }
      }),
    );
    const [code] = await exited;
    expect(outcomes).toEqual(Array.from({ length: 16 }, () => 'complete'));
    expect(code).toBe(0);
  }, 60_000);
});
