import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCommand, SandboxUnavailableError, spawnSandboxed } from '../src/index.ts';
import type * as CommandCgroupModule from '../src/shell/command-cgroup.ts';
import { sandboxTempDir, writableBySandbox } from './sandbox-dirs.ts';

// The probe's test process joined, but by the time a command runs its cgroup cannot be
// joined any more (this process was moved, the delegation taken back). Only the cgroup a
// command gets is replaced: one whose cgroup.procs cannot be written. The rest (the join
// script, prlimit, bubblewrap) runs for real.
let unjoinable = '';
vi.mock('../src/shell/command-cgroup.ts', async (importOriginal) => {
  const original = await importOriginal<typeof CommandCgroupModule>();
  return {
    ...original,
    createCommandCgroup: () => ({ procsFiles: [join(unjoinable, 'cgroup.procs')], oomKills: () => 0, destroy: () => undefined }),
  };
});

let base: string;
let cwd: string;

beforeAll(() => {
  base = sandboxTempDir(tmpdir(), 'toolwire-join-');
  cwd = join(base, 'work');
  mkdirSync(cwd);
  writableBySandbox(cwd);
  unjoinable = join(base, 'gone');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('a command whose cgroup cannot be joined', () => {
  it('is not run, and runCommand says why instead of reporting exit 125', async () => {
    const error: unknown = await runCommand({ command: ['sh', '-c', 'echo ran > ran.txt'], cwd }).catch((e: unknown) => e);
    expect(SandboxUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ missing: 'cgroup' });
    expect((error as Error).message).toMatch(/could not be moved into its cgroup, so it did not run \(.*gone\/cgroup\.procs\)\. The cgroups probed when this process started can no longer be joined\. Restart the process/);
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(false);
  });

  it('is reported by spawnSandboxed as a process that could not be started', async () => {
    const exit = await spawnSandboxed({ command: ['sh', '-c', 'echo ran > ran.txt; cat'], cwd }).exited;
    expect(exit).toMatchObject({ exitCode: 127, killed: false });
    expect(exit.spawnError).toMatch(/could not be moved into its cgroup.*gone\/cgroup\.procs/);
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(false);
  });
});
