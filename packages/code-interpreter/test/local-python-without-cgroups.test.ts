import { fileURLToPath } from 'node:url';
import { getSandboxSupport } from '@toolwire/sandbox';
import { describe, expect, it } from 'vitest';
import { runInJailWithoutCgroups } from '../../../test/jail-without-cgroups.ts';

// A root container without a writable pids cgroup: the sandbox then runs commands as uid
// 65534 (so RLIMIT_NPROC binds), and the work dirs must be writable by it. An outer
// bubblewrap jail with an empty read-only /sys/fs/cgroup reproduces that here.
const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const sandboxEntry = fileURLToPath(import.meta.resolve('@toolwire/sandbox'));

async function inJailWithoutCgroups(script: string): Promise<{ stdout: string; stderr: string }> {
  const bwrap = getSandboxSupport().bubblewrap;
  if (!bwrap.ok) throw new Error(`this test needs bubblewrap: ${bwrap.problem}`);
  return runInJailWithoutCgroups({ bwrap: bwrap.path, imports: { ci: entry, sandbox: sandboxEntry }, script }).done;
}

describe('localCodeInterpreter (python) as root without a writable pids cgroup', () => {
  it('gives its work dirs to the uid the sandbox runs code as, so cells can write files', { timeout: 30_000 }, async () => {
    const { stdout, stderr } = await inJailWithoutCgroups(`
      const python = ci.localCodeInterpreter({ language: 'python' });
      const result = await python.run('open("out.txt", "w").write("hi")\\nprint(6 * 7)');
      await python.dispose();
      console.log(JSON.stringify({ processLimit: sandbox.getSandboxSupport().processLimit, success: result.success, message: result.message }));`);
    expect(stderr).toBe('');
    const outcome = JSON.parse(stdout) as { processLimit: string; success: boolean; message: string };
    // As another user, the sandbox bounds processes with RLIMIT_NPROC under the caller's uid.
    expect(outcome.processLimit).toBe(process.geteuid?.() === 0 ? 'uid' : 'rlimit');
    expect(outcome).toMatchObject({ success: true, message: '42\n\n[files: out.txt]' });
  });
});
