// The cross-process refresh lock, with real processes: a rotating refresh token must be
// refreshed once, ever, however slow the refresh and however processes race for a lock
// whose holder died.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, readdir, readFile, rename, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { ProviderUnavailableError, ToolwireError } from '@toolwire/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { FileLockLostError, withFileLock } from '../src/auth/file-lock.ts';
import { createChatGPTAuth } from '../src/index.ts';
import { startAuthServer } from './helpers/auth-server.ts';
import { makeAuthFile, makeTokenSet } from './helpers/jwt.ts';
import { makeTempDir } from './helpers/temp-dir.ts';

let auth: Awaited<ReturnType<typeof startAuthServer>>;
let temp: Awaited<ReturnType<typeof makeTempDir>>;
const children: ChildProcess[] = [];

beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await auth?.close();
  await temp.cleanup();
});

const FIXTURES = join(import.meta.dirname, 'fixtures');

interface ChildResult {
  ok: boolean;
  accessToken?: string;
  message?: string;
  events: { type: string }[];
  /** When the parent saw the child exit (ms since epoch). */
  endedAt: number;
}

function runRefreshChild(path: string, options: object): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--conditions=@toolwire/source', join(FIXTURES, 'refresh-child.ts'), path, auth.url, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(proc);
    let out = '';
    let err = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => (code === 0 ? resolve({ ...(JSON.parse(out) as ChildResult), endedAt: Date.now() }) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

/** Starts a process that takes the lock; resolves once it holds it. */
function startHolder(lockPath: string, holdMs: number, times: object): Promise<{ proc: ChildProcess; released: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--conditions=@toolwire/source', join(FIXTURES, 'hold-lock.ts'), lockPath, String(holdMs), JSON.stringify(times)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(proc);
    let out = '';
    let releasedAt: (at: number) => void = () => undefined;
    const released = new Promise<number>((done) => (releasedAt = done));
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('held\n')) resolve({ proc, released });
      if (out.includes('released\n')) releasedAt(Date.now());
    });
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      if (!out.includes('held\n')) reject(new Error(`holder exited ${code ?? signal} before holding the lock`));
    });
  });
}

async function writeExpiredSignIn(path: string) {
  const tokens = makeTokenSet({ expiresIn: -30 });
  auth.adopt(tokens);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, JSON.stringify(makeAuthFile(tokens)), { mode: 0o600 });
  return tokens;
}

function expectOneRefresh(results: ChildResult[], fileText: string) {
  expect(results.map((r) => (r.ok ? 'ok' : r.message))).toEqual(results.map(() => 'ok'));
  expect(auth.refreshCount).toBe(1);
  const file = JSON.parse(fileText) as { tokens: { access_token: string } };
  expect(new Set(results.map((r) => r.accessToken))).toEqual(new Set([file.tokens.access_token]));
  expect(results.flatMap((r) => r.events.map((e) => e.type)).filter((t) => t === 'refresh')).toHaveLength(1);
}

