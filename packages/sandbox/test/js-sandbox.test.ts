import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsSandbox } from '../src/index.ts';
import type { AuditEvent, JsSandbox } from '../src/index.ts';

let sandbox: JsSandbox;
const events: AuditEvent[] = [];
beforeAll(() => {
  sandbox = createJsSandbox({ timeoutMs: 500, poolSize: 2, maxOutputBytes: 1000, onAudit: (e) => events.push(e) });
});
afterAll(() => sandbox.dispose());

describe('createJsSandbox', () => {
  it('returns the completion value of a script as JSON data, with stats', async () => {
    const result = await sandbox.run('const x = 20; ({ sum: x + 1, list: [1, "a", null], date: new Date(0), fn() {} })');
    expect(result).toMatchObject({ ok: true, value: { sum: 21, list: [1, 'a', null], date: '1970-01-01T00:00:00.000Z' }, logs: [] });
    if (result.ok) {
      expect(result.value).not.toHaveProperty('fn');
      expect(result.stats.wallMs).toBeGreaterThanOrEqual(0);
      expect(result.stats.cpuMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('awaits a promise result and copies input in as a global', async () => {
    const result = await sandbox.run('(async () => { await null; return input.items.map((n) => n * 2); })()', { input: { items: [1, 2, 3] } });
    expect(result).toMatchObject({ ok: true, value: [2, 4, 6] });
  });

  it('captures console.log lines', async () => {
    const result = await sandbox.run('console.log("a", 1, { b: 2 }); console.error("e"); undefined');
    expect(result).toEqual({ ok: true, value: undefined, logs: ['a 1 {"b":2}', 'e'], stats: expect.any(Object) });
  });

  it('reports thrown errors and syntax errors as kind "error" with their message and the logs so far', async () => {
    expect(await sandbox.run('console.log("before"); throw new RangeError("bad range")')).toEqual({
      ok: false,
      error: { kind: 'error', message: 'RangeError: bad range' },
      logs: ['before'],
    });
    expect(await sandbox.run('let let = 1')).toMatchObject({ ok: false, error: { kind: 'error', message: expect.stringContaining('SyntaxError') } });
  });

  it('gives every run a fresh global scope', async () => {
    await sandbox.run('globalThis.leftover = 1; Object.prototype.polluted = true; 0');
    await sandbox.run('0');
    const result = await sandbox.run('[typeof leftover, ({}).polluted]');
    expect(result).toMatchObject({ ok: true, value: ['undefined', null] });
  });

  it('refuses a result over maxOutputBytes with kind "output-limit"', async () => {
    expect(await sandbox.run('"é".repeat(800)')).toMatchObject({ ok: false, error: { kind: 'output-limit' } });
  });

  it('answers input that is not JSON data without running', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(await sandbox.run('1', { input: cyclic })).toMatchObject({ ok: false, error: { kind: 'error', message: expect.stringContaining('not JSON') } });
  });

  it('honours a per-run timeout', async () => {
    expect(await sandbox.run('for(;;){}', { timeoutMs: 100 })).toMatchObject({ ok: false, error: { kind: 'timeout' } });
  });

  it('stops a running run when its signal aborts, and keeps working afterwards', async () => {
    const controller = new AbortController();
    // The timeout is far beyond the test's own: only the abort can end this run in time.
    const running = sandbox.run('for(;;){}', { timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client went away')), 100);
    expect(await running).toEqual({ ok: false, error: { kind: 'aborted', message: expect.stringContaining('aborted') }, logs: [] });
    expect(await sandbox.run('6 * 7')).toMatchObject({ ok: true, value: 42 });
  });

  it('never starts a run whose signal aborted, queued or before the call', async () => {
    const single = createJsSandbox({ poolSize: 1, timeoutMs: 60_000 });
    try {
      const blocker = new AbortController();
      const busy = single.run('for(;;){}', { signal: blocker.signal });
      const queuedController = new AbortController();
      const queued = single.run('"ran"', { signal: queuedController.signal });
      queuedController.abort();
      expect(await queued).toMatchObject({ ok: false, error: { kind: 'aborted' } });
      expect(await single.run('"ran"', { signal: AbortSignal.abort() })).toMatchObject({ ok: false, error: { kind: 'aborted' } });
      blocker.abort();
      expect(await busy).toMatchObject({ ok: false, error: { kind: 'aborted' } });
    } finally {
      await single.dispose();
    }
  });

  it('runs concurrent calls across the pool', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => sandbox.run(`${i} * 2`)));
    expect(results.map((r) => (r.ok ? r.value : r.error.kind))).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
  });

  it('audits every run with a hash of the code and input, never the code', async () => {
    events.length = 0;
    await sandbox.run('"secret-token-123"', { principal: 'key_9' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'js', tool: 'js', principal: 'key_9', outcome: 'ok', limitsHit: [] });
    expect(JSON.stringify(events)).not.toContain('secret-token-123');
  });

  it('answers runs after dispose with an error result', async () => {
    const short = createJsSandbox({ poolSize: 1 });
    expect(await short.run('1')).toMatchObject({ ok: true, value: 1 });
    await short.dispose();
    expect(await short.run('1')).toMatchObject({ ok: false, error: { kind: 'error', message: expect.stringContaining('disposed') } });
  });
});
