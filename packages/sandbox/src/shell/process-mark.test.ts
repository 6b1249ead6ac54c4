import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { findMarkedProcesses, killAtExit, newProcessMark, PROCESS_MARK_VARIABLE, signalMarkedProcesses } from './process-mark.ts';

const started: ChildProcess[] = [];

/** A `sleep` with `env`, once it has exec'd (its environ is then sleep's own). */
async function sleeper(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn('/bin/sh', ['-c', 'exec sleep 30'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: 'ignore' });
  started.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  return child;
}

afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

describe.runIf(process.platform === 'linux')('process marks', () => {
  it('finds the processes carrying the mark as a whole entry, and only those', async () => {
    const mark = newProcessMark();
    const marked = await sleeper({ [PROCESS_MARK_VARIABLE]: mark });
    // The same text inside another variable, or a longer value, is not the mark.
    await sleeper({ OTHER: `${PROCESS_MARK_VARIABLE}=${mark}` });
    await sleeper({ [PROCESS_MARK_VARIABLE]: `${mark}x` });
    await sleeper({ [PROCESS_MARK_VARIABLE]: newProcessMark() });
    expect(await findMarkedProcesses(mark)).toEqual([marked.pid]);
  });

  it('kills them, and finds none once they are gone', async () => {
    const mark = newProcessMark();
    const marked = [await sleeper({ [PROCESS_MARK_VARIABLE]: mark }), await sleeper({ [PROCESS_MARK_VARIABLE]: mark })];
    const other = await sleeper({ [PROCESS_MARK_VARIABLE]: newProcessMark() });
    const exits = marked.map((child) => new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal))));
    expect(await signalMarkedProcesses(mark, 'SIGKILL')).toBeGreaterThanOrEqual(2);
    expect(await Promise.all(exits)).toEqual(['SIGKILL', 'SIGKILL']);
    expect(other.exitCode === null && other.signalCode === null).toBe(true);
    expect(await findMarkedProcesses(mark)).toEqual([]);
  });

  it('adds one exit listener however many processes it watches', () => {
    const before = process.listenerCount('exit');
    const forget = Array.from({ length: 100 }, (_, i) => killAtExit(newProcessMark(), 1_000_000_000 + i));
    expect(process.listenerCount('exit') - before).toBeLessThanOrEqual(1);
    for (const f of forget) f();
  });
});
