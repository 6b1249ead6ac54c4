import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from './concurrency-limiter.ts';

describe('ConcurrencyLimiter', () => {
  it('grants up to max slots and queues the rest in order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    const releaseA = await limiter.acquire();
    const releaseB = await limiter.acquire();
    const order: string[] = [];
    const c = limiter.acquire().then((release) => {
      order.push('c');
      return release;
    });
    const d = limiter.acquire().then((release) => {
      order.push('d');
      return release;
    });
    expect(limiter.waiting).toBe(2);
    releaseA();
    releaseA(); // a second call is ignored
    const releaseC = await c;
    expect(order).toEqual(['c']);
    expect(limiter.active).toBe(2);
    releaseB();
    (await d)();
    releaseC();
    expect(limiter.active).toBe(0);
    expect(order).toEqual(['c', 'd']);
  });

  it('removes an aborted waiter from the queue and rejects with the reason', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    expect(limiter.waiting).toBe(0);
    release();
    expect(limiter.active).toBe(0);
  });

  it('rejects at once with an aborted signal', async () => {
    await expect(new ConcurrencyLimiter(1).acquire(AbortSignal.abort(new Error('no')))).rejects.toThrow('no');
  });

  it('needs a whole number of at least 1', () => {
    expect(() => new ConcurrencyLimiter(0)).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter(1.5)).toThrow(RangeError);
  });
});
