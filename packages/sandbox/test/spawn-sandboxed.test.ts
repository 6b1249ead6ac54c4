import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSandboxed } from '../src/index.ts';
import type { AuditEvent, SandboxedProcess } from '../src/index.ts';
import { sandboxTempDir, writableBySandbox } from './sandbox-dirs.ts';

let base: string;

beforeAll(() => {
  base = sandboxTempDir(tmpdir(), 'toolwire-spawn-');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function readLine(proc: SandboxedProcess): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const end = text.indexOf('\n');
      if (end >= 0) {
        proc.stdout.off('data', onData);
        resolve(text.slice(0, end));
      }
    };
    proc.stdout.on('data', onData);
  });
}

/** A sleep still running as `pid` (not gone, not a zombie). */
function sleeping(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.includes('(sleep)') && stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return false;
  }
}

// A writable work directory, and a code directory outside it (bound read-only when asked).
function dirs(): { work: string; code: string } {
  const root = sandboxTempDir(base, 'case-');
  return { work: writableBySandbox(sandboxTempDir(root, 'work-')), code: sandboxTempDir(root, 'code-') };
}

describe('spawnSandboxed', () => {
  it('keeps a process running with stdin and stdout as pipes, then kills its group', async () => {
    const { work: cwd } = dirs();
    const events: AuditEvent[] = [];
    const proc = spawnSandboxed({ command: ['sh', '-c', 'while read line; do echo "got $line"; done'], cwd, onAudit: (e) => events.push(e) });
    proc.stdin.write('one\n');
    expect(await readLine(proc)).toBe('got one');
    proc.stdin.write('two\n');
    expect(await readLine(proc)).toBe('got two');
    const exit = await proc.kill();
    expect(exit.killed).toBe(true);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'shell', tool: 'process', outcome: 'aborted' });
  });

  it('binds readOnlyPaths read-only and keeps the network off', async () => {
    const { work: cwd, code: codeDir } = dirs();
    writeFileSync(join(codeDir, 'hello.txt'), 'from the host');
    const proc = spawnSandboxed({
      command: ['sh', '-c', `cat ${codeDir}/hello.txt; echo; echo x > ${codeDir}/planted 2>/dev/null || echo read-only; tail -n +3 /proc/net/dev | wc -l; echo > ${cwd}/ok && echo writable`],
      cwd,
      readOnlyPaths: [codeDir],
    });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exit = await proc.exited;
    expect(exit).toMatchObject({ exitCode: 0, killed: false });
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe('from the host');
    expect(lines[1]).toBe('read-only');
    // Only the loopback device exists in the private network namespace.
    expect(lines[2]).toBe('1');
    expect(lines[3]).toBe('writable');
  });

  it('reports an exit of its own, and ends at maxLifetimeMs', async () => {
    const { work: cwd } = dirs();
    expect(await spawnSandboxed({ command: ['sh', '-c', 'exit 7'], cwd }).exited).toMatchObject({ exitCode: 7, killed: false });
    const started = Date.now();
    const exit = await spawnSandboxed({ command: ['sleep', '30'], cwd, maxLifetimeMs: 200 }).exited;
    expect(exit.killed).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('applies the memory limit', async () => {
    const { work: cwd } = dirs();
    const proc = spawnSandboxed({ command: ['sh', '-c', 'x=$(head -c 100000000 /dev/zero | tr "\\0" a); echo survived'], cwd, limits: { memoryMb: 16 } });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exit = await proc.exited;
    expect(out).not.toContain('survived');
    expect(exit.exitCode).not.toBe(0);
  });

  it('settles `exited` and `kill()` even when, without isolation, a process outside its group holds stdout', { timeout: 20_000 }, async () => {
    const { work: cwd } = dirs();
    const proc = spawnSandboxed({ command: ['sh', '-c', `setsid sh -c 'echo $$ > left; exec sleep 30' & while [ ! -s left ]; do sleep 0.05; done; cat left; sleep 30`], cwd, isolation: 'none' });
    const leftover = Number(await readLine(proc));
    // Read on, as a stdio client does.
    proc.stdout.on('data', () => undefined);
    try {
      const bound = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 8000).unref());
      expect(await Promise.race([proc.kill(), bound])).toMatchObject({ killed: true });
    } finally {
      try {
        if (leftover > 1) process.kill(leftover, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  });

  it('without isolation, ends what left its group (setsid, a double fork) when it is killed or exits', { timeout: 20_000 }, async () => {
    // Before: only the process group was signalled, and these sleeps outlived kill() and the exit.
    const { work: cwd } = dirs();
    const script = 'setsid sleep 300 & echo $!; (sleep 301 & echo $!); while [ ! -e go ]; do sleep 0.05; done; exit 3';
    const leftovers: number[] = [];
    const pidsOf = async (child: SandboxedProcess) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      while (out.split('\n').length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
      const pids = out.trim().split('\n').map(Number);
      leftovers.push(...pids);
      // `$!` is printed right after the fork: each becomes `sleep` once `setsid` or the subshell has
      // exec'd it, which a loaded machine may not have done yet.
      for (let i = 0; i < 250 && !pids.every(sleeping); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      return pids;
    };
    try {
      const killed = spawnSandboxed({ command: ['sh', '-c', script], cwd, isolation: 'none' });
      expect((await pidsOf(killed)).every(sleeping)).toBe(true);
      await killed.kill();
      const exiting = spawnSandboxed({ command: ['sh', '-c', script], cwd, isolation: 'none' });
      expect((await pidsOf(exiting)).every(sleeping)).toBe(true);
      writeFileSync(join(cwd, 'go'), '');
      expect(await exiting.exited).toMatchObject({ exitCode: 3 });
      expect(leftovers.filter(sleeping)).toEqual([]);
    } finally {
      for (const pid of leftovers) if (pid > 1 && sleeping(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('refuses a command that is not an argv', () => {
    expect(() => spawnSandboxed({ command: [], cwd: base })).toThrow(TypeError);
    expect(() => spawnSandboxed({ command: ['ls'], cwd: base, readOnlyPaths: ['/no/such/path'] })).toThrow();
  });
});
