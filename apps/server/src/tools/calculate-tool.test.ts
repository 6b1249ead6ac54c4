import { describe, expect, it } from 'vitest';
import { calculate, calculateTool, liveCalculatorWorkers } from './calculate-tool.ts';

const context = { toolCallId: 'call_1', signal: new AbortController().signal };

/** CPU time of the whole process (every thread) over `ms` of wall time. */
async function cpuOver(ms: number): Promise<number> {
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * The least CPU the process used in one of four 500 ms windows. A terminated worker may
 * finish the one native big-number operation it is inside (V8 stops a thread between
 * operations), so the first window can still be busy; a worker left computing would keep
 * every window near 500 ms.
 */
async function quietestWindow(): Promise<number> {
  let least = Infinity;
  for (let i = 0; i < 4 && least >= 150; i++) least = Math.min(least, await cpuOver(500));
  return least;
}

describe('calculate', () => {
  it('evaluates arithmetic, functions and unit conversions', async () => {
    expect(await calculate('2 * (3 + 4)')).toBe('14');
    expect(await calculate('sqrt(16) + sin(pi / 2)')).toBe('5');
    expect(await calculate('5 cm to inch')).toBe('1.9685039370079 inch');
  });

  it('refuses require("child_process") as an error, without running anything', async () => {
    await expect(calculate('require("child_process").execSync("id")')).rejects.toThrow(/could not be evaluated/);
  });

  it('refuses functions that parse, import or change the configuration', async () => {
    await expect(calculate('evaluate("1+1")')).rejects.toThrow(/not available/);
    await expect(calculate('import({}, {})')).rejects.toThrow(/not available/);
    await expect(calculate('config({precision: 100000})')).rejects.toThrow(/not available/);
  });

  it('refuses large structures', async () => {
    await expect(calculate('zeros(100000000)')).rejects.toThrow(/not available/);
    await expect(calculate('sum(1:100000000)')).rejects.toThrow(/at most 10000 elements/);
    await expect(calculate('sum(1:(10^8))')).rejects.toThrow(/literal bounds/);
  });

  it('refuses huge operands before evaluating anything', async () => {
    await expect(calculate('170000!')).rejects.toThrow(/larger than 10000/);
    await expect(calculate('bellNumbers(100000)')).rejects.toThrow(/larger than 10000/);
    await expect(calculate('combinations(2000000, -(1000000))')).rejects.toThrow(/larger than 10000/);
    await expect(calculate('fraction(1,3)^10000000')).rejects.toThrow(/exponent 10000000/);
    await expect(calculate('pow(fraction(1,3), -(10000000))')).rejects.toThrow(/exponent -10000000/);
  });

  it('refuses assignments and function definitions', async () => {
    await expect(calculate('x = 3')).rejects.toThrow(/Assignments/);
    await expect(calculate('f(x) = f(x + 1)')).rejects.toThrow(/Assignments/);
  });

  it('refuses expressions over 500 characters', async () => {
    await expect(calculate('1+'.repeat(300) + '1')).rejects.toThrow(/longer than 500/);
  });

  it('says what is wrong with an unparsable expression', async () => {
    await expect(calculate('2 +* 3')).rejects.toThrow(/could not be parsed/);
  });

  // Operands computed inside the expression pass the static bounds: the deadline stops them.
  const explosive = ['fraction(2,3)^(3000*1000)', 'nthRoots(1, 10^7)', 'bellNumbers(100*1000)', 'stirlingS2(3000*10, 1500*10)'];
  for (const expression of explosive) {
    it(`stops ${expression} at the deadline: the worker is terminated and burns no CPU after`, async () => {
      await calculate('1 + 1'); // a warm worker, so the deadline measures the evaluation
      const started = performance.now();
      await expect(calculate(expression, { timeoutMs: 300 })).rejects.toThrow(/took longer than 300 ms and was stopped|more memory than the calculator allows and was stopped/);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(await quietestWindow()).toBeLessThan(150);
      expect(liveCalculatorWorkers()).toBeLessThanOrEqual(2);
      // The pool still answers.
      expect(await calculate('6 * 7')).toBe('42');
    });
  }

  it('stops an evaluation when the signal aborts', async () => {
    await calculate('1 + 1');
    const controller = new AbortController();
    const pending = calculate('fraction(2,3)^(3000*1000)', { signal: controller.signal, timeoutMs: 10_000 });
    setTimeout(() => controller.abort(new Error('the client left')), 100);
    await expect(pending).rejects.toThrow('the client left');
    expect(await quietestWindow()).toBeLessThan(150);
  });

  it('evaluates calls in parallel up to its pool size, then queues them', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => calculate(`${i} * 2`)));
    expect(results).toEqual(['0', '2', '4', '6', '8', '10']);
    expect(liveCalculatorWorkers()).toBeLessThanOrEqual(2);
  });
});

describe('calculateTool', () => {
  it('returns the expression and its result', async () => {
    await expect(calculateTool.execute?.({ expression: '1 + 2' }, context)).resolves.toEqual({ expression: '1 + 2', result: '3' });
  });

  it('asks for an expression when none is given', async () => {
    await expect(calculateTool.execute?.({}, context)).rejects.toThrow(/"expression" must be a non-empty string/);
  });
});
