import { describe, expect, it } from 'vitest';
import { calculate, calculateTool } from './calculate-tool.ts';

const context = { toolCallId: 'call_1', signal: new AbortController().signal };

describe('calculate', () => {
  it('evaluates arithmetic, functions and unit conversions', () => {
    expect(calculate('2 * (3 + 4)')).toBe('14');
    expect(calculate('sqrt(16) + sin(pi / 2)')).toBe('5');
    expect(calculate('5 cm to inch')).toBe('1.9685039370079 inch');
  });

  it('refuses require("child_process") as an error, without running anything', () => {
    expect(() => calculate('require("child_process").execSync("id")')).toThrow(/could not be evaluated/);
  });

  it('refuses functions that parse or import', () => {
    expect(() => calculate('evaluate("1+1")')).toThrow(/not available/);
    expect(() => calculate('import({}, {})')).toThrow(/not available/);
  });

  it('refuses large structures', () => {
    expect(() => calculate('zeros(100000000)')).toThrow(/not available/);
  });

  it('refuses assignments and function definitions', () => {
    expect(() => calculate('x = 3')).toThrow(/Assignments/);
    expect(() => calculate('f(x) = f(x + 1)')).toThrow(/Assignments/);
  });

  it('refuses expressions over 500 characters', () => {
    expect(() => calculate('1+'.repeat(300) + '1')).toThrow(/longer than 500/);
  });

  it('says what is wrong with an unparsable expression', () => {
    expect(() => calculate('2 +* 3')).toThrow(/could not be parsed/);
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
