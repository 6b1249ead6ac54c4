import { describe, expect, it } from 'vitest';
import type { ToolAuditEvent } from './audit-event.ts';
import type { ServerTool } from './server-tool.ts';
import { createToolExecutor } from './tool-executor.ts';

function blocking(): { tool: ServerTool; release: () => void; running: () => number } {
  let running = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    release: () => release(),
    running: () => running,
    tool: {
      name: 'slow',
      description: '',
      inputSchema: {},
      execute: async () => {
        running++;
        await gate;
        running--;
        return 'done';
      },
    },
  };
}

const call = (id: string) => ({ id, name: 'slow', arguments: {} });

describe('createToolExecutor', () => {
  it('caps executions running at once', async () => {
    const { tool, release, running } = blocking();
    const executor = createToolExecutor({ maxConcurrent: 2, audit: () => undefined });
    const signal = new AbortController().signal;
    const results = [1, 2, 3, 4].map((i) => executor.execute({ tool, call: call(`c${i}`), principal: 'p', signal }));
    await new Promise((r) => setImmediate(r));
    expect(running()).toBe(2);
    release();
    expect((await Promise.all(results)).every((r) => r.success)).toBe(true);
  });

  it('turns a timeout into a timeout result and audits it', async () => {
    const audit: ToolAuditEvent[] = [];
    const executor = createToolExecutor({ timeoutMs: 20, audit: (e) => audit.push(e) });
    const { tool } = blocking();
    const result = await executor.execute({ tool, call: call('c1'), principal: 'p', signal: new AbortController().signal });
    expect(result).toMatchObject({ success: false, error: { type: 'timeout' } });
    expect(audit[0]).toMatchObject({ outcome: 'timeout', tool: 'slow' });
  });

  it('gives the tool a signal that aborts with the request, and rethrows the abort', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const tool: ServerTool = {
      name: 'slow',
      description: '',
      inputSchema: {},
      execute: (_args, context) => {
        seen = context.signal;
        return new Promise(() => undefined);
      },
    };
    const audit: ToolAuditEvent[] = [];
    const pending = createToolExecutor({ audit: (e) => audit.push(e) }).execute({ tool, call: call('c1'), principal: 'p', signal: controller.signal });
    await new Promise((r) => setImmediate(r));
    controller.abort(new Error('client left'));
    await expect(pending).rejects.toThrow('client left');
    expect(seen?.aborted).toBe(true);
    expect(audit[0]?.outcome).toBe('aborted');
  });

});
