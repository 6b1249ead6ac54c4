// The worker thread of the `calculate` tool: mathjs runs here, never on the gateway's
// event loop, so an expression whose cost explodes blocks only this thread, which the
// gateway terminates at the deadline (calculate-tool.ts).
import { parentPort } from 'node:worker_threads';
import { all, create } from 'mathjs';
import type { MathNode } from 'mathjs';

/** A job for the worker. */
export interface CalculateJob {
  expression: string;
}

/** The worker's messages: once `ready` after loading mathjs, then one reply per job. */
export type CalculateWorkerMessage = { type: 'ready' } | { type: 'result'; result: string } | { type: 'error'; message: string };

/** Largest operand of a factorial-like function (`n!`, `gamma`, `combinations`, …). */
export const MAX_COMBINATORIAL_OPERAND = 10_000;
/** Largest exponent magnitude written as a constant. */
export const MAX_CONSTANT_EXPONENT = 100_000;
/** Most elements a range (`a:b:c`) may produce. */
export const MAX_RANGE_ELEMENTS = 10_000;
/** Longest result, in characters. */
export const MAX_RESULT_LENGTH = 10_000;

// mathjs's own guidance for untrusted input: keep the evaluator, then override every
// function that can parse, import, change the configuration, define units or build large
// structures. https://mathjs.org/docs/expressions/security.html
// `all` is typed as optional, but mathjs always ships it.
const math = create(all ?? {});
const parse = math.parse;
const BLOCKED = [
  'import', 'createUnit', 'reviver', 'evaluate', 'parse', 'simplify', 'simplifyConstant', 'simplifyCore', 'derivative',
  'resolve', 'compile', 'chain', 'parser', 'help', 'config', 'zeros', 'ones', 'identity', 'range', 'matrix', 'sparse',
  'resize', 'reshape', 'concat', 'kron', 'diag', 'random', 'randomInt', 'pickRandom', 'map', 'forEach', 'filter', 'sort',
  'apply', 'matrixFromFunction', 'solveODE',
] as const;
const overrides: Record<string, () => never> = {};
for (const name of BLOCKED) {
  overrides[name] = () => {
    throw new Error(`The function "${name}" is not available in calculate.`);
  };
}
math.import(overrides, { override: true });

const COMBINATORIAL = new Set([
  'factorial', 'gamma', 'lgamma', 'combinations', 'combinationsWithRep', 'permutations', 'stirlingS2', 'bellNumbers',
  'catalan', 'composition', 'multinomial', 'isPrime',
]);
const POWERS = new Set(['pow', 'dotPow']);

/** The number a node stands for when it is a literal (`5`, `-5`, `(5)`), else undefined. */
function constantOf(node: MathNode | undefined): number | undefined {
  let current = node;
  let sign = 1;
  for (let depth = 0; depth < 8 && current !== undefined; depth++) {
    if (current.type === 'ParenthesisNode') current = (current as unknown as { content: MathNode }).content;
    else if (current.type === 'OperatorNode' && (current as unknown as { fn: string }).fn === 'unaryMinus') {
      sign = -sign;
      current = (current as unknown as { args: MathNode[] }).args[0];
    } else if (current.type === 'ConstantNode') {
      const value = Number((current as unknown as { value: unknown }).value);
      return Number.isNaN(value) ? undefined : sign * value;
    } else return undefined;
  }
  return undefined;
}

const tooLarge = (what: string): Error => new Error(`${what} Split the calculation into smaller steps.`);

/** Refuses, before anything runs, what would build or compute something huge. */
function checkBounds(node: MathNode): void {
  node.traverse((child) => {
    switch (child.type) {
      case 'AssignmentNode':
      case 'FunctionAssignmentNode':
        throw new Error('Assignments and function definitions are not allowed; write a single expression.');
      case 'OperatorNode':
      case 'FunctionNode': {
        const name = child.type === 'OperatorNode' ? (child as unknown as { fn: string }).fn : (child as unknown as { fn: { name?: string } }).fn.name ?? '';
        const args = (child as unknown as { args: MathNode[] }).args;
        if (COMBINATORIAL.has(name)) {
          for (const arg of args) {
            const value = constantOf(arg);
            if (value !== undefined && Math.abs(value) > MAX_COMBINATORIAL_OPERAND) {
              throw tooLarge(`The operand ${value} of ${name} is larger than ${MAX_COMBINATORIAL_OPERAND}.`);
            }
          }
        }
        if (POWERS.has(name)) {
          const exponent = constantOf(args[1]);
          if (exponent !== undefined && Math.abs(exponent) > MAX_CONSTANT_EXPONENT) {
            throw tooLarge(`The exponent ${exponent} is larger than ${MAX_CONSTANT_EXPONENT} in magnitude.`);
          }
        }
        break;
      }
      case 'RangeNode': {
        const range = child as unknown as { start: MathNode; end: MathNode; step: MathNode | null | undefined };
        const start = constantOf(range.start);
        const end = constantOf(range.end);
        const step = range.step === null || range.step === undefined ? 1 : constantOf(range.step);
        if (start === undefined || end === undefined || step === undefined || step === 0 || Math.abs((end - start) / step) > MAX_RANGE_ELEMENTS) {
          throw tooLarge(`A range must have literal bounds and at most ${MAX_RANGE_ELEMENTS} elements.`);
        }
        break;
      }
      default:
        break;
    }
  });
}

/** Evaluates one expression in the restricted scope; throws an `Error` written for the model. */
export function evaluateExpression(expression: string): string {
  let node: MathNode;
  try {
    node = parse(expression);
  } catch (error) {
    throw new Error(`The expression could not be parsed: ${(error as Error).message}`, { cause: error });
  }
  checkBounds(node);
  let value: unknown;
  try {
    value = node.compile().evaluate(new Map());
  } catch (error) {
    throw new Error(`The expression could not be evaluated: ${(error as Error).message}`, { cause: error });
  }
  if (typeof value === 'function' || value === undefined) throw new Error('The expression did not produce a value.');
  const result = math.format(value, { precision: 14 });
  if (result.length > MAX_RESULT_LENGTH) throw tooLarge(`The result is longer than ${MAX_RESULT_LENGTH} characters.`);
  return result;
}

const port = parentPort;
if (port !== null) {
  port.on('message', (job: CalculateJob) => {
    let reply: CalculateWorkerMessage;
    try {
      reply = { type: 'result', result: evaluateExpression(job.expression) };
    } catch (error) {
      reply = { type: 'error', message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ type: 'ready' } satisfies CalculateWorkerMessage);
}
