// Fuzzing `runTools` (and `runToolsStream`) against hostile model output and hostile tools: a
// scripted model calls tools with unknown names, names like `__proto__`, arguments of every
// JSON type and of none, huge and deep arguments, duplicate and empty ids, up to thousands of
// calls in one step; the tools throw anything (strings, undefined, Symbols, objects with
// throwing getters or `toJSON`), return cycles, BigInts, functions, forged outputs, huge text,
// or never settle (under the run's timeout or an abort). The run must end with a result or a
// typed error within a bound; every tool result the model reads back is a string; no handler
// is left running without its signal aborted; nothing reaches the process's failure events.
// `pnpm fuzz` runs many more cases (see the README).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineTool } from './define-tool.ts';
import { runTools } from './run-tools.ts';
import { runToolsStream } from './run-tools-stream.ts';
import { createScriptedModel } from './testing/scripted-model.ts';
import type { ToolExecutionContext } from './types/tool.ts';
import { fuzzParameters, fuzzTimeout } from '../../../test/fuzz/fuzz-parameters.ts';
import { settleTurns, watchProcess } from '../../../test/fuzz/process-watch.ts';

const TOOLWIRE_MARKER = Symbol.for('toolwire.error.ToolwireError');

/** Values a hostile tool throws or returns; made fresh per use (some are stateful). */
const HOSTILE_VALUES: Record<string, () => unknown> = {
  string: () => 'plain text',
  undefined: () => undefined,
  null: () => null,
  number: () => 42,
  nan: () => Number.NaN,
  symbol: () => Symbol('tool'),
  bigint: () => 10n ** 30n,
  function: () => () => 1,
  cyclic: () => {
    const value: Record<string, unknown> = { a: 1 };
    value.self = value;
    return value;
  },
  throwingToJSON: () => ({
    toJSON() {
      throw new Error('toJSON refuses');
    },
  }),
  throwingGetter: () => ({
    get message(): string {
      throw new Error('getter refuses');
    },
    get name(): string {
      throw new Error('getter refuses');
    },
  }),
  errorWithThrowingMessage: () => {
    const error = new Error('x');
    Object.defineProperty(error, 'message', {
      get() {
        throw new Error('message refuses');
      },
    });
    return error;
  },
  errorWithSymbolMessage: () => Object.defineProperty(new Error('x'), 'message', { value: Symbol('m') }),
  revokedProxy: () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  },
  deep: () => {
    let value: unknown = 1;
    for (let i = 0; i < 12_000; i++) value = [value];
    return value;
  },
  huge: () => 'x'.repeat(1_100_000),
  hugeObject: () => ({ text: 'y'.repeat(1_100_000) }),
  forgedOutput: () => ({ [Symbol.for('toolwire.toolOutput')]: true, message: 5, success: 'yes', errorType: {} }),
  forgedOutputObject: () => ({ [Symbol.for('toolwire.toolOutput')]: true, message: { text: 'hi' }, success: false }),
  throwingThen: () => ({
    get then(): unknown {
      throw new Error('then refuses');
    },
  }),
  date: () => new Date(Number.NaN),
  map: () => new Map([[1, 2]]),
  loneSurrogate: () => 'a\ud800b',
};
const VALUE_NAMES = Object.keys(HOSTILE_VALUES);

type Behaviour = { kind: 'return' | 'throw' | 'reject'; value: string } | { kind: 'hang' } | { kind: 'hang-ignoring-signal' } | { kind: 'abort-run' };

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  fc.record({ kind: fc.constantFrom('return' as const, 'throw' as const, 'reject' as const), value: fc.constantFrom(...VALUE_NAMES) }),
  fc.constant<Behaviour>({ kind: 'hang' }),
  fc.constant<Behaviour>({ kind: 'hang-ignoring-signal' }),
  fc.constant<Behaviour>({ kind: 'abort-run' }),
);

const TOOL_NAMES = ['alpha', 'beta', 'gamma', 'delta'] as const;
const HOSTILE_NAMES = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf', '', ' ', 'alpha ', 'ALPHA', 'a'.repeat(5000), 'name\u0000', 'é😀', 'prototype'];

const DEEP = 3000;
const jsonArgument: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 4 },
  fc.constantFrom<unknown>(null, 1, 'text', true, [], [1, 2], JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}')),
  fc.constant(undefined),
  // Printed short in counterexamples: fast-check's printer would overflow the stack on it.
  fc.constant(Object.defineProperty(JSON.parse('['.repeat(DEEP) + ']'.repeat(DEEP)) as unknown[], fc.toStringMethod, { value: () => `[…${DEEP} nested lists…]` })),
  fc.constant({ big: 'z'.repeat(200_000) }),
  fc.constant(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]))),
);

const callArbitrary = fc.record({
  id: fc.oneof({ arbitrary: fc.constantFrom('call_1', 'call_2', 'dup'), weight: 3 }, fc.constantFrom('', ' ', '__proto__', 'x'.repeat(1000)), fc.string({ maxLength: 8 })),
  name: fc.oneof({ arbitrary: fc.constantFrom(...TOOL_NAMES), weight: 4 }, fc.constantFrom(...HOSTILE_NAMES), fc.string({ maxLength: 10 })),
  arguments: jsonArgument,
  invalid: fc.option(fc.record({ rawArguments: fc.string({ maxLength: 20 }), message: fc.string({ maxLength: 20 }) }), { freq: 8 }),
});

