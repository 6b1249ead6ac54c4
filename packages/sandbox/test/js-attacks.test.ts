import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsSandbox } from '../src/index.ts';
import type { JsSandbox, SandboxResult } from '../src/index.ts';
import { ERROR_ATTACKS, ESCAPE_ATTACKS, RESOURCE_ATTACKS } from './attack-corpus.ts';

let sandbox: JsSandbox;
const hostRejections: unknown[] = [];
const onRejection = (reason: unknown) => hostRejections.push(reason);

beforeAll(() => {
  process.on('unhandledRejection', onRejection);
  sandbox = createJsSandbox({ allowedDomains: ['api.example.com'], timeoutMs: 500, memoryLimitMb: 32, poolSize: 2, maxOutputBytes: 100_000 });
});
afterAll(async () => {
  process.off('unhandledRejection', onRejection);
  await sandbox.dispose();
});

async function expectHostAlive(): Promise<void> {
  expect(process.env.SANDBOX_PWNED).toBeUndefined();
  expect(hostRejections).toEqual([]);
  const after = await sandbox.run('1 + 1');
  expect(after).toMatchObject({ ok: true, value: 2 });
}

function expectNotEscaped(result: SandboxResult): void {
  expect(JSON.stringify(result)).not.toContain('ESCAPED');
}

describe('escape attempts stay inside the isolate', () => {
  for (const attack of ESCAPE_ATTACKS) {
    it(`contains: ${attack.name}`, async () => {
      const result = await sandbox.run(attack.code);
      expectNotEscaped(result);
      await expectHostAlive();
    });
  }

  it('sees no host globals at all', async () => {
    const result = await sandbox.run(ESCAPE_ATTACKS[3]!.code);
    expect(result).toMatchObject({ ok: true, value: 'undefined,undefined,undefined,undefined,undefined,undefined,undefined,0' });
  });

  it('keeps fetch working after Object.prototype is polluted (the transfer options have no prototype)', async () => {
    const attack = ESCAPE_ATTACKS.find((a) => a.name.startsWith('Object.prototype pollution'))!;
    const result = await sandbox.run(attack.code);
    // The bridge still answered with its normal refusal, not an isolated-vm option error.
    expect(result).toMatchObject({ ok: true, value: { typeofMsg: 'string' }, logs: ['still logging'] });
    expect((result as { value: { msg: string } }).value.msg).toContain('not on the allow-list');
  });

  it('ignores Object.prototype.then when copying the result out', async () => {
    const result = await sandbox.run(`Object.prototype.then = function (r) { r('ESCAPED'); }; 'contained'`);
    expect(result).toMatchObject({ ok: true, value: 'contained' });
  });
});

describe('errors and rejections are results, never host exceptions', () => {
  for (const attack of ERROR_ATTACKS) {
    it(`contains: ${attack.name}`, async () => {
      const result = await sandbox.run(attack.code);
      expectNotEscaped(result);
      if (attack.name.startsWith('unhandled rejection')) {
        // A stray rejection inside the sandbox fails the run or is ignored; the host never sees it.
        expect(result.ok ? result.value : result.error.kind).toSatisfy((v: unknown) => v === 'done' || v === 'error');
      } else {
        expect(result).toMatchObject({ ok: false, error: { kind: 'error' } });
      }
      await expectHostAlive();
    });
  }
});

describe('error text is capped like results and logs (maxOutputBytes 100 000 here)', () => {
  const huge = "'x'.repeat(8_000_000)";
  const cases: [string, string][] = [
    ['a thrown Error', `throw new Error(${huge})`],
    ['an Error with a huge name', `const e = new Error('m'); e.name = ${huge}; throw e`],
    ['a thrown string', `throw ${huge}`],
    ['a rejected promise', `Promise.reject(new Error(${huge}))`],
    ['an awaited rejection', `(async () => { await null; throw new TypeError(${huge}); })()`],
  ];
  for (const [name, code] of cases) {
    it(`cuts ${name} inside the sandbox and says so`, async () => {
      const result = await sandbox.run(code);
      expect(result).toMatchObject({ ok: false, error: { kind: 'error' } });
      if (result.ok) return;
      expect(result.error.message.length).toBeLessThan(100_600);
      expect(result.error.message).toMatch(/… \[cut at \d+ characters\]/);
    });
  }
});

describe('resource exhaustion costs at most one worker', () => {
  for (const attack of RESOURCE_ATTACKS) {
    it(`contains: ${attack.name}`, async () => {
      const result = await sandbox.run(attack.code, attack.timeoutMs === undefined ? {} : { timeoutMs: attack.timeoutMs });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        switch (attack.expect) {
          case 'timeout':
            expect(result.error.kind).toBe('timeout');
            break;
          case 'timeout_or_memory':
            expect(['timeout', 'memory']).toContain(result.error.kind);
            break;
          case 'memory_limit':
            // V8 reports some bombs as a catchable RangeError (memory), aborts on others (the
            // worker dies: crashed); the pool kills a worker whose memory runs away (memory).
            expect(['memory', 'crashed']).toContain(result.error.kind);
            break;
          case 'output_capped':
            expect(result.error.kind).toBe('output-limit');
            break;
          default:
            throw new Error(`unexpected expectation ${attack.expect}`);
        }
      }
      await expectHostAlive();
    });
  }

  it('reports a catchable allocation failure as kind "memory"', async () => {
    const result = await sandbox.run(`let s = 'x'; for (;;) s += s;`);
    expect(result).toMatchObject({ ok: false, error: { kind: 'memory' } });
  });

  it('answers a V8 out-of-memory abort with "crashed" and serves the next run from a fresh worker', async () => {
    const result = await sandbox.run('const m = new Map(); for (let i = 0; ; i++) m.set(i, { i });', { timeoutMs: 10_000 });
    expect(result).toMatchObject({ ok: false, error: { kind: 'crashed' } });
    await expectHostAlive();
  });

  it('caps a console flood and keeps what fits', async () => {
    const result = await sandbox.run(`for (let i = 0; i < 1e6; i++) console.log('flood line ' + i); 'done'`, { timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: true, value: 'done' });
    const bytes = result.logs.reduce((n, line) => n + Buffer.byteLength(line) + 1, 0);
    expect(bytes).toBeLessThanOrEqual(100_000 + 100);
    expect(result.logs[0]).toBe('flood line 0');
    expect(result.logs.at(-1)).toContain('logs truncated');
    await expectHostAlive();
  });
});
