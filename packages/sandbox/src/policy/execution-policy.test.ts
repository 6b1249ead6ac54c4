import { describe, expect, it } from 'vitest';
import { createExecutionPolicy } from './execution-policy.ts';

describe('createExecutionPolicy', () => {
  it('returns a rejection result for oversized arguments, without running', async () => {
    const policy = createExecutionPolicy({ maxArgumentBytes: 10 });
    let ran = false;
    const outcome = await policy.run({ text: 'much too long' }, async () => (ran = true));
    expect(outcome).toMatchObject({ ok: false, rejection: { reason: 'arguments-too-large', limit: 10 } });
    expect(ran).toBe(false);
  });

  it('refuses runs past maxConcurrent and frees the slot when a run settles, even by throwing', async () => {
    const policy = createExecutionPolicy({ maxConcurrent: 1 });
    let release!: () => void;
    const first = policy.run({}, () => new Promise<string>((resolve) => (release = () => resolve('first'))));
    expect(policy.active).toBe(1);
    expect(await policy.run({}, async () => 'second')).toMatchObject({ ok: false, rejection: { reason: 'too-many-concurrent' } });
    release();
    expect(await first).toEqual({ ok: true, value: 'first' });
    await expect(policy.run({}, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(policy.active).toBe(0);
  });
});
