import { fileURLToPath } from 'node:url';
import { getSandboxSupport } from '@toolwire/sandbox';
import { describe, expect, it } from 'vitest';
import { runInJailWithoutCgroups } from '../../../test/jail-without-cgroups.ts';

// A root container without a writable pids cgroup: the sandbox then runs processes as uid
// 65534 (so that RLIMIT_NPROC binds), and the scratch directory a stdio server gets must be
// writable by it. An outer bubblewrap jail with an empty read-only /sys/fs/cgroup
// reproduces that here (as another user the sandbox uses the caller's uid, and it works too).
const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const helpers = fileURLToPath(new URL('./helpers.ts', import.meta.url));
const sandboxEntry = fileURLToPath(import.meta.resolve('@toolwire/sandbox'));

async function inJailWithoutCgroups(script: string): Promise<{ stdout: string; stderr: string }> {
  const bwrap = getSandboxSupport().bubblewrap;
  if (!bwrap.ok) throw new Error(`this test needs bubblewrap: ${bwrap.problem}`);
  return runInJailWithoutCgroups({ bwrap: bwrap.path, imports: { mcp: entry, helpers, sandbox: sandboxEntry }, script }).done;
}

describe('mcpTools over stdio without a writable pids cgroup', () => {
  it('gives the server a scratch directory it can write', { timeout: 30_000 }, async () => {
    const { stdout, stderr } = await inJailWithoutCgroups(`
      const set = await mcp.mcpTools(helpers.stdioTestServer(), { callTimeoutMs: 10_000 });
      const echo = set.tools.find((tool) => tool.name === 'echo');
      const result = await echo.execute({ text: 'hi', times: 1 }, { toolCallId: 'c1', signal: new AbortController().signal });
      await set.close();
      console.log(JSON.stringify({ processLimit: sandbox.getSandboxSupport().processLimit, echoed: result.message ?? result }));`);
    expect(stderr).toBe('');
    const outcome = JSON.parse(stdout) as { processLimit: string; echoed: unknown };
    expect(outcome).toEqual({ processLimit: process.geteuid?.() === 0 ? 'uid' : 'rlimit', echoed: 'hi' });
  });
});
