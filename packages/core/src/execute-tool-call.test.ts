import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.ts';
import { executeToolCall } from './execute-tool-call.ts';
import { isToolOutput, toolOutput } from './tool-results.ts';
import { ToolRegistry } from './tool-registry.ts';
import type { ToolCall } from './types/tool-call.ts';
import type { ToolCallAudit } from './types/tool-call-audit.ts';

const add = defineTool({
  name: 'add',
  parameters: z.object({ a: z.number(), b: z.number().max(100) }),
  execute: ({ a, b }) => a + b,
});
const remove = defineTool({ name: 'files.delete', parameters: { type: 'object' }, execute: () => 'deleted' });

function call(name: string, args: Record<string, unknown> = {}, extra: Partial<ToolCall> = {}): ToolCall {
  return { id: 'call_1', name, arguments: args, ...extra };
}

function never(): Promise<never> {
  return new Promise(() => {
    // Settles only if someone aborts it.
  });
}

describe('executeToolCall', () => {
  it('runs the tool with validated arguments and returns its value and a JSON message', async () => {
    const registry = new ToolRegistry({ tools: [add] });
    expect(await executeToolCall(call('add', { a: 2, b: 3 }), { registry })).toEqual({
      toolCallId: 'call_1',
      name: 'add',
      success: true,
      message: '5',
      value: 5,
    });
  });

  it('sends string values as they are and says so when a tool returns nothing', async () => {
    const registry = new ToolRegistry({
      tools: [
        defineTool({ name: 'hello', parameters: { type: 'object' }, execute: () => 'hi there' }),
        defineTool({ name: 'noop', parameters: { type: 'object' }, execute: () => undefined }),
      ],
    });
    expect((await executeToolCall(call('hello'), { registry })).message).toBe('hi there');
    const noop = await executeToolCall(call('noop'), { registry });
    expect(noop).toMatchObject({ success: true, message: 'Done (no output).' });
    expect(noop).not.toHaveProperty('value');
  });

  it('answers an unknown tool with the tools the caller may use', async () => {
    const registry = new ToolRegistry({ tools: [add, remove], permissions: { bob: ['add'] } });
    const result = await executeToolCall(call('ad'), { registry, principal: 'bob' });
    expect(result).toMatchObject({ success: false, error: { type: 'unknown_tool' } });
    expect(result.message).toBe('Unknown tool "ad". Available tools: add. Call one of these instead.');
    expect(result.error?.message).toBe(result.message);
  });

  it('says "(none)" when no tool is available', async () => {
    const result = await executeToolCall(call('x'), { registry: new ToolRegistry() });
    expect(result.message).toBe('Unknown tool "x". Available tools: (none). Call one of these instead.');
  });

  it('denies a tool the principal may not call, without running it', async () => {
    let ran = false;
    const registry = new ToolRegistry({
      tools: [defineTool({ name: 'wipe', parameters: { type: 'object' }, execute: () => (ran = true) })],
      permissions: { admin: ['*'] },
    });
    const result = await executeToolCall(call('wipe'), { registry, principal: 'guest' });
    expect(result.error?.type).toBe('permission_denied');
    expect(result.message).toBe('Tool "wipe" is not allowed for this caller. Answer without it.');
    expect(ran).toBe(false);
    expect((await executeToolCall(call('wipe'), { registry, principal: 'admin' })).success).toBe(true);
  });

  it('returns a validation_error with the schema message for bad arguments', async () => {
    const registry = new ToolRegistry({ tools: [add] });
    const result = await executeToolCall(call('add', { a: 1, b: 500 }), { registry });
    expect(result.error?.type).toBe('validation_error');
    expect(result.message).toBe('Invalid arguments for "add": b: must be <= 100, got 500. Fix them and call "add" again.');
  });

  it('returns a validation_error for a call whose argument text could not be parsed', async () => {
    const registry = new ToolRegistry({ tools: [add] });
    const result = await executeToolCall(call('add', {}, { invalid: { rawArguments: '{"a": 1,', message: 'unexpected end at 8' } }), {
      registry,
    });
    expect(result.error?.type).toBe('validation_error');
    expect(result.message).toContain('unexpected end at 8');
  });

  it('returns execution_error with the thrown message when the tool throws', async () => {
    const registry = new ToolRegistry({
      tools: [
        defineTool({
          name: 'fail',
          parameters: { type: 'object' },
          execute: async () => {
            await Promise.resolve();
            throw new TypeError('city not found');
          },
        }),
        defineTool({
          name: 'throw_string',
          parameters: { type: 'object' },
          execute: () => {
            // eslint-disable-next-line @typescript-eslint/only-throw-error -- tools may throw anything
            throw 'plain string';
          },
        }),
      ],
    });
    expect(await executeToolCall(call('fail'), { registry })).toMatchObject({
      success: false,
      message: 'Tool "fail" failed: city not found',
      error: { type: 'execution_error' },
    });
    expect((await executeToolCall(call('throw_string'), { registry })).message).toBe('Tool "throw_string" failed: plain string');
  });

  it('returns execution_error when the value cannot be written as JSON', async () => {
    const registry = new ToolRegistry({ tools: [defineTool({ name: 'big', parameters: { type: 'object' }, execute: () => ({ n: 1n }) })] });
    expect((await executeToolCall(call('big'), { registry })).error?.type).toBe('execution_error');
  });

  it('answers a throw that cannot be printed (a revoked Proxy, a throwing message getter or toJSON) instead of rejecting', async () => {
    const throwingMessage = new Error('x');
    Object.defineProperty(throwingMessage, 'message', {
      get() {
        throw new Error('getter');
      },
    });
    const unprintable: [string, () => unknown][] = [
      ['revoked_proxy', () => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        return proxy;
      }],
      ['throwing_message', () => throwingMessage],
      ['throwing_to_json', () => Object.assign(Object.create(null) as object, { toJSON: () => { throw new Error('no'); } })],
    ];
    const registry = new ToolRegistry({
      tools: unprintable.map(([name, make]) =>
        defineTool({
          name,
          parameters: { type: 'object' },
          execute: () => {
            throw make();
          },
        }),
      ),
    });
    for (const [name] of unprintable) {
      expect(await executeToolCall(call(name), { registry })).toMatchObject({
        success: false,
        message: `Tool "${name}" failed: a value that cannot be printed was thrown`,
        error: { type: 'execution_error' },
      });
    }
  });

  it('answers a returned value that throws when inspected (a Proxy with a throwing trap) with an execution_error', async () => {
    const hostile = new Proxy({}, {
      has() {
        throw new Error('has');
      },
    });
    const registry = new ToolRegistry({ tools: [defineTool({ name: 'hostile', parameters: { type: 'object' }, execute: () => hostile })] });
    expect(await executeToolCall(call('hostile'), { registry })).toMatchObject({ success: false, error: { type: 'execution_error' } });
  });

  it('cuts what the model reads to maxResultChars with a note, and keeps the value whole', async () => {
    const long = `${'a'.repeat(99)}😀${'b'.repeat(100)}`;
    const registry = new ToolRegistry({
      tools: [
        defineTool({ name: 'dump', parameters: { type: 'object' }, execute: () => long }),
        defineTool({ name: 'fail_long', parameters: { type: 'object' }, execute: () => { throw new Error(long); } }),
      ],
    });
    const result = await executeToolCall(call('dump'), { registry, maxResultChars: 100 });
    // The cut never leaves half of the emoji's surrogate pair.
    expect(result.message).toBe(`${'a'.repeat(99)}\n[Cut: the tool's answer has ${long.length} characters; only the first 99 are shown.]`);
    expect(result.value).toBe(long);
    const failure = await executeToolCall(call('fail_long'), { registry, maxResultChars: 50 });
    expect(failure.message).toMatch(/^Tool "fail_long" failed: a+\n\[Cut: .* only the first 50 are shown\.\]$/);
    expect(failure.error?.message).toBe(failure.message);
  });

  it('cuts a result of more than 1,000,000 characters by default', async () => {
    const registry = new ToolRegistry({ tools: [defineTool({ name: 'dump', parameters: { type: 'object' }, execute: () => 'x'.repeat(3_000_000) })] });
    const result = await executeToolCall(call('dump'), { registry });
    expect(result.message.startsWith('x'.repeat(1_000_000))).toBe(true);
    expect(result.message.slice(1_000_000)).toBe("\n[Cut: the tool's answer has 3000000 characters; only the first 1000000 are shown.]");
  });

  it('times out, fires the tool signal, and answers with a timeout result', async () => {
    let signal: AbortSignal | undefined;
    const registry = new ToolRegistry({
      tools: [
        defineTool({
          name: 'slow',
          parameters: { type: 'object' },
          execute: (_args, context) => {
            signal = context.signal;
            return never();
          },
        }),
      ],
    });
    const result = await executeToolCall(call('slow'), { registry, timeoutMs: 10 });
    expect(result).toMatchObject({ success: false, error: { type: 'timeout' } });
    expect(result.message).toBe('Tool "slow" timed out after 10 ms. Try simpler arguments or answer without it.');
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as Error).name).toBe('TimeoutError');
  });

  it('passes the call id, principal and messages to the tool', async () => {
    let seen: unknown;
    const registry = new ToolRegistry({
      tools: [
        defineTool({
          name: 'who',
          parameters: { type: 'object' },
          execute: (_args, { toolCallId, principal, messages }) => {
            seen = { toolCallId, principal, messages };
            return 'ok';
          },
        }),
      ],
    });
    const messages = [{ role: 'user' as const, content: 'hi' }];
    await executeToolCall(call('who'), { registry, principal: 'p1', messages });
    expect(seen).toEqual({ toolCallId: 'call_1', principal: 'p1', messages });
  });

  it('rejects with the reason when the caller aborts, and the tool sees the abort', async () => {
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    const registry = new ToolRegistry({
      tools: [
        defineTool({
          name: 'wait',
          parameters: { type: 'object' },
          execute: (_args, context) => {
            signal = context.signal;
            return never();
          },
        }),
      ],
    });
    const pending = executeToolCall(call('wait'), { registry, signal: controller.signal });
    await Promise.resolve();
    const reason = new DOMException('user left', 'AbortError');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(signal?.aborted).toBe(true);
  });

  it('rejects at once for an already aborted signal', async () => {
    const registry = new ToolRegistry({ tools: [add] });
    await expect(executeToolCall(call('add', { a: 1, b: 2 }), { registry, signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('never executes provider-executed calls', async () => {
    let ran = false;
    const registry = new ToolRegistry({
      tools: [defineTool({ name: 'code_interpreter', parameters: { type: 'object' }, execute: () => (ran = true) })],
    });
    const result = await executeToolCall(call('code_interpreter', {}, { providerExecuted: true }), { registry });
    expect(result.error?.type).toBe('unsupported');
    expect(ran).toBe(false);
  });

  it('does not run a tool without execute (a client-side tool)', async () => {
    const registry = new ToolRegistry({ tools: [defineTool({ name: 'ask_user', parameters: { type: 'object' } })] });
    const result = await executeToolCall(call('ask_user'), { registry });
    expect(result.error?.type).toBe('unsupported');
    expect(result.message).toBe('Tool "ask_user" has no handler here; the client answers this call.');
  });

  it('rate-limits per principal and tool and says how long to wait', async () => {
    let now = 0;
    const registry = new ToolRegistry({ tools: [add], rateLimits: { add: { capacity: 2, refillPerSecond: 0.5 } }, now: () => now });
    const args = { a: 1, b: 1 };
    expect((await executeToolCall(call('add', args), { registry, principal: 'a' })).success).toBe(true);
    expect((await executeToolCall(call('add', args), { registry, principal: 'a' })).success).toBe(true);
    const limited = await executeToolCall(call('add', args), { registry, principal: 'a' });
    expect(limited.error?.type).toBe('rate_limited');
    expect(limited.message).toBe('Tool "add" was called too often; wait 2 s before calling it again.');
    // Another principal has a bucket of its own.
    expect((await executeToolCall(call('add', args), { registry, principal: 'b' })).success).toBe(true);
    now += 2000;
    expect((await executeToolCall(call('add', args), { registry, principal: 'a' })).success).toBe(true);
  });

  it('does not spend rate-limit tokens on calls with invalid arguments', async () => {
    const registry = new ToolRegistry({ tools: [add], rateLimits: { add: { capacity: 1, refillPerSecond: 0 } }, now: () => 0 });
    expect((await executeToolCall(call('add', { a: 'x' }), { registry })).error?.type).toBe('validation_error');
    expect((await executeToolCall(call('add', { a: 1, b: 1 }), { registry })).success).toBe(true);
    expect((await executeToolCall(call('add', { a: 1, b: 1 }), { registry })).message).toBe(
      'Tool "add" was called too often; do not call it again.',
    );
  });

  it('caps the tools running at once with maxConcurrency', async () => {
    let running = 0;
    let peak = 0;
    const releases: (() => void)[] = [];
    const registry = new ToolRegistry({
      maxConcurrency: 2,
      tools: [
        defineTool({
          name: 'job',
          parameters: { type: 'object' },
          execute: async () => {
            running++;
            peak = Math.max(peak, running);
            await new Promise<void>((resolve) => releases.push(resolve));
            running--;
            return 'done';
          },
        }),
      ],
    });
    const calls = Array.from({ length: 5 }, (_, i) => executeToolCall({ id: `c${i}`, name: 'job', arguments: {} }, { registry }));
    for (let finished = 0; finished < 5; finished++) {
      await waitFor(() => releases.length > finished);
      expect(registry.load.active).toBeLessThanOrEqual(2);
      releases[finished]?.();
    }
    const results = await Promise.all(calls);
    expect(results.every((r) => r.success)).toBe(true);
    expect(peak).toBe(2);
    expect(registry.load).toEqual({ active: 0, waiting: 0 });
  });

  it('times out a call that waits too long for a free slot, and keeps the slot held by a tool that ignores its timeout', async () => {
    const registry = new ToolRegistry({
      maxConcurrency: 1,
      tools: [defineTool({ name: 'stuck', parameters: { type: 'object' }, execute: () => never() })],
    });
    const first = await executeToolCall(call('stuck'), { registry, timeoutMs: 5 });
    expect(first.error?.type).toBe('timeout');
    // The first tool never settles, so it still holds the only slot.
    expect(registry.load.active).toBe(1);
    const second = await executeToolCall(call('stuck'), { registry, timeoutMs: 5 });
    expect(second.error?.type).toBe('timeout');
    expect(second.message).toMatch(/did not get a free slot within 5 ms/);
    expect(registry.load.waiting).toBe(0);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error('condition never became true');
}

describe('executeToolCall with a tool whose validation throws', () => {
  it('answers with an execution_error instead of throwing', async () => {
    const registry = new ToolRegistry({
      tools: [
        defineTool({
          name: 'picky',
          parameters: z.object({ a: z.string() }).superRefine(() => {
            throw new Error('refinement bug');
          }),
          execute: () => 'never',
        }),
      ],
    });
    const result = await executeToolCall(call('picky', { a: 'x' }), { registry });
    expect(result).toMatchObject({ success: false, error: { type: 'execution_error' } });
    expect(result.message).toBe('Tool "picky" could not check its arguments: refinement bug');
  });
});

describe('executeToolCall with a tool that returns toolOutput', () => {
  const call = (name: string): ToolCall => ({ id: 'c1', name, arguments: {} });

  it('uses the message and value the tool chose', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({ name: 'run', parameters: { type: 'object' }, execute: () => toolOutput({ message: 'plain stdout', value: { exitCode: 0 } }) }),
    );
    const result = await executeToolCall(call('run'), { registry });
    expect(result).toEqual({ toolCallId: 'c1', name: 'run', success: true, message: 'plain stdout', value: { exitCode: 0 } });
  });

  it('reports a failure that keeps its value, with the chosen error type', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'run',
        parameters: { type: 'object' },
        execute: () => toolOutput({ message: 'Traceback: boom', value: { exitCode: 1 }, success: false, errorType: 'timeout' }),
      }),
    );
    const result = await executeToolCall(call('run'), { registry });
    expect(result.success).toBe(false);
    expect(result.value).toEqual({ exitCode: 1 });
    expect(result.error).toEqual({ type: 'timeout', message: 'Traceback: boom' });
  });

  it('is recognised only for values it made', () => {
    expect(isToolOutput(toolOutput({ message: 'x' }))).toBe(true);
    expect(isToolOutput({ message: 'x', success: true })).toBe(false);
  });
});

