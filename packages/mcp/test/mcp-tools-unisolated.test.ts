import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { executeToolCall, ToolRegistry } from '@toolwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpTools } from '../src/index.ts';
import { eventually, stdioTestServer } from './helpers.ts';

// A stdio server run without isolation (no PID namespace) that starts processes which leave
// its process group: setsid, a double fork, nohup (fixtures/detaching-stdio-server.ts).
const server = stdioTestServer({ args: [join(import.meta.dirname, 'fixtures', 'detaching-stdio-server.ts')], isolation: 'none' });

/** A sleep still running as `pid` (not gone, not a zombie, not another process with its number). */
function sleeping(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.includes('(sleep)') && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const started: number[] = [];
afterEach(() => {
  // Whatever a failed test left running.
  for (const pid of started.splice(0)) {
    try {
      if (sleeping(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
});

describe("mcpTools with isolation: 'none'", () => {
  it('stops what the server started outside its process group when the tools are closed', { timeout: 30_000 }, async () => {
    // Before: only the process group was killed; all three sleeps outlived close().
    const set = await mcpTools(server, { callTimeoutMs: 20_000 });
    const result = await executeToolCall({ id: 'c1', name: 'detach', arguments: {} }, { registry: new ToolRegistry({ tools: set.tools }) });
    const pids = JSON.parse(result.message) as number[];
    started.push(...pids);
    expect(pids).toHaveLength(3);
    // `$!` and a spawn's pid come right after the fork: each is `sleep` once it has exec'd
    // (`nohup` and `setsid` exec in turn), which a loaded machine may not have done yet.
    expect(await eventually(() => pids.every(sleeping))).toBe(true);
    await set.close();
    expect(await eventually(() => !pids.some(sleeping))).toBe(true);
  });

  it('stops what the server started when the host process exits without closing the tools', { timeout: 30_000 }, async () => {
    const host = join(import.meta.dirname, 'fixtures', 'exiting-host.ts');
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--conditions=@toolwire/source', host], { timeout: 25_000 }, (error, out) => {
        if (error) reject(new Error(`the host failed: ${error.message}`, { cause: error }));
        else resolve(out);
      });
    });
    const pids = JSON.parse(stdout.trim()) as number[];
    started.push(...pids);
    expect(pids).toHaveLength(3);
    expect(await eventually(() => !pids.some(sleeping))).toBe(true);
  });
});
