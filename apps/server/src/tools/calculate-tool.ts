import { defineTool } from '@toolwire/core';
import { all, create } from 'mathjs';
import type { MathNode } from 'mathjs';

const MAX_EXPRESSION_LENGTH = 500;

// mathjs's own guidance for untrusted input: keep the evaluator, then override every
// function that can parse, import, define units or build large structures.
// https://mathjs.org/docs/expressions/security.html
// `all` is typed as optional, but mathjs always ships it.
const math = create(all ?? {});
const parse = math.parse;
const BLOCKED = [
  'import', 'createUnit', 'reviver', 'evaluate', 'parse', 'simplify', 'simplifyConstant', 'simplifyCore', 'derivative',
  'resolve', 'compile', 'chain', 'parser', 'help', 'zeros', 'ones', 'identity', 'range', 'matrix', 'sparse', 'resize',
  'concat', 'kron', 'diag', 'random', 'randomInt', 'pickRandom', 'map', 'forEach', 'filter', 'sort',
] as const;
const overrides: Record<string, () => never> = {};
for (const name of BLOCKED) {
  overrides[name] = () => {
    throw new Error(`The function "${name}" is not available in calculate.`);
  };
}
math.import(overrides, { override: true });

/**
 * Evaluates an arithmetic expression with mathjs in a restricted scope: no imports, no
 * parsing from inside, no assignments or function definitions, no large matrices. Never
 * `eval` or `Function`. Throws an `Error` written for the model.
 */
export function calculate(expression: string): string {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new Error(`The expression is longer than ${MAX_EXPRESSION_LENGTH} characters. Split it into smaller steps.`);
  }
  let node: MathNode;
  try {
    node = parse(expression);
  } catch (error) {
    throw new Error(`The expression could not be parsed: ${(error as Error).message}`, { cause: error });
  }
  node.traverse((child) => {
    if (child.type === 'AssignmentNode' || child.type === 'FunctionAssignmentNode') {
      throw new Error('Assignments and function definitions are not allowed; write a single expression.');
    }
  });
  let value: unknown;
  try {
    value = node.compile().evaluate(new Map());
  } catch (error) {
    throw new Error(`The expression could not be evaluated: ${(error as Error).message}`, { cause: error });
  }
  if (typeof value === 'function' || value === undefined) throw new Error('The expression did not produce a value.');
  return math.format(value, { precision: 14 });
}

/** The built-in `calculate` tool. */
export const calculateTool = defineTool({
  name: 'calculate',
  description: 'Evaluate a math expression (arithmetic, functions such as sqrt/sin/log, unit conversions like "5 cm to inch").',
  parameters: {
    type: 'object',
    properties: { expression: { type: 'string', description: 'The expression, e.g. "2 * (3 + 4)" or "sqrt(2)".' } },
    required: ['expression'],
    additionalProperties: false,
  },
  execute(args) {
    const expression = args.expression;
    if (typeof expression !== 'string' || expression.trim() === '') {
      return Promise.reject(new Error('"expression" must be a non-empty string, e.g. {"expression": "2 + 2"}.'));
    }
    try {
      return Promise.resolve({ expression, result: calculate(expression) });
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  },
});
