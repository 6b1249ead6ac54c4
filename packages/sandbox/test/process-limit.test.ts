import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSandboxSupport } from '../src/index.ts';
import { runInJailWithoutCgroups } from '../../../test/jail-without-cgroups.ts';
import type { JailRun } from '../../../test/jail-without-cgroups.ts';

// The machine running these tests may have a writable pids cgroup (then runCommand uses
// it). A container or CI runner often has none: this reproduces that with an outer
// bubblewrap jail whose /sys/fs/cgroup is an empty read-only tmpfs. As root, commands then
// run as uid 65534 (RLIMIT_NPROC binds only for another uid); as any other user, under the
// caller's own uid with RLIMIT_NPROC.
const NOBODY = 65534;
const asRoot = process.geteuid?.() === 0;
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
  if (asRoot) chownSync(workspace, NOBODY, NOBODY);
  // mkdtemp makes 0700 directories; the sandbox uid must be able to reach the workspace.
  chmodSync(base, 0o755);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Runs `script` (an ES module using the package as `sandbox`) in Node inside the outer jail; resolves with its stdout. */
function inJailWithoutCgroups(script: string, extraArgs: string[] = []): JailRun {
  const bwrap = getSandboxSupport().bubblewrap;
  if (!bwrap.ok) throw new Error(`these tests need bubblewrap: ${bwrap.problem}`);
  return runInJailWithoutCgroups({ bwrap: bwrap.path, imports: { sandbox: entry }, script, extraArgs });
}

/**
 * Processes below the outer jail `jailPid` other than the Node process it runs (so: the
 * commands, with the setpriv/prlimit/bubblewrap chain that starts them) whose real uid is
 * `uid`. Counted by ancestry, not by uid alone: other test files may run commands as the
 * same uid at the same time.
 */
function commandProcesses(jailPid: number, uid: number): string[] {
  const parent = new Map<number, number>();
  const realUid = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8').split('\n');
      const field = (key: string) => Number(status.find((l) => l.startsWith(key))?.split(/\s+/)[1]);
      parent.set(Number(name), field('PPid:'));
      realUid.set(Number(name), field('Uid:'));
    } catch {
      // Gone while we looked.
    }
  }
  const found: string[] = [];
  for (const [pid, uidOf] of realUid) {
    if (uidOf !== uid) continue;
    // Depth below the jail: 1 is the jail's Node process itself.
    let depth = 0;
    for (let at: number | undefined = pid; at !== undefined && at > 1 && depth < 1000; at = parent.get(at)) {
      if (at === jailPid) {
        const identity = depth >= 2 ? processIdentity(pid) : undefined;
        if (identity !== undefined) found.push(identity);
        break;
      }
      depth++;
    }
  }
  return found;
}

/** `pid:start time`, which tells a process from a later one given the same pid (undefined: gone). */
function processIdentity(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces) start after its ')'.
    return `${pid}:${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}`;
  } catch {
    return undefined;
  }
}

