import { spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSandboxSupport } from '../src/index.ts';

// The machine running these tests may have a writable pids cgroup (then runCommand uses
// it). A container or CI runner often has none: this reproduces that with an outer
// bubblewrap jail whose /sys/fs/cgroup is an empty read-only tmpfs, running as root.
const NOBODY = 65534;
const entry = new URL('../src/index.ts', import.meta.url).pathname;
let base: string;
let workspace: string;
let rootOwned: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'toolwire-nproc-'));
  workspace = join(base, 'ws');
  rootOwned = join(base, 'root-owned');
  mkdirSync(workspace);
  mkdirSync(rootOwned, { mode: 0o755 });
  chownSync(workspace, NOBODY, NOBODY);
  // mkdtemp makes 0700 directories; the sandbox uid must be able to reach the workspace.
  spawnSync('chmod', ['755', base]);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Runs `script` (an ES module using the package as `sandbox`) in Node inside the outer jail; resolves with its stdout. */
function inJailWithoutCgroups(script: string, extraArgs: string[] = []): { done: Promise<{ stdout: string; stderr: string; code: number | null }> } {
  const bwrap = getSandboxSupport().bubblewrap;
  if (!bwrap.ok) throw new Error(`these tests need bubblewrap: ${bwrap.problem}`);
  const child = spawn(
    bwrap.path,
    [
      '--dev-bind', '/', '/',
      '--tmpfs', '/sys/fs/cgroup',
      '--remount-ro', '/sys/fs/cgroup',
      ...extraArgs,
      '--die-with-parent',
      '--',
      process.execPath,
      '--conditions=@toolwire/source',
      '--input-type=module',
      '-e',
      `const sandbox = await import(${JSON.stringify(entry)});\n${script}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { done: new Promise((resolve) => child.on('close', (code) => resolve({ stdout, stderr, code }))) };
}

/** Processes on the host whose real uid is `uid`. */
function processesOf(uid: number): number {
  let count = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('Uid:'));
      if (line !== undefined && Number(line.split(/\s+/)[1]) === uid) count++;
    } catch {
      // Gone while we looked.
    }
  }
  return count;
}

describe('the process limit without a writable pids cgroup, as root', () => {
  it('runs commands as an unprivileged uid there, and refuses a workspace that uid cannot write', async () => {
    const { done } = inJailWithoutCgroups(`
      const support = sandbox.getSandboxSupport();
      const ok = await sandbox.runCommand({ command: ['sh', '-c', 'id -u; touch made-here; grep -E "^Uid" /proc/self/status'], cwd: ${JSON.stringify(workspace)} });
      let refused;
      try { await sandbox.runCommand({ command: ['true'], cwd: ${JSON.stringify(rootOwned)} }); } catch (error) { refused = { missing: error.missing, message: error.message }; }
      console.log(JSON.stringify({ processLimit: support.processLimit, memoryLimit: support.memoryLimit, hostUid: support.hostUid, stdout: ok.stdout, refused }));`);
    const { stdout, stderr } = await done;
    expect(stderr).toBe('');
    const outcome = JSON.parse(stdout) as { processLimit: string; memoryLimit: string; hostUid?: number; stdout: string; refused?: { missing: string; message: string } };
    expect(outcome.processLimit).toBe('uid');
    // No memory cgroup either: each process is bounded, not the command as a whole.
    expect(outcome.memoryLimit).toBe('per-process');
    expect(outcome.hostUid).toBe(NOBODY);
    // Inside the jail the command still sees uid 1000; the host sees nobody.
    expect(outcome.stdout.split('\n')[0]).toBe('1000');
    expect(readdirSync(workspace)).toContain('made-here');
    expect(outcome.refused).toMatchObject({ missing: 'process-limit' });
    expect(outcome.refused?.message).toContain(`chown ${NOBODY}:${NOBODY}`);
  });

  it('refuses to run a command at all where it cannot bound processes (no setpriv either)', async () => {
    const { done } = inJailWithoutCgroups(
      `
      let refused;
      try { await sandbox.runCommand({ command: ['true'], cwd: ${JSON.stringify(workspace)} }); } catch (error) { refused = { missing: error.missing, message: error.message }; }
      console.log(JSON.stringify({ processLimit: sandbox.getSandboxSupport().processLimit, refused }));`,
      ['--ro-bind', '/dev/null', '/usr/bin/setpriv'],
    );
    const { stdout, stderr } = await done;
    expect(stderr).toBe('');
    const outcome = JSON.parse(stdout) as { processLimit: string; refused?: { missing: string; message: string } };
    expect(outcome.processLimit).toBe('none');
    expect(outcome.refused).toMatchObject({ missing: 'process-limit' });
    expect(outcome.refused?.message).toContain('fork bomb could fill the process table');
  });

  it.each([
    ['a bash fork bomb', ['bash', '-c', 'bomb() { bomb | bomb & }; bomb; sleep 2']],
    ['sh spawning sleepers in a loop', ['sh', '-c', 'while :; do sleep 30 & done']],
    ['a python fork loop', ['python3', '-c', 'import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.05)']],
  ])('keeps %s inside the limit while the host can still fork', async (_name, command) => {
    const limit = 48;
    const before = processesOf(NOBODY);
    const { done } = inJailWithoutCgroups(`
      const result = await sandbox.runCommand({ command: ${JSON.stringify(command)}, cwd: ${JSON.stringify(workspace)}, timeoutMs: 2500, limits: { processes: ${limit} } });
      console.log(JSON.stringify({ timedOut: result.timedOut, exitCode: result.exitCode }));`);
    let finished = false;
    const outcome = done.then((r) => {
      finished = true;
      return r;
    });
    let peak = 0;
    let hostForks = 0;
    // Counted every 10 ms: a shell whose fork fails at the limit may end (and its sleepers
    // with it) within a few hundred milliseconds of starting.
    for (let round = 0; !finished; round++) {
      peak = Math.max(peak, processesOf(NOBODY) - before);
      if (round % 10 === 0) {
        // The host keeps forking throughout the attack.
        const probe = spawnSync('/bin/true');
        expect(probe.status).toBe(0);
        hostForks++;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const { stdout, stderr } = await outcome;
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toMatchObject({ timedOut: expect.any(Boolean) });
    // Every probe above forked (the first one at the latest).
    expect(hostForks).toBeGreaterThanOrEqual(1);
    // Only the command's processes run as nobody; the kernel stops them at the limit.
    expect(peak, `no process of the attack was seen; the run said ${stdout}`).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(limit);
    // And they all die with the command (the kernel reaps a PID namespace in a moment).
    for (let i = 0; i < 30 && processesOf(NOBODY) > before; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processesOf(NOBODY)).toBeLessThanOrEqual(before);
  });
});