// Real processes start slowly on a loaded machine: generous per-test time.
describe('one refresh of a rotating refresh token', { timeout: 90_000 }, () => {
  it('is not duplicated when the refresh is slower than the old fixed stale window', async () => {
    // Scaled down 100×: the old lock went stale a fixed 30 s (here 300 ms) after it was
    // taken, whatever its holder did; this refresh takes 40 s-equivalent. Stale now means
    // "not touched for staleMs", the holder touches it every heartbeatMs, and the
    // refresh's own deadline stays below staleMs. (Generous margins: the machine running
    // the tests may be loaded, and a refresh cut off by its deadline after the server
    // rotated the token would sign everyone out, which is what this test would then show.)
    auth = await startAuthServer({ refreshDelayMs: 400 });
    const path = join(temp.dir, 'shared', 'auth.json');
    await writeExpiredSignIn(path);
    const options = { lock: { staleMs: 6000, heartbeatMs: 50, timeoutMs: 30_000 }, refreshTimeoutMs: 5000 };
    const results = await Promise.all([1, 2, 3, 4].map(() => runRefreshChild(path, options)));
    expectOneRefresh(results, await readFile(path, 'utf8'));
  });

  it('keeps the lock of a live holder that works for many stale windows: the others wait', async () => {
    auth = await startAuthServer();
    const path = join(temp.dir, 'shared', 'auth.json');
    await writeExpiredSignIn(path);
    const times = { staleMs: 1000, heartbeatMs: 50, timeoutMs: 30_000 };
    // Holds the refresh lock for three and a half stale windows, as a slow refresh would.
    const holder = await startHolder(`${path}.lock`, 3500, times);
    const results = await Promise.all([1, 2, 3].map(() => runRefreshChild(path, { lock: times, refreshTimeoutMs: 900 })));
    const releasedAt = await holder.released;
    for (const result of results) expect(result.endedAt).toBeGreaterThanOrEqual(releasedAt);
    expectOneRefresh(results, await readFile(path, 'utf8'));
  });

  const deadHolders: { name: string; leave: (lockPath: string) => Promise<void> }[] = [
    {
      name: 'a holder process killed while holding the lock',
      leave: async (lockPath) => {
        const holder = await startHolder(lockPath, 60_000, { staleMs: 60_000 });
        const exited = new Promise((resolve) => holder.proc.once('close', resolve));
        holder.proc.kill('SIGKILL');
        await exited;
      },
    },
    {
      name: 'a lock of another host, untouched for longer than staleMs',
      leave: async (lockPath) => {
        await writeFile(lockPath, JSON.stringify({ pid: 1, host: 'some-other-host', nonce: 'aa11bb22cc33dd44ee55ff66', at: '2026-01-01T00:00:00Z' }));
        const past = new Date(Date.now() - 60_000);
        await utimes(lockPath, past, past);
      },
    },
    {
      name: 'a damaged lock file, untouched for longer than staleMs',
      leave: async (lockPath) => {
        await writeFile(lockPath, '{"pid": 12');
        const past = new Date(Date.now() - 60_000);
        await utimes(lockPath, past, past);
      },
    },
    {
      name: 'a lock in the earlier format (no host) of a process that is gone',
      leave: async (lockPath) => {
        const gone = spawn(process.execPath, ['-e', '']);
        await new Promise((resolve) => gone.once('close', resolve));
        await writeFile(lockPath, JSON.stringify({ pid: gone.pid, nonce: '0123456789abcdef01234567', at: new Date().toISOString() }));
      },
    },
  ];

  for (const dead of deadHolders) {
    it(`lets exactly one of several racing processes refresh after ${dead.name}`, async () => {
      auth = await startAuthServer({ refreshDelayMs: 50 });
      const path = join(temp.dir, 'shared', 'auth.json');
      await writeExpiredSignIn(path);
      await dead.leave(`${path}.lock`);
      const options = { lock: { staleMs: 20_000, heartbeatMs: 100, timeoutMs: 60_000 }, refreshTimeoutMs: 15_000 };
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => runRefreshChild(path, options)));
      expectOneRefresh(results, await readFile(path, 'utf8'));
      // Nothing of the dead holder or of the takeover is left behind.
      expect((await readdir(join(path, '..'))).sort()).toEqual(['auth.json']);
    });
  }

  it('stops a refresh at its own deadline and releases the lock', async () => {
    auth = await startAuthServer({ refreshDelayMs: 30_000 });
    const path = join(temp.dir, 'auth.json');
    await writeExpiredSignIn(path);
    const manager = createChatGPTAuth({ store: 'toolwire', path, issuer: auth.url, lock: { staleMs: 1000, heartbeatMs: 50 }, refreshTimeoutMs: 300 });
    const started = Date.now();
    const error = await manager.getCredentials().catch((e: unknown) => e);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect((error as ProviderUnavailableError).code).toBe('timeout');
    expect((error as Error).message).toMatch(/did not answer within 300 ms/);
    // Well before the server would have answered: the request was cut off, not awaited.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await readdir(temp.dir)).sort()).toEqual(['auth.json']);
  });

  it('refuses timing where a refresh could outlive its lock', () => {
    expect(() => createChatGPTAuth({ lock: { staleMs: 1000 }, refreshTimeoutMs: 1000 })).toThrow(/shorter than lock.staleMs/);
    expect(() => createChatGPTAuth({ lock: { staleMs: 1000, heartbeatMs: 2000 } })).toThrow(ToolwireError);
    expect(() => createChatGPTAuth({ lock: { staleMs: 1000 } })).not.toThrow();
  });
});

describe('withFileLock', { timeout: 60_000 }, () => {
  it('admits one holder at a time when many in one process race for a dead holder lock', async () => {
    for (const round of [1, 2, 3]) {
      const lockPath = join(temp.dir, `round-${round}.lock`);
      await writeFile(lockPath, JSON.stringify({ pid: 1, host: 'elsewhere', nonce: `${round}`.repeat(8) }));
      const past = new Date(Date.now() - 60_000);
      await utimes(lockPath, past, past);
      let inside = 0;
      let most = 0;
      let entered = 0;
      await Promise.all(
        Array.from({ length: 25 }, () =>
          withFileLock(
            lockPath,
            async () => {
              inside++;
              entered++;
              most = Math.max(most, inside);
              await new Promise((resolve) => setTimeout(resolve, 2));
              inside--;
            },
            { staleMs: 30_000, timeoutMs: 20_000 },
          ),
        ),
      );
      expect(most).toBe(1);
      expect(entered).toBe(25);
    }
    expect((await readdir(temp.dir)).filter((name) => name.includes('round'))).toEqual([]);
  });

  it('takes the lock with a fresh mtime even after waiting longer than staleMs', async () => {
    const lockPath = join(temp.dir, 'wait.lock');
    const times = { staleMs: 1000, heartbeatMs: 50, timeoutMs: 20_000 };
    let second = false;
    const first = withFileLock(lockPath, () => new Promise((resolve) => setTimeout(resolve, 2500)), times);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waiter = withFileLock(
      lockPath,
      async () => {
        second = true;
        // Just taken after a wait of more than staleMs: not stale in anyone's eyes.
        const { mtimeMs } = await stat(lockPath);
        expect(Date.now() - mtimeMs).toBeLessThan(times.staleMs);
      },
      times,
    );
    await Promise.all([first, waiter]);
    expect(second).toBe(true);
  });

  it('aborts the work when the lock is taken from its holder', async () => {
    const lockPath = join(temp.dir, 'lost.lock');
    const result = await withFileLock(
      lockPath,
      async (lockSignal) => {
        // Another process replaces the lock (as a takeover after a long stall would).
        await writeFile(join(temp.dir, 'intruder'), '{}');
        await rename(join(temp.dir, 'intruder'), lockPath);
        await new Promise((resolve) => lockSignal.addEventListener('abort', resolve, { once: true }));
        return lockSignal.reason as unknown;
      },
      { staleMs: 1000, heartbeatMs: 20 },
    );
    expect(FileLockLostError.isInstance(result)).toBe(true);
    // The intruder's lock is not removed by the release of the holder that lost it.
    expect(await readFile(lockPath, 'utf8')).toBe('{}');
  });
});