describe(`the process limit without a writable pids cgroup, as ${asRoot ? 'root' : 'a non-root user'}`, () => {
  it(asRoot ? 'runs commands as an unprivileged uid there, and refuses a workspace that uid cannot write' : 'runs commands under the caller’s uid with RLIMIT_NPROC', async () => {
    const { done } = inJailWithoutCgroups(`
      const support = sandbox.getSandboxSupport();
      const ok = await sandbox.runCommand({ command: ['sh', '-c', 'id -u; touch made-here; grep -E "^Uid" /proc/self/status'], cwd: ${JSON.stringify(workspace)} });
      let refused;
      try { await sandbox.runCommand({ command: ['true'], cwd: ${JSON.stringify(rootOwned)} }); } catch (error) { refused = { missing: error.missing, message: error.message }; }
      console.log(JSON.stringify({ processLimit: support.processLimit, memoryLimit: support.memoryLimit, hostUid: support.hostUid, stdout: ok.stdout, refused }));`);
    const { stdout, stderr } = await done;
    expect(stderr).toBe('');
    const outcome = JSON.parse(stdout) as { processLimit: string; memoryLimit: string; hostUid?: number; stdout: string; refused?: { missing: string; message: string } };
    expect(outcome.processLimit).toBe(asRoot ? 'uid' : 'rlimit');
    // No memory cgroup either: each process is bounded, not the command as a whole.
    expect(outcome.memoryLimit).toBe('per-process');
    expect(outcome.hostUid).toBe(asRoot ? NOBODY : undefined);
    // Inside the jail the command sees uid 1000 whoever it is on the host.
    expect(outcome.stdout.split('\n')[0]).toBe('1000');
    expect(readdirSync(workspace)).toContain('made-here');
    if (asRoot) {
      expect(outcome.refused).toMatchObject({ missing: 'process-limit' });
      expect(outcome.refused?.message).toContain(`chown ${NOBODY}:${NOBODY}`);
    } else {
      // The caller's own directory is the command's: nothing to refuse.
      expect(outcome.refused).toBeUndefined();
    }
  });

  it(asRoot ? 'refuses to run a command at all where it cannot bound processes (no setpriv either)' : 'needs no setpriv to bound processes', async () => {
    const { done } = inJailWithoutCgroups(
      `
      let refused;
      let exitCode;
      try { exitCode = (await sandbox.runCommand({ command: ['true'], cwd: ${JSON.stringify(workspace)} })).exitCode; } catch (error) { refused = { missing: error.missing, message: error.message }; }
      console.log(JSON.stringify({ processLimit: sandbox.getSandboxSupport().processLimit, exitCode, refused }));`,
      ['--ro-bind', '/dev/null', '/usr/bin/setpriv'],
    );
    const { stdout, stderr } = await done;
    expect(stderr).toBe('');
    const outcome = JSON.parse(stdout) as { processLimit: string; exitCode?: number; refused?: { missing: string; message: string } };
    if (asRoot) {
      expect(outcome.processLimit).toBe('none');
      expect(outcome.refused).toMatchObject({ missing: 'process-limit' });
      expect(outcome.refused?.message).toContain('fork bomb could fill the process table');
    } else {
      expect(outcome).toEqual({ processLimit: 'rlimit', exitCode: 0 });
    }
  });

  it.each([
    ['a bash fork bomb', ['bash', '-c', 'bomb() { bomb | bomb & }; bomb; sleep 2']],
    ['sh spawning sleepers in a loop', ['sh', '-c', 'while :; do sleep 30 & done']],
    ['a python fork loop', ['python3', '-c', 'import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.05)']],
  ])('keeps %s inside the limit while the host can still fork', async (_name, command) => {
    const limit = 48;
    const commandUid = asRoot ? NOBODY : (process.getuid?.() ?? 0);
    const { pid: jailPid, done } = inJailWithoutCgroups(`
      const result = await sandbox.runCommand({ command: ${JSON.stringify(command)}, cwd: ${JSON.stringify(workspace)}, timeoutMs: 2500, limits: { processes: ${limit} } });
      console.log(JSON.stringify({ timedOut: result.timedOut, exitCode: result.exitCode }));`);
    if (jailPid === undefined) throw new Error('the outer jail did not start');
    let finished = false;
    const outcome = done.then((r) => {
      finished = true;
      return r;
    });
    let peak = 0;
    let hostForks = 0;
    const seen = new Set<string>();
    // Counted every 10 ms: a shell whose fork fails at the limit may end (and its sleepers
    // with it) within a few hundred milliseconds of starting.
    for (let round = 0; !finished; round++) {
      const now = commandProcesses(jailPid, commandUid);
      for (const identity of now) seen.add(identity);
      peak = Math.max(peak, now.length);
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
    // The kernel stops the command's processes at the limit.
    expect(peak, `no process of the attack was seen; the run said ${stdout}`).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(limit);
    // And they all die with the command (the kernel reaps a PID namespace in a moment).
    const survivors = () => [...seen].filter((identity) => processIdentity(Number(identity.split(':')[0])) === identity);
    for (let i = 0; i < 30 && survivors().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(survivors()).toEqual([]);
  });
});
