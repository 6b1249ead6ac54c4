import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolRegistry, executeToolCall } from '@toolwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutionPolicy, createJsSandbox, sandboxedTool, shellTool, SandboxExecutionError } from '../src/index.ts';
import type { AuditEvent, JsSandbox } from '../src/index.ts';
import { sandboxTempDir, writableBySandbox } from './sandbox-dirs.ts';

const context = { toolCallId: 'call_1', signal: new AbortController().signal, principal: 'user_1' };
let base: string;
let root: string;
let sandbox: JsSandbox;

beforeAll(() => {
  base = sandboxTempDir(tmpdir(), 'toolwire-tools-');
  root = join(base, 'root');
  mkdirSync(join(root, 'sub'), { recursive: true });
  writableBySandbox(root);
  writableBySandbox(join(root, 'sub'));
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret.txt'), 'OUTSIDE-SECRET');
  symlinkSync(join(base, 'outside'), join(root, 'escape-dir'));
  sandbox = createJsSandbox({ timeoutMs: 500, poolSize: 1 });
});
afterAll(async () => {
  rmSync(base, { recursive: true, force: true });
  await sandbox.dispose();
});

describe('shellTool', () => {
  const tool = () => shellTool({ root, denyCommands: ['curl'], timeoutMs: 5000 });

  it('is named shell and takes Codex’s arguments', () => {
    const shell = tool();
    expect(shell.name).toBe('shell');
    expect(shell.inputSchema.required).toEqual(['command']);
    expect(shell.validate({ command: ['ls'], workdir: 'sub', timeout_ms: 100 }).success).toBe(true);
    expect(shell.validate({ command: 'ls -la' }).success).toBe(false);
    expect(shell.validate({ command: [] }).success).toBe(false);
  });

  it('runs in workdir inside root with root writable', async () => {
    const result = (await tool().execute!({ command: ['sh', '-c', 'pwd; echo hi > ../made.txt'], workdir: 'sub' }, context));
    expect(result.stdout).toBe(`${join(root, 'sub')}\n`);
    expect(result.exitCode).toBe(0);
  });

  it('refuses a workdir that escapes root by "..", an absolute path or a symlink', async () => {
    for (const workdir of ['..', '/etc', join(base, 'outside'), 'escape-dir', 'missing']) {
      await expect(tool().execute!({ command: ['ls'], workdir }, context)).rejects.toThrow(/does not exist inside the workspace/);
    }
  });

  it('refuses denied commands and honours an allow-list', async () => {
    await expect(tool().execute!({ command: ['/usr/bin/curl', 'http://x'] }, context)).rejects.toThrow(/not allowed/);
    const allowOnly = shellTool({ root, allowCommands: ['echo'] });
    await expect(allowOnly.execute!({ command: ['ls'] }, context)).rejects.toThrow(/Allowed: echo/);
    const ok = (await allowOnly.execute!({ command: ['echo', 'x'] }, context));
    expect(ok.stdout).toBe('x\n');
  });

  it('refuses paths as argv[0] under an allow-list: a workspace file named like an allowed command does not run', async () => {
    writeFileSync(join(root, 'ls'), '#!/bin/sh\necho planted\n', { mode: 0o755 });
    const allowLs = shellTool({ root, allowCommands: ['ls'] });
    for (const argv0 of ['./ls', join(root, 'ls'), 'sub/../ls', '/usr/bin/ls']) {
      await expect(allowLs.execute!({ command: [argv0] }, context)).rejects.toThrow(/by their bare name/);
    }
    const listed = await allowLs.execute!({ command: ['ls'] }, context);
    expect(listed.stdout).toContain('sub');
    expect(listed.stdout).not.toContain('planted');
  });

  it('treats the deny-list as advisory: wrappers get past it, and the jail still holds', async () => {
    // `curl` is denied by name, yet `env curl`, `sh -c` and `find -exec` run it: the
    // README says so. What contains it is the jail: no network, so nothing is reached.
    const server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      for (const command of [
        ['env', 'curl', '-sS', '-m', '2', url],
        ['sh', '-c', `curl -sS -m 2 ${url}`],
        ['find', '.', '-maxdepth', '0', '-exec', 'curl', '-sS', '-m', '2', url, ';'],
      ]) {
        const result = await tool().execute!({ command }, context);
        expect(result.stderr).toMatch(/curl: \(\d+\)/);
        expect(result.stdout).not.toContain('reached');
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('accepts timeout in seconds and caps it at the tool’s timeout', async () => {
    const result = (await tool().execute!({ command: ['sleep', '30'], timeout: 0.5 }, context));
    expect(result.timedOut).toBe(true);
    expect(result.durationMs).toBeLessThan(5000);
  });

  it('stops its command when the caller aborts, through core’s executeToolCall, freeing its slot at once', async () => {
    const events: AuditEvent[] = [];
    const shell = shellTool({ root, timeoutMs: 60_000, onAudit: (e) => events.push(e) });
    const registry = new ToolRegistry({ tools: [shell], maxConcurrency: 1 });
    const controller = new AbortController();
    const run = executeToolCall({ id: 'c1', name: 'shell', arguments: { command: ['sh', '-c', 'sleep 60 & sleep 60'] } }, { registry, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client went away')), 200);
    await expect(run).rejects.toThrow('client went away');
    // The command was killed, not left to its 60 s timeout: its audit event comes, and the
    // one slot is free for the next call.
    for (let i = 0; i < 250 && events.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toMatchObject([{ tool: 'shell', outcome: 'aborted' }]);
    const next = await executeToolCall({ id: 'c2', name: 'shell', arguments: { command: ['echo', 'next'] } }, { registry, timeoutMs: 10_000 });
    expect(next).toMatchObject({ success: true, value: { stdout: 'next\n' } });
  });

  it('becomes a failed tool result, not an exception, through core’s executeToolCall', async () => {
    const registry = new ToolRegistry({ tools: [tool()] });
    const result = await executeToolCall({ id: 'c1', name: 'shell', arguments: { command: ['curl', 'x'] } }, { registry });
    expect(result.success).toBe(false);
    expect(result.message).toContain('not allowed');
  });
});

describe('sandboxedTool', () => {
  const parameters = { type: 'object' as const, properties: { a: { type: 'number' as const }, b: { type: 'number' as const } }, required: ['a', 'b'] };

  it('runs its source with the validated arguments and returns the value', async () => {
    const add = sandboxedTool({ name: 'add', description: 'Adds', parameters, source: 'async ({ a, b }) => a + b', sandbox });
    expect(add.validate({ a: 1 }).success).toBe(false);
    expect(await add.execute!({ a: 2, b: 3 }, context)).toBe(5);
  });

  it('validates arguments against client-written patterns in linear time (core’s engine)', () => {
    // The gateway's custom tools are sandboxedTools: their `parameters` come from a tool
    // file, and core validates model-written arguments against them on the host.
    for (const pattern of ['^(a+)+$', '^(\\w+\\s?)*$', '^(a|aa)+$']) {
      const tool = sandboxedTool({
        name: 'patterned',
        description: 'Has a pattern',
        parameters: { type: 'object', properties: { s: { type: 'string', pattern } }, required: ['s'] },
        source: '({ s }) => s',
        sandbox,
      });
      expect(tool.validate({ s: `${'a'.repeat(40)}!` }).success).toBe(false);
      expect(tool.validate({ s: 'aaaa' }).success).toBe(true);
    }
  });

  it('throws SandboxExecutionError with the kind when the source fails', async () => {
    const loop = sandboxedTool({ name: 'loop', description: 'Loops', parameters, source: '() => { for (;;) {} }', sandbox });
    const error: unknown = await Promise.resolve(loop.execute!({ a: 1, b: 1 }, context)).then(() => undefined, (e: unknown) => e);
    expect(SandboxExecutionError.isInstance(error)).toBe(true);
    expect((error as SandboxExecutionError).kind).toBe('timeout');
  });

  it('stops its run when the caller aborts, through core’s executeToolCall', async () => {
    const events: AuditEvent[] = [];
    const loop = sandboxedTool({
      name: 'loop', description: 'Loops', parameters: { type: 'object' }, source: '() => { for (;;) {} }', onAudit: (e) => events.push(e),
      sandboxOptions: { timeoutMs: 60_000, poolSize: 1 },
    });
    const controller = new AbortController();
    const run = executeToolCall({ id: 'c1', name: 'loop', arguments: {} }, { registry: new ToolRegistry({ tools: [loop] }), signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client went away')), 100);
    await expect(run).rejects.toThrow('client went away');
    // The sandbox answered too: the run was stopped, not left running to its timeout.
    for (let i = 0; i < 100 && events.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toMatchObject([{ tool: 'loop', outcome: 'aborted' }]);
  });

  it('refuses oversized arguments and too many concurrent runs through its policy, with an audit event', async () => {
    const events: AuditEvent[] = [];
    const policy = createExecutionPolicy({ maxArgumentBytes: 40, maxConcurrent: 1 });
    const slow = sandboxedTool({
      name: 'slow', description: 'Waits', parameters: { type: 'object' }, sandbox, policy, onAudit: (e) => events.push(e),
      source: 'async () => { const t = Date.now(); while (Date.now() - t < 200) {} return "done"; }',
    });
    await expect(slow.execute!({ text: 'x'.repeat(100) }, context)).rejects.toThrow(/limit is 40/);
    const first = slow.execute!({}, context);
    await expect(slow.execute!({}, context)).rejects.toThrow(/already running/);
    expect(await first).toBe('done');
    expect(events.map((e) => e.reason ?? e.outcome)).toEqual(['arguments-too-large', 'too-many-concurrent', 'ok']);
    expect(events[0]).toMatchObject({ kind: 'js', tool: 'slow', principal: 'user_1', outcome: 'rejected', limitsHit: ['arguments-size'] });
  });
});