describe('executeToolCall onAudit', () => {
  it('reports a success with argument names and never their values', async () => {
    const audits: ToolCallAudit[] = [];
    const registry = new ToolRegistry({ tools: [add] });
    await executeToolCall(call('add', { a: 31_337, b: 2 }), { registry, principal: 'key-1', onAudit: (a) => audits.push(a) });
    expect(audits).toEqual([
      { toolCallId: 'call_1', toolName: 'add', principal: 'key-1', outcome: 'success', argumentNames: ['a', 'b'], queuedMs: expect.any(Number), durationMs: expect.any(Number) },
    ]);
    expect(JSON.stringify(audits)).not.toContain('31337');
  });

  it('reports refusals and failures with their error type and message', async () => {
    const audits: ToolCallAudit[] = [];
    const registry = new ToolRegistry({ tools: [add], permissions: { bob: [], '*': ['*'] } });
    const onAudit = (a: ToolCallAudit): number => audits.push(a);
    await executeToolCall(call('add', { a: 1, b: 500 }), { registry, onAudit });
    await executeToolCall(call('add', { a: 1, b: 1 }), { registry, principal: 'bob', onAudit });
    await executeToolCall(call('nope'), { registry, onAudit });
    expect(audits.map((a) => a.outcome)).toEqual(['validation_error', 'permission_denied', 'unknown_tool']);
    expect(audits[0]?.error).toMatch(/Invalid arguments for "add"/);
    expect(audits[0]?.durationMs).toBe(0);
  });

  it('reports a timeout, and an abort before rejecting', async () => {
    const audits: ToolCallAudit[] = [];
    const hang = defineTool({ name: 'hang', parameters: { type: 'object' }, execute: never });
    const registry = new ToolRegistry({ tools: [hang] });
    await executeToolCall(call('hang'), { registry, timeoutMs: 10, onAudit: (a) => audits.push(a) });
    const controller = new AbortController();
    const pending = executeToolCall(call('hang'), { registry, signal: controller.signal, onAudit: (a) => audits.push(a) });
    controller.abort(new Error('client left'));
    await expect(pending).rejects.toThrow('client left');
    expect(audits.map((a) => a.outcome)).toEqual(['timeout', 'aborted']);
  });
});