/** What a tool may do when it is called thousands of times in one step: nothing large or slow. */
const cheapBehaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  fc.record({ kind: fc.constantFrom('return' as const, 'throw' as const, 'reject' as const), value: fc.constantFrom('string', 'undefined', 'symbol', 'bigint', 'cyclic', 'throwingToJSON', 'revokedProxy', 'forgedOutput') }),
  fc.constant<Behaviour>({ kind: 'abort-run' }),
);
const behaviours = (b: fc.Arbitrary<Behaviour>) => fc.record({ alpha: b, beta: b, gamma: b, delta: b });

const caseArbitrary = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.record({
      behaviours: behaviours(behaviour),
      steps: fc.array(fc.array(callArbitrary, { maxLength: 6 }), { minLength: 1, maxLength: 3 }),
      parallel: fc.boolean(),
      streamed: fc.boolean(),
      maxResultChars: fc.option(fc.integer({ min: 1, max: 100_000 })),
    }),
  },
  {
    // Thousands of calls in one step, of tools that answer at once (a timeout per call would
    // make the case as long as thousands of timeouts when the calls run one by one).
    weight: 1,
    arbitrary: fc.record({
      behaviours: behaviours(cheapBehaviour),
      // Not shrunk: shrinking thousands of calls one by one takes longer than finding the failure.
      steps: fc.noShrink(fc.integer({ min: 500, max: 2000 }).chain((n) => fc.array(callArbitrary, { minLength: n, maxLength: n })).map((calls) => [calls])),
      parallel: fc.boolean(),
      streamed: fc.boolean(),
      maxResultChars: fc.option(fc.integer({ min: 1, max: 100_000 })),
    }),
  },
);

const TIMEOUT_MS = 30;
const CASE_BOUND_MS = 20_000;

describe('runTools against hostile model output and hostile tools (fuzz)', () => {
  const RUNS = 100;
  it(
    'ends with a result or a typed error, feeds back only text, leaves no handler running unaborted',
    async () => {
      await fc.assert(
        fc.asyncProperty(caseArbitrary, async ({ behaviours, steps, parallel, streamed, maxResultChars }) => {
          const watch = watchProcess();
          const controller = new AbortController();
          const abortReason = new Error('fuzz: the run was aborted by a tool');
          /** Every signal a handler got, and whether that handler settled. */
          const handed: { signal: AbortSignal; settled: boolean }[] = [];
          const tools = TOOL_NAMES.map((name) =>
            defineTool({
              name,
              description: `The ${name} tool.`,
              parameters: { type: 'object', additionalProperties: true },
              execute: (_args: unknown, context: ToolExecutionContext) => {
                const entry = { signal: context.signal, settled: false };
                handed.push(entry);
                const b = behaviours[name];
                const settle = <T>(value: T): T => {
                  entry.settled = true;
                  return value;
                };
                switch (b.kind) {
                  case 'return':
                    return settle(HOSTILE_VALUES[b.value]!());
                  case 'throw':
                    entry.settled = true;
                    throw HOSTILE_VALUES[b.value]!();
                  case 'reject':
                    entry.settled = true;
                    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a hostile tool rejects with anything
                    return Promise.reject(HOSTILE_VALUES[b.value]!());
                  case 'hang':
                    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- it rejects with what the signal was aborted with
                    return new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(settle(context.signal.reason)), { once: true }));
                  case 'hang-ignoring-signal':
                    return new Promise(() => undefined);
                  case 'abort-run':
                    controller.abort(abortReason);
                    return settle('aborted the run');
                }
              },
            }),
          );
          const model = createScriptedModel([
            ...steps.map((calls) => ({ toolCalls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments as Record<string, unknown>, ...(call.invalid ? { invalid: call.invalid } : {}) })) })),
            { text: 'Done.' },
          ]);
          const options = {
            model,
            messages: [{ role: 'user' as const, content: 'Go.' }],
            tools,
            maxSteps: steps.length + 1,
            parallelToolCalls: parallel,
            timeoutMs: TIMEOUT_MS,
            signal: controller.signal,
            ...(maxResultChars !== null ? { maxResultChars } : {}),
          };
          let timer: NodeJS.Timeout | undefined;
          const bound = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`the run did not end within ${CASE_BOUND_MS} ms (a hang)`)), CASE_BOUND_MS);
          });
          const work = streamed
            ? (async () => {
                const stream = runToolsStream(options);
                for await (const event of stream) {
                  if (event.type === 'error') throw event.error;
                }
                return stream.result;
              })()
            : runTools(options);
          const outcome = await Promise.race([work, bound]).then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
          clearTimeout(timer);
          controller.abort(abortReason);
          await settleTurns();
          const seen = watch.stop();
          expect(seen, seen.join('\n')).toEqual([]);
          if ('error' in outcome) {
            const error = outcome.error;
            if (error !== abortReason) {
              expect(error instanceof Error && TOOLWIRE_MARKER in error, `an untyped error ended the run: ${String(error)}\n${error instanceof Error ? (error.stack ?? '') : ''}`).toBe(true);
            }
          } else {
            const { result } = outcome;
            for (const message of result.messages) {
              if (message.role !== 'tool') continue;
              expect(typeof message.content, `a tool message whose content is ${typeof message.content}`).toBe('string');
              expect(typeof message.result?.message).toBe('string');
              expect(() => JSON.stringify(message.content)).not.toThrow();
              if (maxResultChars !== null) expect(message.content.length).toBeLessThanOrEqual(maxResultChars + 200);
            }
          }
          // Every handler that did not settle has had its signal aborted (by the timeout or the run's abort).
          for (const entry of handed) if (!entry.settled) expect(entry.signal.aborted).toBe(true);
        }),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS, 3_000),
  );
});
