import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsSandbox } from '../src/index.ts';
import type { JsSandbox } from '../src/index.ts';
import { observe, workerPids } from './worker-processes.ts';

// Code that answers at once but leaves work queued on its isolate: continuations of a
// refused fetch (no network needed) in several shapes. None of it may run once the run has
// answered. (FinalizationRegistry callbacks and Atomics.waitAsync timeouts, the other ways
// to schedule code for later, are not available at all.)
const LEFTOVERS: { name: string; code: string }[] = [
  {
    name: 'a refused fetch whose continuation spins forever',
    code: `(async () => { try { await fetch('http://blocked.invalid/') } catch {} for (;;) {} })(); 'answered'`,
  },
  {
    name: 'a chain of refused fetches that grows memory on every answer',
    code: `(async () => { const keep = []; for (;;) { try { await fetch('http://blocked.invalid/') } catch {} keep.push(new Array(1e5).fill(keep.length)); } })(); 'answered'`,
  },
  {
    name: 'twenty refused fetches whose rejections each spin',
    code: `for (let i = 0; i < 20; i++) fetch('http://blocked.invalid/' + i).catch(() => { for (;;) {} }); 'answered'`,
  },
  {
    name: 'a fetch started from a continuation queued behind the answer',
    code: `Promise.resolve().then(() => Promise.resolve()).then(() => fetch('http://blocked.invalid/').finally(() => { for (;;) {} })); 'answered'`,
  },
  {
    name: 'a promise that settles after the result was taken',
    code: `const later = (async () => { for (let i = 0; i < 5; i++) { try { await fetch('http://blocked.invalid/') } catch {} } for (;;) {} })(); Promise.resolve('answered')`,
  },
];

const MARKER = 'js-after-run.test.invalid';
let sandbox: JsSandbox;
beforeAll(() => {
  // One worker, so the next run must use the very process the leftovers would occupy.
  sandbox = createJsSandbox({ poolSize: 1, timeoutMs: 1000, memoryLimitMb: 32, allowedDomains: [MARKER] });
});
afterAll(() => sandbox.dispose());

describe('no sandbox code runs after run() has answered', () => {
  for (const leftover of LEFTOVERS) {
    it(`stops ${leftover.name}`, async () => {
      const result = await sandbox.run(leftover.code);
      expect(result).toMatchObject({ ok: true, value: 'answered' });
      const pids = workerPids(MARKER);
      expect(pids.length).toBe(1);
      // The worker must sit idle: a spinning leftover would use up to 2000 ms of CPU here, a
      // growing one hundreds of MB.
      const after = await observe(pids, 2000);
      expect(after.cpuMs).toBeLessThan(400);
      expect(after.maxRssMb).toBeLessThan(250);
      // The next, unrelated run is served by the same worker within a short timeout.
      const next = await sandbox.run('input.n * 2', { input: { n: 21 }, timeoutMs: 300 });
      expect(next).toMatchObject({ ok: true, value: 42 });
    });
  }

  it('offers no way to schedule code for later: no FinalizationRegistry, no Atomics.waitAsync, no timers', async () => {
    const result = await sandbox.run('[typeof FinalizationRegistry, typeof Atomics.waitAsync, typeof setTimeout, typeof setInterval, typeof queueMicrotask]');
    expect(result).toMatchObject({ ok: true, value: ['undefined', 'undefined', 'undefined', 'undefined', expect.any(String)] });
  });

  it('keeps a run’s globals and queued work out of the next run', async () => {
    await sandbox.run(`globalThis.leak = 'from the last run'; Promise.resolve().then(() => { globalThis.late = 1; }); 1`);
    expect(await sandbox.run('[typeof leak, typeof late]')).toMatchObject({ ok: true, value: ['undefined', 'undefined'] });
  });

  it('cuts off the run’s own fetches when it answers: an allowed, slow request does not outlive the run', async () => {
    const opened: IncomingMessage[] = [];
    const closedAt: number[] = [];
    // Trickles a body for ten seconds unless the client goes away.
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url === '/fast') {
        res.end('ok');
        return;
      }
      opened.push(req);
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('x'), 100);
      res.on('close', () => {
        clearInterval(timer);
        closedAt.push(performance.now());
      });
      setTimeout(() => res.end(), 10_000).unref();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const local = createJsSandbox({ poolSize: 1, timeoutMs: 2000, allowedDomains: ['127.0.0.1'], allowPrivateNetwork: true });
    try {
      // The slow request is on the wire before the run answers (two fast ones bracket it).
      const result = await local.run(`(async () => {
        await fetch('${origin}/fast');
        fetch('${origin}/slow').then(() => { for (;;) {} });
        await fetch('${origin}/fast');
        await fetch('${origin}/fast');
        return 'answered';
      })()`);
      expect(result).toMatchObject({ ok: true, value: 'answered' });
      const answeredAt = performance.now();
      expect(opened.map((req) => req.url)).toEqual(['/slow']);
      for (let i = 0; i < 30 && closedAt.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(closedAt.length).toBe(1);
      expect((closedAt[0] as number) - answeredAt).toBeLessThan(2000);
    } finally {
      await local.dispose();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
